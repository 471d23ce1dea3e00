package dev.cdccache.ticketorchestrator.coupon;

import java.math.BigDecimal;
import java.time.LocalDate;

/**
 * A coupon of coupon-service, reduced to what a ticket page shows. Unknown fields of coupon-service's JSON
 * are ignored, so it may add fields freely.
 *
 * @param id             coupon id
 * @param code           unique coupon code
 * @param placeId        the coupon-service place (here: a parking lot's place) it belongs to
 * @param name           display name
 * @param discountType   {@code FIXED_AMOUNT} or {@code PERCENTAGE}
 * @param discountValue  amount or percentage
 * @param validFrom      first valid day
 * @param validUntil     last valid day
 * @param status         {@code ACTIVE}, {@code PAUSED} or {@code ENDED}
 * @param remainingCount how many can still be issued (live count from coupon-service)
 */
public record Coupon(long id, String code, long placeId, String name, String discountType, BigDecimal discountValue,
                     LocalDate validFrom, LocalDate validUntil, String status, int remainingCount) {

    /**
     * @return whether the coupon can be used at some time in {@code [from, to]}: active, still issuable, and
     *         valid on at least one of those days
     */
    public boolean applicableBetween(LocalDate from, LocalDate to) {
        return "ACTIVE".equals(status) && remainingCount > 0
                && !validFrom.isAfter(to) && !validUntil.isBefore(from);
    }
}
