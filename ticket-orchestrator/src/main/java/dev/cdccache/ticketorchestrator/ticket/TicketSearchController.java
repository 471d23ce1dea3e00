package dev.cdccache.ticketorchestrator.ticket;

import java.time.LocalDate;

import org.springframework.format.annotation.DateTimeFormat;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /tickets/search}: the season-ticket search, a page of one parking lot's tickets in a period. */
@RestController
class TicketSearchController {

    private final TicketSearchService search;
    private final TicketSearchProperties limits;

    TicketSearchController(TicketSearchService search, TicketSearchProperties limits) {
        this.search = search;
        this.limits = limits;
    }

    @GetMapping("/tickets/search")
    TicketPage search(@RequestParam long parkingLotId,
                      @RequestParam @DateTimeFormat(iso = DateTimeFormat.ISO.DATE) LocalDate from,
                      @RequestParam @DateTimeFormat(iso = DateTimeFormat.ISO.DATE) LocalDate to,
                      @RequestParam(defaultValue = "0") int page,
                      @RequestParam(required = false) Integer size) {
        return search.search(TicketSearchQuery.of(parkingLotId, from, to, page, size, limits));
    }
}
