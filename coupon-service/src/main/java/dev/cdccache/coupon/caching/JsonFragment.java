package dev.cdccache.coupon.caching;

/**
 * A value together with its JSON, encoded once; canonical instances are shared by every cached coupon with an
 * equal value ({@link CompactCouponEncoder}).
 *
 * @param <T> the value's type
 */
final class JsonFragment<T> {

    private final T value;
    private final byte[] json;

    JsonFragment(T value, byte[] json) {
        this.value = value;
        this.json = json;
    }

    T value() {
        return value;
    }

    /** The encoded JSON; never modified. */
    byte[] json() {
        return json;
    }
}
