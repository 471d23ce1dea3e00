package dev.cdccache.coupon.admin;

import dev.cdccache.coupon.catalog.CouponStatus;
import dev.cdccache.coupon.catalog.DiscountType;
import jakarta.validation.Valid;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Digits;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.PositiveOrZero;
import jakarta.validation.constraints.Size;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Body of {@code POST /admin/coupons} and {@code PUT /admin/coupons/{id}}: the complete metadata of a
 * coupon including all of its attributes (a PUT replaces them).
 */
public record CouponRequest(
        @NotBlank @Size(max = 64) @Pattern(regexp = "[A-Za-z0-9_-]+", message = "may contain only letters, digits, '_' and '-'")
        String code,
        @NotNull @Positive
        Long placeId,
        @NotBlank @Size(max = 200)
        String name,
        @NotNull
        DiscountType discountType,
        @NotNull @DecimalMin(value = "0.01") @DecimalMax("9999999999.99") @Digits(integer = 10, fraction = 2)
        BigDecimal discountValue,
        @NotNull @DecimalMin("0") @DecimalMax("9999999999.99") @Digits(integer = 10, fraction = 2)
        BigDecimal minimumPrice,
        @NotNull
        LocalDate validFrom,
        @NotNull
        LocalDate validUntil,
        @NotNull
        CouponStatus status,
        @NotNull @PositiveOrZero
        Integer issueLimit,
        @NotNull @Size(max = 20)
        List<@NotNull @Valid AttributeRequest> attributes) {

    /** validFrom must not be after validUntil. */
    @AssertTrue(message = "validFrom must not be after validUntil")
    public boolean isValidityWindowOrdered() {
        return validFrom == null || validUntil == null || !validFrom.isAfter(validUntil);
    }

    /** A percentage discount is at most 100. */
    @AssertTrue(message = "a PERCENTAGE discountValue must be at most 100")
    public boolean isPercentageAtMostHundred() {
        return discountType != DiscountType.PERCENTAGE || discountValue == null
                || discountValue.compareTo(BigDecimal.valueOf(100)) <= 0;
    }

    /** Attribute keys are unique within a coupon. */
    @AssertTrue(message = "attribute keys must be unique")
    public boolean isAttributeKeysUnique() {
        if (attributes == null) {
            return true;
        }
        Set<String> keys = new HashSet<>();
        return attributes.stream().allMatch(attribute -> attribute == null || attribute.key() == null || keys.add(attribute.key()));
    }
}
