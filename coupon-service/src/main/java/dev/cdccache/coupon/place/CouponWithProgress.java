package dev.cdccache.coupon.place;

import dev.cdccache.coupon.catalog.Coupon;

/** A coupon with its attributes (cached) and its live counts (never cached). */
public record CouponWithProgress(Coupon coupon, int issuedCount, int usedCount, int remainingCount) {
}
