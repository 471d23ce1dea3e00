package dev.cdccache.ticketorchestrator.composition;

import java.time.LocalDate;
import java.util.List;

import dev.cdccache.ticketorchestrator.coupon.Coupon;
import dev.cdccache.ticketorchestrator.reference.CarExchangeDetail;
import dev.cdccache.ticketorchestrator.reference.ParkingLot;
import dev.cdccache.ticketorchestrator.reference.TicketCategory;
import dev.cdccache.ticketorchestrator.ticket.SeasonTicket;
import dev.cdccache.ticketorchestrator.ticket.TicketStatus;

/**
 * A season ticket with its reference data resolved, as the search answers it. A reference whose row no
 * longer exists is {@code null} (references are indirect, without foreign keys).
 *
 * @param id          ticket id
 * @param carNumber   the registered car
 * @param startDate   first valid day
 * @param endDate     last valid day
 * @param status      lifecycle state
 * @param category    the ticket's category
 * @param parkingLot  the lot the ticket is valid in
 * @param carExchange the current temporary car swap, or {@code null}
 * @param coupons     coupons of the ticket's parking lot usable during its period (empty when coupon-service was
 *                    not reached in time)
 */
public record ComposedTicket(long id, String carNumber, LocalDate startDate, LocalDate endDate, TicketStatus status,
                             TicketCategory category, ParkingLot parkingLot, CarExchangeDetail carExchange,
                             List<Coupon> coupons) {

    static ComposedTicket of(SeasonTicket ticket, TicketCategory category, ParkingLot lot,
                             CarExchangeDetail carExchange) {
        return new ComposedTicket(ticket.id(), ticket.carNumber(), ticket.startDate(), ticket.endDate(),
                ticket.status(), category, lot, carExchange, List.of());
    }

    /** @return this ticket with the given applicable coupons */
    public ComposedTicket withCoupons(List<Coupon> applicable) {
        return new ComposedTicket(id, carNumber, startDate, endDate, status, category, parkingLot, carExchange,
                List.copyOf(applicable));
    }
}
