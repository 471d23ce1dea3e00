package dev.cdccache.ticketorchestrator.ticket;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Page-size limits of {@code GET /tickets/search} ({@code ticket.search.*}).
 *
 * @param minPageSize smallest page size accepted
 * @param maxPageSize largest page size accepted (the cap; larger sizes are refused with 400)
 * @param defaultPageSize page size when the request names none
 */
@ConfigurationProperties("ticket.search")
public record TicketSearchProperties(@DefaultValue("10") int minPageSize, @DefaultValue("50") int maxPageSize,
                                     @DefaultValue("10") int defaultPageSize) {
}
