package dev.cdccache.coupon.caching;

import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.cache.CachedValue;
import dev.cdccache.client.spring.CdcCacheManager;
import dev.cdccache.coupon.catalog.CouponCatalog;
import dev.cdccache.coupon.catalog.CouponMetadataRepository;
import dev.cdccache.coupon.catalog.CouponView;
import dev.cdccache.coupon.catalog.Place;
import java.util.List;
import java.util.Optional;

/**
 * Cache mode {@code local}: in-process Caffeine caches of the invalidation client, evicted by the
 * database's change stream. This class only composes the caches; which row change evicts which key is
 * configuration ({@code cdc.invalidation.caches} in application.yml):
 * <ul>
 *   <li>{@code coupons} id to coupon with attributes, kept compact with its JSON encoded ({@link CompactCoupon},
 *       encoded once per load by {@link CompactCouponEncoder}), evicted by coupon [id] and coupon_attribute [coupon_id];</li>
 *   <li>{@code couponIdsByCode} code to id, evicted by coupon [code] (old and new code); keys lower-cased
 *       (key-normalization), since the code column's collation ignores case;</li>
 *   <li>{@code placeCouponIds} place id to coupon ids, evicted by coupon [place_id] (old and new place),
 *       and composed with {@code coupons} through one bulk lookup;</li>
 *   <li>{@code places} id to place, evicted by place [id].</li>
 * </ul>
 * "No such row" is cached too (the client's {@code cache-nulls}): the insert that creates the row evicts
 * it like any other change.
 *
 * <p>Ids are boxed once per coupon where the order of loads allows: a loaded coupon holds the {@code Long} it is
 * cached under ({@link CompactCoupon#boxedId()}, which the progress counts are then keyed by), a code's id is the
 * cached coupon's instance when there is one, a coupon found by its code is cached under the code's instance, and
 * a place's list holds primitives ({@link CompactIdList}). Only the instances are shared, never a value: each cache
 * still holds what its own load read.
 */
class LocalCouponCatalog implements CouponCatalog {

    private final CouponMetadataRepository repository;
    private final CompactCouponEncoder encoder;
    private final InvalidatingCache<Long, CompactCoupon> coupons;
    private final InvalidatingCache<String, Long> couponIdsByCode;
    private final InvalidatingCache<Long, List<Long>> placeCouponIds;
    private final InvalidatingCache<Long, Place> places;

    LocalCouponCatalog(CouponMetadataRepository repository, CdcCacheManager caches, CompactCouponEncoder encoder) {
        this.repository = repository;
        this.encoder = encoder;
        this.coupons = caches.invalidatingCache(CacheNames.COUPONS);
        this.couponIdsByCode = caches.invalidatingCache(CacheNames.COUPON_IDS_BY_CODE);
        this.placeCouponIds = caches.invalidatingCache(CacheNames.PLACE_COUPON_IDS);
        this.places = caches.invalidatingCache(CacheNames.PLACES);
    }

    @Override
    public Optional<CompactCoupon> findCoupon(long id) {
        return findCoupon(Long.valueOf(id));
    }

    /** On a miss, {@code id} becomes both the cache's key and the loaded coupon's boxed id. */
    private Optional<CompactCoupon> findCoupon(Long id) {
        return Optional.ofNullable(coupons.get(id,
                key -> repository.findCouponById(key).map(coupon -> encoder.encode(coupon, key)).orElse(null)));
    }

    @Override
    public CompactCoupons findCoupons(List<Long> ids) {
        // Hits from the cache, every miss in ONE query (encoded once, as it is loaded); the result iterates in
        // the order of ids and is written to the response as one JSON array of the cached bytes.
        // The cache stores a loaded coupon under the instance of ids it was asked for, which the coupon then holds.
        return new CompactCoupons(coupons.getAll(ids,
                missing -> encoder.encodeAll(missing, repository.findCouponsByIds(missing))).values());
    }

    @Override
    public Optional<? extends CouponView> findCouponByCode(String code) {
        Long id = couponIdsByCode.get(code,
                key -> repository.findCouponIdByCode(key).map(this::sharedBox).orElse(null));
        if (id == null) {
            return Optional.empty();
        }
        // The two entries are evicted by the same change event, but not atomically together: in the gap
        // the coupon may already carry another code. Never answer with it; ask the database instead. The
        // comparison ignores case like the column's collation (and the cache's key-normalization) does.
        Optional<CompactCoupon> coupon = findCoupon(id); // the Long: cached under it on a miss
        if (coupon.isPresent() && coupon.get().code().equalsIgnoreCase(code)) {
            return coupon;
        }
        return repository.findCouponByCode(code);
    }

    @Override
    public Optional<Place> findPlace(long id) {
        return Optional.ofNullable(places.get(id, key -> repository.findPlaceById(key).orElse(null)));
    }

    @Override
    public List<CompactCoupon> findPlaceCoupons(long placeId) {
        List<Long> ids = placeCouponIds.get(placeId, key -> CompactIdList.of(repository.findCouponIdsByPlace(key)));
        // A coupon that moved away is dropped until the list's own eviction lands.
        return findCoupons(ids).stream().filter(coupon -> coupon.placeId() == placeId).toList();
    }

    /**
     * {@code id} as the instance the cached coupon of that id holds, if one is cached (then the code's entry adds no
     * box of its own), else {@code id} itself. Equal either way: only the instance differs, so the entry is read
     * from the map as stored, servable or not, without counting a hit or a miss or waiting for a read floor.
     */
    private Long sharedBox(Long id) {
        Object entry = coupons.caffeine().asMap().get(id);
        CompactCoupon cached = entry == null ? null : CachedValue.valueOf(entry);
        return cached != null && cached.id() == id ? cached.boxedId() : id;
    }
}
