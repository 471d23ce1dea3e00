package dev.cdccache.coupon.progress;

/** Issue/use counts of one coupon (one {@code coupon_progress} row); every issue changes it. */
public record CouponProgress(long couponId, int issuedCount, int usedCount) {

    /** Counts of a coupon that has no progress row yet. */
    public static CouponProgress none(long couponId) {
        return new CouponProgress(couponId, 0, 0);
    }
}
