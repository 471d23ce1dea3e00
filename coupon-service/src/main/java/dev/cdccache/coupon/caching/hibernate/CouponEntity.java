package dev.cdccache.coupon.caching.hibernate;

import dev.cdccache.coupon.catalog.Coupon;
import dev.cdccache.coupon.catalog.CouponAttribute;
import dev.cdccache.coupon.catalog.CouponStatus;
import dev.cdccache.coupon.catalog.DiscountType;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.MapKeyColumn;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.CollectionTable;
import jakarta.persistence.ElementCollection;
import jakarta.persistence.Table;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.hibernate.annotations.BatchSize;
import org.hibernate.annotations.Cache;
import org.hibernate.annotations.CacheConcurrencyStrategy;
import org.hibernate.annotations.NaturalId;
import org.hibernate.annotations.NaturalIdCache;
import org.hibernate.annotations.SQLOrder;

/**
 * The {@code coupon} row, cached in Hibernate's second-level cache (NONSTRICT_READ_WRITE, the usual setup of such a
 * service), with its attributes as a cached element collection. The service writes with SQL only; in this mode
 * Hibernate only reads.
 */
@Entity
@Table(name = "coupon")
@Cache(usage = CacheConcurrencyStrategy.NONSTRICT_READ_WRITE)
@NaturalIdCache
public class CouponEntity {

    @Id
    private Long id;

    @NaturalId(mutable = true)
    private String code;

    @Column(name = "place_id", insertable = false, updatable = false)
    private long placeId;

    private String name;

    @Enumerated(EnumType.STRING)
    @Column(name = "discount_type")
    private DiscountType discountType;

    @Column(name = "discount_value")
    private BigDecimal discountValue;

    @Column(name = "minimum_price")
    private BigDecimal minimumPrice;

    @Column(name = "valid_from")
    private LocalDate validFrom;

    @Column(name = "valid_until")
    private LocalDate validUntil;

    @Enumerated(EnumType.STRING)
    private CouponStatus status;

    @Column(name = "issue_limit")
    private int issueLimit;

    @Column(name = "updated_at")
    private LocalDateTime updatedAt;

    /**
     * The attribute rows in insertion order, like every other mode, as key to value ({@code (coupon_id,
     * attribute_key)} is unique): a map of basic values, so that a cached collection is assembled without
     * instantiating an object per row (the profile's collection cost); loaded for many coupons at once (one IN
     * query) when several are missing from the cache.
     */
    @ElementCollection
    @CollectionTable(name = "coupon_attribute", joinColumns = @JoinColumn(name = "coupon_id"))
    @MapKeyColumn(name = "attribute_key")
    @Column(name = "attribute_value")
    @SQLOrder("id")
    @BatchSize(size = 500)
    @Cache(usage = CacheConcurrencyStrategy.NONSTRICT_READ_WRITE)
    private Map<String, String> attributes = new LinkedHashMap<>();

    protected CouponEntity() {
    }

    public long getPlaceId() {
        return placeId;
    }

    /** The catalog's immutable view (reads the attributes: from the collection cache or one batched query). */
    public Coupon toCoupon() {
        CouponAttribute[] values = new CouponAttribute[attributes.size()];
        int i = 0;
        for (Map.Entry<String, String> a : attributes.entrySet()) {
            values[i++] = new CouponAttribute(a.getKey(), a.getValue());
        }
        // List.of: a list that Coupon's List.copyOf keeps as it is instead of copying a second time
        List<CouponAttribute> attributeValues = List.of(values);
        return new Coupon(id, code, placeId, name, discountType, discountValue, minimumPrice, validFrom, validUntil,
                status, issueLimit, updatedAt, attributeValues);
    }
}
