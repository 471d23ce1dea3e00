package dev.cdccache.ticketorchestrator.reference;

import java.math.BigDecimal;

/**
 * A kind of season ticket (monthly, weekday-only, night...), reference data shared by many tickets.
 *
 * @param id          primary key
 * @param name        display name
 * @param monthlyFee  fee per month
 * @param description what the category allows
 */
public record TicketCategory(long id, String name, BigDecimal monthlyFee, String description) {
}
