package com.example.couponlookup;

import java.math.BigDecimal;

/** A row of {@code coupon_db.coupon}, as this service serves it. */
public record Coupon(long id, String code, String name, BigDecimal discountValue, String status) {
}
