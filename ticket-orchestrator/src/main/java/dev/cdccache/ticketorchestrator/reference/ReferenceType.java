package dev.cdccache.ticketorchestrator.reference;

/**
 * The kinds of reference data a ticket is composed with, each with its table and the name of its cache
 * (as configured under {@code cdc.invalidation.caches}).
 */
public enum ReferenceType {
    /** {@link TicketCategory} rows. */
    CATEGORY("ticket_category", "ticket-categories"),
    /** {@link ParkingLot} rows. */
    PARKING_LOT("parking_lot", "parking-lots"),
    /** {@link CarExchangeDetail} rows. */
    CAR_EXCHANGE("car_exchange_detail", "car-exchange-details");

    private final String table;
    private final String cacheName;

    ReferenceType(String table, String cacheName) {
        this.table = table;
        this.cacheName = cacheName;
    }

    /** @return the table the data is read from (in the service's own database) */
    public String table() {
        return table;
    }

    /** @return the name of the CDC-invalidated cache that holds rows of this type by id */
    public String cacheName() {
        return cacheName;
    }
}
