package dev.cdccache.coupon.caching.hibernate;

import dev.cdccache.coupon.catalog.Coupon;
import dev.cdccache.coupon.catalog.CouponCatalog;
import dev.cdccache.coupon.catalog.Place;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.context.internal.ManagedSessionContext;

/**
 * Cache mode {@code hibernate}: a usual setup of such a service, JPA entities in Hibernate's second-level cache with
 * local regions and NONSTRICT_READ_WRITE, except that the regions are the invalidation client's caches, evicted by
 * the change stream ({@code CdcRegionFactory}), so no code here evicts anything:
 * <ul>
 *   <li>coupons by id (entity region), their attributes (element-collection region, evicted by
 *       {@code coupon_attribute.coupon_id}), coupons by code (natural-id region);</li>
 *   <li>a place's coupons (collection region keyed by place, evicted by {@code coupon.place_id}, old and new);</li>
 *   <li>places by id (entity region).</li>
 * </ul>
 * Bulk lookups use Hibernate's multi-load, which serves cached coupons without a query and loads the missing ones
 * in one; their attributes then come from the collection cache or one batched query. Reads run outside any
 * transaction in a read-only session: the request's ({@link RequestSessionFilter}, bound as the current session),
 * else one opened for the call.
 */
public class HibernateCouponCatalog implements CouponCatalog {

    private final SessionFactory sessions;

    public HibernateCouponCatalog(SessionFactory sessions) {
        this.sessions = sessions;
    }

    private <T> T read(Function<Session, T> work) {
        if (ManagedSessionContext.hasBind(sessions)) {
            return work.apply(sessions.getCurrentSession());
        }
        try (Session session = openReadOnly(sessions)) {
            return work.apply(session);
        }
    }

    /** A session whose entities are read-only: no snapshot is kept of them, and nothing is ever flushed. */
    static Session openReadOnly(SessionFactory sessions) {
        Session session = sessions.openSession();
        session.setDefaultReadOnly(true);
        return session;
    }

    @Override
    public Optional<Coupon> findCoupon(long id) {
        return read(s -> Optional.ofNullable(s.find(CouponEntity.class, id)).map(CouponEntity::toCoupon));
    }

    @Override
    public List<Coupon> findCoupons(List<Long> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        return read(s -> s.findMultiple(CouponEntity.class, ids).stream().filter(Objects::nonNull)
                .map(CouponEntity::toCoupon).toList());
    }

    @Override
    public Optional<Coupon> findCouponByCode(String code) {
        return read(s -> s.bySimpleNaturalId(CouponEntity.class).loadOptional(code).map(CouponEntity::toCoupon));
    }

    @Override
    public Optional<Place> findPlace(long id) {
        return read(s -> Optional.ofNullable(s.find(PlaceEntity.class, id)).map(PlaceEntity::toPlace));
    }

    @Override
    public List<Coupon> findPlaceCoupons(long placeId) {
        return read(s -> {
            PlaceEntity place = s.find(PlaceEntity.class, placeId);
            return place == null ? List.of() : place.getCoupons().stream().map(CouponEntity::toCoupon).toList();
        });
    }
}
