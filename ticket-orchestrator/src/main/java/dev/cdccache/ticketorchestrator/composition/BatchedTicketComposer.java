package dev.cdccache.ticketorchestrator.composition;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.cdccache.ticketorchestrator.reference.CarExchangeDetail;
import dev.cdccache.ticketorchestrator.reference.ParkingLot;
import dev.cdccache.ticketorchestrator.reference.ReferenceSource;
import dev.cdccache.ticketorchestrator.reference.TicketCategory;
import dev.cdccache.ticketorchestrator.ticket.SeasonTicket;

/**
 * Collects the distinct ids of each reference type on the page and resolves each type with one bulk lookup:
 * cached rows come from the local cache, the misses from a single {@code IN} query, nothing from the
 * database when every row is cached.
 */
final class BatchedTicketComposer implements TicketComposer {

    private final ReferenceSource<TicketCategory> categories;
    private final ReferenceSource<ParkingLot> parkingLots;
    private final ReferenceSource<CarExchangeDetail> carExchanges;

    BatchedTicketComposer(ReferenceSource<TicketCategory> categories, ReferenceSource<ParkingLot> parkingLots,
                          ReferenceSource<CarExchangeDetail> carExchanges) {
        this.categories = categories;
        this.parkingLots = parkingLots;
        this.carExchanges = carExchanges;
    }

    @Override
    public List<ComposedTicket> compose(List<SeasonTicket> tickets) {
        Set<Long> categoryIds = new LinkedHashSet<>();
        Set<Long> lotIds = new LinkedHashSet<>();
        Set<Long> exchangeIds = new LinkedHashSet<>();
        for (SeasonTicket ticket : tickets) {
            categoryIds.add(ticket.categoryId());
            lotIds.add(ticket.parkingLotId());
            if (ticket.carExchangeId() != null) {
                exchangeIds.add(ticket.carExchangeId());
            }
        }
        Map<Long, TicketCategory> categoryById = categories.getAll(categoryIds);
        Map<Long, ParkingLot> lotById = parkingLots.getAll(lotIds);
        Map<Long, CarExchangeDetail> exchangeById = carExchanges.getAll(exchangeIds);

        List<ComposedTicket> composed = new ArrayList<>(tickets.size());
        for (SeasonTicket ticket : tickets) {
            composed.add(ComposedTicket.of(ticket, categoryById.get(ticket.categoryId()),
                    lotById.get(ticket.parkingLotId()),
                    ticket.carExchangeId() == null ? null : exchangeById.get(ticket.carExchangeId())));
        }
        return composed;
    }
}
