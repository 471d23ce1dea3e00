package dev.cdccache.coupon.caching;

import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.spring.CdcCacheManager;
import dev.cdccache.coupon.progress.CouponProgress;
import dev.cdccache.coupon.progress.CouponProgressRepository;
import dev.cdccache.coupon.progress.ProgressCounts;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Cache mode {@code local}: progress counts in the invalidation client's cache {@code couponProgress}, coupon id
 * to counts, evicted by coupon_progress [coupon_id] (configuration in application.yml). Every issue changes one
 * row, but one row among all coupons: a place's list is read far more often than any one of its coupons is
 * issued, so the counts stay cached between issues (docs/benchmarks.md has the rates). Hits come from the
 * cache, all misses in one query; staleness is bounded like every other cache of the client.
 */
class LocalProgressCounts implements ProgressCounts {

    private final CouponProgressRepository repository;
    private final InvalidatingCache<Long, CouponProgress> counts;

    LocalProgressCounts(CouponProgressRepository repository, CdcCacheManager caches) {
        this.repository = repository;
        this.counts = caches.invalidatingCache(CacheNames.COUPON_PROGRESS);
    }

    @Override
    public Map<Long, CouponProgress> findByCouponIds(Collection<Long> couponIds) {
        // The loader answers every id (zero counts without a row), so every key is cached; the insert of a
        // progress row evicts its key like any update. A miss is cached under the caller's instance of its id: the
        // place lists pass the boxes their cached coupons hold (CouponView#boxedId), so the key costs no box.
        Map<Long, CouponProgress> found = new HashMap<>(counts.getAll(couponIds,
                missing -> repository.findByCouponIds(List.copyOf(missing))));
        couponIds.forEach(id -> found.putIfAbsent(id, CouponProgress.none()));
        return found;
    }
}
