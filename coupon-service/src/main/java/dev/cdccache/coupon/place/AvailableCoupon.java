package dev.cdccache.coupon.place;

import dev.cdccache.coupon.catalog.CouponView;
import java.math.BigDecimal;

/** A coupon usable for a reservation, with the discount it gives on the reservation's price. */
public record AvailableCoupon(CouponView coupon, BigDecimal discountAmount, int remainingCount) {
}
