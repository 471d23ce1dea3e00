package dev.cdccache.coupon.caching.hibernate;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.Cache;
import org.hibernate.annotations.CacheConcurrencyStrategy;

/** A {@code coupon_attribute} row: the element of {@code CouponEntity.attributes}, cached by its own id. */
@Entity
@Table(name = "coupon_attribute")
@Cache(usage = CacheConcurrencyStrategy.NONSTRICT_READ_WRITE)
public class CouponAttributeEntity {

    @Id
    private Long id;

    @Column(name = "coupon_id", insertable = false, updatable = false)
    private long couponId;

    @Column(name = "attribute_key")
    private String key;

    @Column(name = "attribute_value")
    private String value;

    protected CouponAttributeEntity() {
    }

    public String getKey() {
        return key;
    }

    public String getValue() {
        return value;
    }
}
