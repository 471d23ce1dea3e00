package dev.cdccache.ticketorchestrator.composition;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * How tickets are composed with reference data ({@code ticket.composition.*}).
 *
 * @param mode           batched (default) or per-item lookups
 * @param referenceCache whether reference data is read through the CDC-invalidated local caches (default);
 *                       {@code false} reads the tables on every lookup, the measurement without caching
 */
@ConfigurationProperties("ticket.composition")
public record CompositionProperties(@DefaultValue("batched") CompositionMode mode,
                                    @DefaultValue("true") boolean referenceCache) {
}
