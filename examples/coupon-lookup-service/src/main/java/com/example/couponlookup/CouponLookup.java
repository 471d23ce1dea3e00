package com.example.couponlookup;

import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.spring.CdcCacheManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.stereotype.Service;

/**
 * The three ways to read through a CDC-invalidated cache. Each one is safe against a change committed while
 * the database is being read (the client never keeps a value read before an invalidation it has applied).
 */
@Service
public class CouponLookup {

    private final CouponRepository repository;
    private final InvalidatingCache<Long, Coupon> couponsById;

    public CouponLookup(CouponRepository repository, CdcCacheManager caches) {
        this.repository = repository;
        this.couponsById = caches.invalidatingCache("coupons");
    }

    /** Without annotations: the cache API, with the loader called on a miss (concurrent misses share one load). */
    public Coupon byId(long id) {
        return couponsById.get(id, key -> repository.findById(key).orElse(null));
    }

    /**
     * With Spring's {@code @Cacheable}: the cache {@code couponsByCode} is keyed by the code column, so a change of
     * a coupon's code evicts the old and the new code.
     */
    @Cacheable("couponsByCode")
    public Coupon byCode(String code) {
        return repository.findByCode(code).orElse(null);
    }

    /** Many ids at once: hits from the cache, ONE query for all the misses; in the order asked, absent ids left out. */
    public List<Coupon> byIds(List<Long> ids) {
        Map<Long, Coupon> found = couponsById.getAll(ids, repository::findAllById);
        return new ArrayList<>(found.values());
    }
}
