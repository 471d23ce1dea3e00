package dev.cdccache.coupon.catalog;

import java.math.BigDecimal;
import java.math.RoundingMode;

/** How a coupon's {@code discount_value} turns into money off a price. */
public enum DiscountType {
    /** {@code discount_value} is an amount of money, capped at the price. */
    FIXED_AMOUNT,
    /** {@code discount_value} is a percentage (0-100] of the price, rounded down to whole units. */
    PERCENTAGE;

    /** The discount this type gives on {@code price} with the given value; never more than the price. */
    public BigDecimal discountOn(BigDecimal price, BigDecimal value) {
        BigDecimal discount = switch (this) {
            case FIXED_AMOUNT -> value;
            case PERCENTAGE -> price.multiply(value).divide(BigDecimal.valueOf(100), 0, RoundingMode.DOWN);
        };
        return discount.min(price);
    }
}
