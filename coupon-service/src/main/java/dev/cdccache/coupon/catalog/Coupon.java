package dev.cdccache.coupon.catalog;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;

/**
 * Coupon metadata with its attributes, as read from the database: the plain {@link CouponView}, and the
 * shape of the API's coupon JSON (its components in this order). Immutable, so one instance can be shared by
 * all threads reading a cache.
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
        List<CouponAttribute> attributes) implements CouponView {

    public Coupon {
        attributes = List.copyOf(attributes);
    }
}
