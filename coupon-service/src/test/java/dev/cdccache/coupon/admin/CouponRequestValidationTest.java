package dev.cdccache.coupon.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.coupon.catalog.CouponStatus;
import dev.cdccache.coupon.catalog.DiscountType;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validation;
import jakarta.validation.Validator;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class CouponRequestValidationTest {

    private static final Validator VALIDATOR = Validation.buildDefaultValidatorFactory().getValidator();
    private static final LocalDate DAY = LocalDate.of(2026, 3, 1);

    private static CouponRequest request(DiscountType type, String value, LocalDate from, LocalDate until,
            List<AttributeRequest> attributes) {
        return new CouponRequest("CODE-1", 1L, "name", type, new BigDecimal(value), BigDecimal.ZERO, from, until,
                CouponStatus.ACTIVE, 10, attributes);
    }

    private static Set<String> messages(CouponRequest request) {
        return VALIDATOR.validate(request).stream().map(ConstraintViolation::getMessage).collect(Collectors.toSet());
    }

    @Test
    void aCompleteConsistentRequestIsValid() {
        assertThat(messages(request(DiscountType.PERCENTAGE, "100", DAY, DAY, List.of(new AttributeRequest("k", "v")))))
                .isEmpty();
    }

    @Test
    void crossFieldRulesAreChecked() {
        assertThat(messages(request(DiscountType.FIXED_AMOUNT, "5", DAY.plusDays(1), DAY, List.of())))
                .contains("validFrom must not be after validUntil");
        assertThat(messages(request(DiscountType.PERCENTAGE, "100.01", DAY, DAY, List.of())))
                .contains("a PERCENTAGE discountValue must be at most 100");
        assertThat(messages(request(DiscountType.FIXED_AMOUNT, "5", DAY, DAY,
                List.of(new AttributeRequest("k", "1"), new AttributeRequest("k", "2")))))
                .contains("attribute keys must be unique");
    }

    @Test
    void nestedAttributesAreValidated() {
        assertThat(VALIDATOR.validate(request(DiscountType.FIXED_AMOUNT, "5", DAY, DAY,
                List.of(new AttributeRequest("bad key!", null)))))
                .extracting(violation -> violation.getPropertyPath().toString())
                .contains("attributes[0].key", "attributes[0].value");
    }

    @Test
    void aFixedAmountWithMoreThanTwoDecimalsIsRejected() {
        assertThat(messages(request(DiscountType.FIXED_AMOUNT, "5.001", DAY, DAY, List.of()))).isNotEmpty();
    }
}
