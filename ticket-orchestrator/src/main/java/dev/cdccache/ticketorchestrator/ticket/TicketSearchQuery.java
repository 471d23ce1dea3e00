package dev.cdccache.ticketorchestrator.ticket;

import java.time.LocalDate;

import dev.cdccache.ticketorchestrator.web.BadRequestException;

/**
 * A validated search: the tickets of one parking lot valid at some time in {@code [from, to]}, one page.
 *
 * @param parkingLotId the lot
 * @param from         first day of the period (inclusive)
 * @param to           last day of the period (inclusive)
 * @param page         zero-based page number
 * @param size         page size
 */
public record TicketSearchQuery(long parkingLotId, LocalDate from, LocalDate to, int page, int size) {

    /**
     * Checks raw parameters against the limits.
     *
     * @throws BadRequestException with a message naming the parameter and what is accepted
     */
    public static TicketSearchQuery of(long parkingLotId, LocalDate from, LocalDate to, int page, Integer size,
                                       TicketSearchProperties limits) {
        int pageSize = size == null ? limits.defaultPageSize() : size;
        if (pageSize < limits.minPageSize() || pageSize > limits.maxPageSize()) {
            throw new BadRequestException("Parameter 'size' must be between " + limits.minPageSize() + " and "
                    + limits.maxPageSize() + ", got " + pageSize);
        }
        if (page < 0) {
            throw new BadRequestException("Parameter 'page' must be 0 or more (pages are numbered from 0), got "
                    + page);
        }
        if (from.isAfter(to)) {
            throw new BadRequestException("Parameter 'from' (" + from + ") must not be after 'to' (" + to + ")");
        }
        return new TicketSearchQuery(parkingLotId, from, to, page, pageSize);
    }

    /** @return rows to skip before this page */
    public long offset() {
        return (long) page * size;
    }
}
