package dev.cdccache.ticketorchestrator.generator;

import java.time.LocalDate;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Size and shape of the generated data set ({@code ticket.generator.*}). The defaults give
 * about 5,000 tickets per lot.
 *
 * @param enabled          generate at start-up when the ticket table is empty (local run, load tests)
 * @param parkingLots      number of parking lots
 * @param ticketsPerLot    season tickets per lot
 * @param categories       number of ticket categories
 * @param carExchangeShare share of tickets that carry a car exchange (each its own detail row), 0..1
 * @param firstPlaceId     coupon-service place of the first lot; lot {@code n} (from 0) gets
 *                         {@code firstPlaceId + n}
 * @param baseDate         the day periods are spread around (default: today)
 * @param seed             random seed: the same settings give the same data
 */
@ConfigurationProperties("ticket.generator")
public record GeneratorProperties(@DefaultValue("false") boolean enabled,
                                  @DefaultValue("5") int parkingLots,
                                  @DefaultValue("5000") int ticketsPerLot,
                                  @DefaultValue("8") int categories,
                                  @DefaultValue("0.3") double carExchangeShare,
                                  @DefaultValue("1") long firstPlaceId,
                                  LocalDate baseDate,
                                  @DefaultValue("3") long seed) {

    /** @return the day periods are spread around */
    public LocalDate effectiveBaseDate() {
        return baseDate == null ? LocalDate.now() : baseDate;
    }
}
