package dev.cdccache.coupon.caching.hibernate;

import jakarta.persistence.Column;
import jakarta.persistence.Embeddable;

/**
 * One {@code coupon_attribute} row as a value of {@code CouponEntity.attributes}: an element collection, so the
 * collection's cache entry holds the key/value pairs themselves and a cached coupon needs no lookup per attribute.
 */
@Embeddable
public class CouponAttributeValue {

    @Column(name = "attribute_key")
    private String key;

    @Column(name = "attribute_value")
    private String value;

    protected CouponAttributeValue() {
    }

    public String getKey() {
        return key;
    }

    public String getValue() {
        return value;
    }
}
