package dev.cdccache.coupon.progress;

import java.util.Collection;
import java.util.Map;

/**
 * Where the read endpoints get issue/use counts: the database on every read, or (cache mode {@code local})
 * a cache evicted by the change stream of {@code coupon_progress}. The issue path never reads counts through
 * this: its limit check is the conditional {@code UPDATE} against the row itself.
 */
@FunctionalInterface
public interface ProgressCounts {

    /**
     * Counts of these coupons; a coupon without a progress row has zero counts.
     *
     * @param couponIds coupon ids (may be empty)
     * @return one entry per id
     */
    Map<Long, CouponProgress> findByCouponIds(Collection<Long> couponIds);
}
