package dev.cdccache.coupon.progress;

/** Live issue/use counts of one coupon; changes on every issue, so it is never cached. */
public record CouponProgress(long couponId, int issuedCount, int usedCount) {

    /** Counts of a coupon that has no progress row yet. */
    public static CouponProgress none(long couponId) {
        return new CouponProgress(couponId, 0, 0);
    }
}
