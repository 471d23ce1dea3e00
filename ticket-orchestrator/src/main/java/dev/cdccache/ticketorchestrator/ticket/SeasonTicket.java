package dev.cdccache.ticketorchestrator.ticket;

import java.time.LocalDate;

/**
 * A season ticket as stored: it refers to its reference data by id only (indirect references, no
 * foreign keys). Tickets change often and are never cached.
 *
 * @param id            primary key
 * @param parkingLotId  the lot the ticket is valid in
 * @param categoryId    the ticket's category
 * @param carNumber     the registered car
 * @param startDate     first valid day
 * @param endDate       last valid day
 * @param status        lifecycle state
 * @param carExchangeId the current temporary car swap, or {@code null}
 */
public record SeasonTicket(long id, long parkingLotId, long categoryId, String carNumber, LocalDate startDate,
                           LocalDate endDate, TicketStatus status, Long carExchangeId) {
}
