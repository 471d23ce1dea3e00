package dev.cdccache.ticketorchestrator.generator;

import java.util.List;

/**
 * What one generator run inserted.
 *
 * @param parkingLotIds  ids of the parking lots
 * @param categoryIds    ids of the categories
 * @param carExchanges   number of car-exchange details
 * @param tickets        number of season tickets
 */
public record GeneratedData(List<Long> parkingLotIds, List<Long> categoryIds, int carExchanges, int tickets) {
}
