package dev.cdccache.ticketorchestrator.ticket;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.springframework.stereotype.Service;

import dev.cdccache.ticketorchestrator.composition.ComposedTicket;
import dev.cdccache.ticketorchestrator.composition.TicketComposer;
import dev.cdccache.ticketorchestrator.coupon.ApplicableCouponFinder;
import dev.cdccache.ticketorchestrator.coupon.ApplicableCoupons;
import dev.cdccache.ticketorchestrator.reference.ParkingLot;
import dev.cdccache.ticketorchestrator.reference.ReferenceSource;
import dev.cdccache.ticketorchestrator.web.NotFoundException;

/**
 * Answers a ticket search: one query for the page of tickets, the reference data through the composer
 * (batched or per item), and the lot's coupons from coupon-service, fetched while the database work runs.
 */
@Service
public class TicketSearchService {

    private final SeasonTicketRepository tickets;
    private final ReferenceSource<ParkingLot> parkingLots;
    private final TicketComposer composer;
    private final ApplicableCouponFinder coupons;

    TicketSearchService(SeasonTicketRepository tickets, ReferenceSource<ParkingLot> parkingLots,
                        TicketComposer composer, ApplicableCouponFinder coupons) {
        this.tickets = tickets;
        this.parkingLots = parkingLots;
        this.composer = composer;
        this.coupons = coupons;
    }

    /**
     * @throws NotFoundException when the parking lot does not exist
     */
    public TicketPage search(TicketSearchQuery query) {
        ParkingLot lot = parkingLots.get(query.parkingLotId())
                .orElseThrow(() -> new NotFoundException("Parking lot " + query.parkingLotId() + " does not exist"));
        // every ticket on the page is in this lot, so the page needs the coupons of exactly one place
        ApplicableCouponFinder.PendingCoupons pendingCoupons = coupons.start(Set.of(lot.placeId()));

        List<SeasonTicket> rows = tickets.findOverlapping(lot.id(), query.from(), query.to(), query.size() + 1,
                query.offset());
        boolean hasNext = rows.size() > query.size();
        List<ComposedTicket> composed = composer.compose(hasNext ? rows.subList(0, query.size()) : rows);

        ApplicableCoupons applicable = pendingCoupons.await();
        List<ComposedTicket> page = new ArrayList<>(composed.size());
        for (ComposedTicket ticket : composed) {
            page.add(ticket.parkingLot() == null ? ticket
                    : ticket.withCoupons(applicable.forPlace(ticket.parkingLot().placeId()).stream()
                            .filter(coupon -> coupon.applicableBetween(ticket.startDate(), ticket.endDate()))
                            .toList()));
        }
        return new TicketPage(query.parkingLotId(), query.from(), query.to(), query.page(), query.size(), hasNext,
                page, applicable.degraded(), applicable.degradedReason());
    }
}
