package dev.cdccache.coupon.admin;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/** One attribute of a coupon in an admin request. */
public record AttributeRequest(
        @NotBlank @Size(max = 64) @Pattern(regexp = "[A-Za-z0-9_.-]+", message = "may contain only letters, digits, '_', '.' and '-'")
        String key,
        @NotNull @Size(max = 255)
        String value) {
}
