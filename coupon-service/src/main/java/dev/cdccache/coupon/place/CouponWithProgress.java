package dev.cdccache.coupon.place;

import dev.cdccache.coupon.catalog.CouponView;

/** A coupon with its attributes (cached) and its live counts (never cached). */
public record CouponWithProgress(CouponView coupon, int issuedCount, int usedCount, int remainingCount) {
}
