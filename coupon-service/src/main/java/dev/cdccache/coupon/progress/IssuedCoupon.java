package dev.cdccache.coupon.progress;

/** A coupon issued to a user: the new {@code user_coupon} row. */
public record IssuedCoupon(long userCouponId, long couponId, long userId) {
}
