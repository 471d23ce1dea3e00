package dev.cdccache.coupon.catalog;

import java.util.List;
import java.util.Optional;

/**
 * The read path for coupon metadata and places. One implementation per cache mode
 * ({@code coupon.cache.mode}); all of them return the same data for the same database state, so the
 * modes can be compared under load with the same endpoints.
 *
 * <p>Coupons come as {@link CouponView}s: {@link Coupon} records, or in mode {@code local} a compact form that
 * carries its JSON encoded; either way the endpoints serialise them to the same bytes.
 *
 * <p>Implementations are thread-safe. No method caches a negative answer for longer than the
 * invalidation of the row that would make it positive.
 */
public interface CouponCatalog {

    /** The coupon with its attributes, or empty when no coupon has this id. */
    Optional<? extends CouponView> findCoupon(long id);

    /**
     * The coupons with these ids in the order of {@code ids}; unknown ids are left out. Ids must be
     * distinct. Implementations that cache serve the hits from the cache and load all misses with one
     * database query.
     */
    List<? extends CouponView> findCoupons(List<Long> ids);

    /** The coupon whose (unique) code is {@code code}, or empty. */
    Optional<? extends CouponView> findCouponByCode(String code);

    /** The place, or empty when it does not exist. */
    Optional<Place> findPlace(long id);

    /** All coupons of a place, ordered by id (empty for a place without coupons or an unknown place). */
    List<? extends CouponView> findPlaceCoupons(long placeId);
}
