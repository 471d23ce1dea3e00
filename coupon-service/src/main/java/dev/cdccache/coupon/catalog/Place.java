package dev.cdccache.coupon.catalog;

/** An accommodation that offers coupons. */
public record Place(long id, String name, String region, String category) {
}
