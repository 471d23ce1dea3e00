package dev.cdccache.coupon.catalog;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;

/**
 * Coupon metadata with its attributes: the read-mostly entity every cache mode holds.
 * Immutable, so one instance can be shared by all threads reading a cache.
 *
 * @param updatedAt the row's {@code updated_at}, kept so that a client can see which version it got
 */
public record Coupon(
        long id,
        String code,
        long placeId,
        String name,
        DiscountType discountType,
        BigDecimal discountValue,
        BigDecimal minimumPrice,
        LocalDate validFrom,
        LocalDate validUntil,
        CouponStatus status,
        int issueLimit,
        LocalDateTime updatedAt,
        List<CouponAttribute> attributes) {

    public Coupon {
        attributes = List.copyOf(attributes);
    }

    /** Whether the coupon can be applied to a stay booked on {@code date} at {@code price}. */
    public boolean isUsableFor(LocalDate date, BigDecimal price) {
        return status == CouponStatus.ACTIVE
                && !date.isBefore(validFrom)
                && !date.isAfter(validUntil)
                && price.compareTo(minimumPrice) >= 0;
    }

    /** Whether the coupon may be issued on {@code date} (active and inside its validity window). */
    public boolean isIssuableOn(LocalDate date) {
        return status == CouponStatus.ACTIVE && !date.isBefore(validFrom) && !date.isAfter(validUntil);
    }

    /** The money this coupon takes off {@code price}. */
    public BigDecimal discountOn(BigDecimal price) {
        return discountType.discountOn(price, discountValue);
    }
}
