package dev.cdccache.coupon.progress;

/**
 * Issue/use counts of one coupon (one {@code coupon_progress} row); every issue changes it. It does not carry the
 * coupon's id: counts are always handed out keyed by it ({@link ProgressCounts}), and mode {@code local} caches one
 * per coupon, where an id of its own would cost 8 bytes per coupon for nothing.
 */
public record CouponProgress(int issuedCount, int usedCount) {

    private static final CouponProgress NONE = new CouponProgress(0, 0);

    /** Counts of a coupon that has no progress row yet (one shared instance). */
    public static CouponProgress none() {
        return NONE;
    }
}
