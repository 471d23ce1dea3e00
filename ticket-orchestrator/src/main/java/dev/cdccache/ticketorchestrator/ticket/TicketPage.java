package dev.cdccache.ticketorchestrator.ticket;

import java.time.LocalDate;
import java.util.List;

import dev.cdccache.ticketorchestrator.composition.ComposedTicket;

/**
 * One page of search results.
 *
 * @param parkingLotId   the lot searched
 * @param from           first day of the period
 * @param to             last day of the period
 * @param page           zero-based page number
 * @param size           page size asked for
 * @param hasNext        whether another page follows
 * @param tickets        the tickets, composed with reference data and coupons
 * @param degraded       whether part of the answer is missing (coupons could not be fetched in time)
 * @param degradedReason why, or {@code null}
 */
public record TicketPage(long parkingLotId, LocalDate from, LocalDate to, int page, int size, boolean hasNext,
                         List<ComposedTicket> tickets, boolean degraded, String degradedReason) {
}
