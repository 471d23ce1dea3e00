package dev.cdccache.coupon.caching;

/**
 * Names of the coupon caches; in {@code local} mode they are the invalidation client's cache names
 * ({@code cdc.invalidation.caches.<name>}), which also say which rows evict which keys.
 */
public final class CacheNames {

    /** Coupon id to coupon with attributes; evicted by coupon [id] and coupon_attribute [coupon_id]. */
    public static final String COUPONS = "coupons";
    /** Coupon code to coupon id; evicted by coupon [code], old and new code. */
    public static final String COUPON_IDS_BY_CODE = "couponIdsByCode";
    /** Place id to the ids of its coupons; evicted by coupon [place_id], old and new place. */
    public static final String PLACE_COUPON_IDS = "placeCouponIds";
    /** Place id to place; evicted by place [id]. */
    public static final String PLACES = "places";
    /** Coupon id to its issue/use counts (mode local only); evicted by coupon_progress [coupon_id]. */
    public static final String COUPON_PROGRESS = "couponProgress";

    private CacheNames() {
    }
}
