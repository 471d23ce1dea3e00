package dev.cdccache.coupon.catalog;

/** Lifecycle of a coupon; only {@link #ACTIVE} coupons can be issued or used. */
public enum CouponStatus {
    ACTIVE,
    PAUSED,
    ENDED
}
