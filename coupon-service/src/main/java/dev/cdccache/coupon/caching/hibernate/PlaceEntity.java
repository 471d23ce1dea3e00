package dev.cdccache.coupon.caching.hibernate;

import dev.cdccache.coupon.catalog.Place;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.OneToMany;
import jakarta.persistence.OrderBy;
import jakarta.persistence.Table;
import java.util.ArrayList;
import java.util.List;
import org.hibernate.annotations.Cache;
import org.hibernate.annotations.CacheConcurrencyStrategy;

/**
 * A {@code place} row with the ids of its coupons as a cached collection: a change of a coupon's
 * {@code place_id} evicts the collection of the old and of the new place (before and after image).
 */
@Entity
@Table(name = "place")
@Cache(usage = CacheConcurrencyStrategy.NONSTRICT_READ_WRITE)
public class PlaceEntity {

    @Id
    private Long id;

    private String name;

    private String region;

    private String category;

    @OneToMany
    @JoinColumn(name = "place_id", insertable = false, updatable = false)
    @OrderBy("id")
    @Cache(usage = CacheConcurrencyStrategy.NONSTRICT_READ_WRITE)
    private List<CouponEntity> coupons = new ArrayList<>();

    protected PlaceEntity() {
    }

    public List<CouponEntity> getCoupons() {
        return coupons;
    }

    public Place toPlace() {
        return new Place(id, name, region, category);
    }
}
