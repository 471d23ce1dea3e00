package dev.cdccache.ticketorchestrator.composition;

import java.util.List;

import dev.cdccache.ticketorchestrator.ticket.SeasonTicket;

/** Joins a page of tickets with their category, parking lot and car-exchange details. */
public interface TicketComposer {

    /**
     * @param tickets one page of tickets
     * @return the composed tickets, in the same order, without coupons
     */
    List<ComposedTicket> compose(List<SeasonTicket> tickets);
}
