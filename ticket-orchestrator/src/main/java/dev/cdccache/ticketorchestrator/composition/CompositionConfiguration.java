package dev.cdccache.ticketorchestrator.composition;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.cdccache.client.spring.CdcCacheManager;
import dev.cdccache.ticketorchestrator.reference.CarExchangeDetail;
import dev.cdccache.ticketorchestrator.reference.ParkingLot;
import dev.cdccache.ticketorchestrator.reference.ReferenceRepository;
import dev.cdccache.ticketorchestrator.reference.ReferenceSource;
import dev.cdccache.ticketorchestrator.reference.ReferenceType;
import dev.cdccache.ticketorchestrator.reference.TicketCategory;

/** Wires the reference sources (cached or not) and the composer the configured mode asks for. */
@Configuration(proxyBeanMethods = false)
class CompositionConfiguration {

    @Bean
    ReferenceSource<TicketCategory> categorySource(CdcCacheManager caches, ReferenceRepository repository,
                                                   CompositionProperties properties) {
        return new ReferenceSource<>(ReferenceType.CATEGORY,
                properties.referenceCache() ? caches.invalidatingCache(ReferenceType.CATEGORY.cacheName()) : null,
                repository::findCategory, repository::findCategories);
    }

    @Bean
    ReferenceSource<ParkingLot> parkingLotSource(CdcCacheManager caches, ReferenceRepository repository,
                                                 CompositionProperties properties) {
        return new ReferenceSource<>(ReferenceType.PARKING_LOT,
                properties.referenceCache() ? caches.invalidatingCache(ReferenceType.PARKING_LOT.cacheName()) : null,
                repository::findParkingLot, repository::findParkingLots);
    }

    @Bean
    ReferenceSource<CarExchangeDetail> carExchangeSource(CdcCacheManager caches, ReferenceRepository repository,
                                                         CompositionProperties properties) {
        return new ReferenceSource<>(ReferenceType.CAR_EXCHANGE,
                properties.referenceCache() ? caches.invalidatingCache(ReferenceType.CAR_EXCHANGE.cacheName()) : null,
                repository::findCarExchange, repository::findCarExchanges);
    }

    @Bean
    TicketComposer ticketComposer(CompositionProperties properties, ReferenceSource<TicketCategory> categories,
                                  ReferenceSource<ParkingLot> parkingLots,
                                  ReferenceSource<CarExchangeDetail> carExchanges) {
        return switch (properties.mode()) {
            case BATCHED -> new BatchedTicketComposer(categories, parkingLots, carExchanges);
            case PER_ITEM -> new PerItemTicketComposer(categories, parkingLots, carExchanges);
        };
    }
}
