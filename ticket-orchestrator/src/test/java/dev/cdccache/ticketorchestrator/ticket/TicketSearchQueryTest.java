package dev.cdccache.ticketorchestrator.ticket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.LocalDate;

import org.junit.jupiter.api.Test;

import dev.cdccache.ticketorchestrator.web.BadRequestException;

class TicketSearchQueryTest {

    private static final TicketSearchProperties LIMITS = new TicketSearchProperties(10, 50, 10);
    private static final LocalDate MAY_1 = LocalDate.of(2026, 5, 1);
    private static final LocalDate MAY_31 = LocalDate.of(2026, 5, 31);

    @Test
    void acceptsTheSeedsPageSizesAndDefaultsToTheSmallest() {
        assertThat(TicketSearchQuery.of(1, MAY_1, MAY_31, 0, 10, LIMITS).size()).isEqualTo(10);
        assertThat(TicketSearchQuery.of(1, MAY_1, MAY_31, 0, 30, LIMITS).size()).isEqualTo(30);
        assertThat(TicketSearchQuery.of(1, MAY_1, MAY_31, 2, 50, LIMITS).offset()).isEqualTo(100);
        assertThat(TicketSearchQuery.of(1, MAY_1, MAY_31, 0, null, LIMITS).size()).isEqualTo(10);
        assertThat(TicketSearchQuery.of(1, MAY_1, MAY_1, 0, null, LIMITS).from()).isEqualTo(MAY_1);
    }

    @Test
    void refusesPageSizesOutsideTheLimitsNamingThem() {
        assertThatThrownBy(() -> TicketSearchQuery.of(1, MAY_1, MAY_31, 0, 51, LIMITS))
                .isInstanceOf(BadRequestException.class)
                .hasMessage("Parameter 'size' must be between 10 and 50, got 51");
        assertThatThrownBy(() -> TicketSearchQuery.of(1, MAY_1, MAY_31, 0, 9, LIMITS))
                .isInstanceOf(BadRequestException.class);
    }

    @Test
    void refusesAPeriodThatEndsBeforeItStarts() {
        assertThatThrownBy(() -> TicketSearchQuery.of(1, MAY_31, MAY_1, 0, 10, LIMITS))
                .isInstanceOf(BadRequestException.class)
                .hasMessage("Parameter 'from' (2026-05-31) must not be after 'to' (2026-05-01)");
    }

    @Test
    void refusesANegativePage() {
        assertThatThrownBy(() -> TicketSearchQuery.of(1, MAY_1, MAY_31, -1, 10, LIMITS))
                .isInstanceOf(BadRequestException.class)
                .hasMessageContaining("'page'");
    }
}
