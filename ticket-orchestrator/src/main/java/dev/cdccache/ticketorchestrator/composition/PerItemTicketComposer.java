package dev.cdccache.ticketorchestrator.composition;

import java.util.ArrayList;
import java.util.List;

import dev.cdccache.ticketorchestrator.reference.CarExchangeDetail;
import dev.cdccache.ticketorchestrator.reference.ParkingLot;
import dev.cdccache.ticketorchestrator.reference.ReferenceSource;
import dev.cdccache.ticketorchestrator.reference.TicketCategory;
import dev.cdccache.ticketorchestrator.ticket.SeasonTicket;

/**
 * The naive composition: for every ticket, one lookup per reference type. Without the cache that is
 * 1 + 3 x pageSize queries per page (fewer when tickets have no car exchange); with it, one query per
 * distinct missing row. Kept for the load tests' comparison only.
 */
final class PerItemTicketComposer implements TicketComposer {

    private final ReferenceSource<TicketCategory> categories;
    private final ReferenceSource<ParkingLot> parkingLots;
    private final ReferenceSource<CarExchangeDetail> carExchanges;

    PerItemTicketComposer(ReferenceSource<TicketCategory> categories, ReferenceSource<ParkingLot> parkingLots,
                          ReferenceSource<CarExchangeDetail> carExchanges) {
        this.categories = categories;
        this.parkingLots = parkingLots;
        this.carExchanges = carExchanges;
    }

    @Override
    public List<ComposedTicket> compose(List<SeasonTicket> tickets) {
        List<ComposedTicket> composed = new ArrayList<>(tickets.size());
        for (SeasonTicket ticket : tickets) {
            TicketCategory category = categories.get(ticket.categoryId()).orElse(null);
            ParkingLot lot = parkingLots.get(ticket.parkingLotId()).orElse(null);
            CarExchangeDetail exchange = ticket.carExchangeId() == null ? null
                    : carExchanges.get(ticket.carExchangeId()).orElse(null);
            composed.add(ComposedTicket.of(ticket, category, lot, exchange));
        }
        return composed;
    }
}
