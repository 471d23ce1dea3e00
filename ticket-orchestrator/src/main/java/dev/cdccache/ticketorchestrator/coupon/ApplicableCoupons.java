package dev.cdccache.ticketorchestrator.coupon;

import java.util.List;
import java.util.Map;

/**
 * The coupons that apply to the places on one page, or why they are missing.
 *
 * @param byPlace        coupons by coupon-service place id (empty when degraded)
 * @param degraded       whether coupon-service could not be asked or did not answer in time
 * @param degradedReason what went wrong, for the response and the logs; {@code null} when not degraded
 */
public record ApplicableCoupons(Map<Long, List<Coupon>> byPlace, boolean degraded, String degradedReason) {

    /** @return coupons found, none degraded */
    public static ApplicableCoupons found(Map<Long, List<Coupon>> byPlace) {
        return new ApplicableCoupons(Map.copyOf(byPlace), false, null);
    }

    /** @return no coupons, with the reason */
    public static ApplicableCoupons degraded(String reason) {
        return new ApplicableCoupons(Map.of(), true, reason);
    }

    /** @return the coupons of one place, empty when there are none or the lookup degraded */
    public List<Coupon> forPlace(long placeId) {
        return byPlace.getOrDefault(placeId, List.of());
    }
}
