package dev.cdccache.coupon.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

class CouponTest {

    private static final LocalDate FROM = LocalDate.of(2026, 1, 10);
    private static final LocalDate UNTIL = LocalDate.of(2026, 1, 20);

    private static Coupon coupon(DiscountType type, String value, CouponStatus status) {
        return new Coupon(1, "C-1", 2, "c", type, new BigDecimal(value), new BigDecimal("10000"), FROM, UNTIL,
                status, 10, LocalDateTime.of(2026, 1, 1, 0, 0), List.of(new CouponAttribute("k", "v")));
    }

    @Test
    void usableOnlyWhenActiveInsideTheWindowAndAboveTheMinimumPrice() {
        Coupon active = coupon(DiscountType.FIXED_AMOUNT, "1000", CouponStatus.ACTIVE);
        assertThat(active.isUsableFor(FROM, new BigDecimal("10000"))).isTrue();
        assertThat(active.isUsableFor(UNTIL, new BigDecimal("50000"))).isTrue();
        assertThat(active.isUsableFor(FROM.minusDays(1), new BigDecimal("50000"))).isFalse();
        assertThat(active.isUsableFor(UNTIL.plusDays(1), new BigDecimal("50000"))).isFalse();
        assertThat(active.isUsableFor(FROM, new BigDecimal("9999.99"))).isFalse();
        assertThat(coupon(DiscountType.FIXED_AMOUNT, "1000", CouponStatus.PAUSED).isUsableFor(FROM, new BigDecimal("50000"))).isFalse();
    }

    @Test
    void percentageDiscountRoundsDownAndFixedDiscountNeverExceedsThePrice() {
        assertThat(coupon(DiscountType.PERCENTAGE, "15", CouponStatus.ACTIVE).discountOn(new BigDecimal("12345")))
                .isEqualByComparingTo("1851");
        assertThat(coupon(DiscountType.FIXED_AMOUNT, "20000", CouponStatus.ACTIVE).discountOn(new BigDecimal("15000")))
                .isEqualByComparingTo("15000");
    }

    @Test
    void attributesAreACopyTheCallerCannotChange() {
        List<CouponAttribute> attributes = new java.util.ArrayList<>(List.of(new CouponAttribute("a", "1")));
        Coupon coupon = new Coupon(1, "C", 1, "n", DiscountType.FIXED_AMOUNT, BigDecimal.ONE, BigDecimal.ZERO, FROM,
                UNTIL, CouponStatus.ACTIVE, 1, null, attributes);
        attributes.clear();
        assertThat(coupon.attributes()).hasSize(1);
    }
}
