package dev.cdccache.ticketorchestrator.reference;

/**
 * A parking lot that sells season tickets.
 *
 * @param id       primary key
 * @param name     display name
 * @param address  street address
 * @param capacity number of spaces
 * @param placeId  the coupon-service place whose coupons apply to tickets of this lot
 */
public record ParkingLot(long id, String name, String address, int capacity, long placeId) {
}
