package dev.cdccache.coupon.caching;

import dev.cdccache.coupon.catalog.Coupon;
import dev.cdccache.coupon.catalog.CouponCatalog;
import dev.cdccache.coupon.catalog.CouponMetadataRepository;
import dev.cdccache.coupon.catalog.Place;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** Cache mode {@code none}: every read goes to the database (one query per call). */
class DatabaseCouponCatalog implements CouponCatalog {

    private final CouponMetadataRepository repository;

    DatabaseCouponCatalog(CouponMetadataRepository repository) {
        this.repository = repository;
    }

    @Override
    public Optional<Coupon> findCoupon(long id) {
        return repository.findCouponById(id);
    }

    @Override
    public List<Coupon> findCoupons(List<Long> ids) {
        Map<Long, Coupon> found = repository.findCouponsByIds(ids);
        return ids.stream().map(found::get).filter(Objects::nonNull).toList();
    }

    @Override
    public Optional<Coupon> findCouponByCode(String code) {
        return repository.findCouponByCode(code);
    }

    @Override
    public Optional<Place> findPlace(long id) {
        return repository.findPlaceById(id);
    }

    @Override
    public List<Coupon> findPlaceCoupons(long placeId) {
        return repository.findCouponsByPlace(placeId);
    }
}
