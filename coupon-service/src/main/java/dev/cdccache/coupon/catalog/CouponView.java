package dev.cdccache.coupon.catalog;

import java.math.BigDecimal;
import java.time.LocalDate;

/**
 * A coupon as the catalog hands it out: the fields the coupon rules and the read endpoints need, whatever
 * form a cache mode keeps the coupon in. {@link Coupon} is the plain form (modes {@code none}, {@code redis},
 * {@code hibernate}, the admin API); mode {@code local} keeps a compact form that carries its JSON encoded.
 * Implementations are immutable. Serialised to JSON, every implementation gives the same bytes for the same row.
 */
public interface CouponView {

    long id();

    /**
     * The id as a {@code Long}, for keying maps and caches by it. Mode {@code local}'s compact coupon returns the
     * instance that keys it in the {@code coupons} cache, so that caches keyed by coupon id (the progress counts)
     * can share that one box instead of holding one each; the plain forms box anew.
     */
    default Long boxedId() {
        return id();
    }

    String code();

    long placeId();

    DiscountType discountType();

    BigDecimal discountValue();

    BigDecimal minimumPrice();

    LocalDate validFrom();

    LocalDate validUntil();

    CouponStatus status();

    int issueLimit();

    /** Whether the coupon can be applied to a stay booked on {@code date} at {@code price}. */
    default boolean isUsableFor(LocalDate date, BigDecimal price) {
        return status() == CouponStatus.ACTIVE
                && !date.isBefore(validFrom())
                && !date.isAfter(validUntil())
                && price.compareTo(minimumPrice()) >= 0;
    }

    /** Whether the coupon may be issued on {@code date} (active and inside its validity window). */
    default boolean isIssuableOn(LocalDate date) {
        return status() == CouponStatus.ACTIVE && !date.isBefore(validFrom()) && !date.isAfter(validUntil());
    }

    /** The money this coupon takes off {@code price}. */
    default BigDecimal discountOn(BigDecimal price) {
        return discountType().discountOn(price, discountValue());
    }
}
