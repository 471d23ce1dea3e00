package dev.cdccache.coupon.web;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;

/** Body of {@code POST /coupons/{id}/issue}. */
public record IssueRequest(@NotNull @Positive Long userId) {
}
