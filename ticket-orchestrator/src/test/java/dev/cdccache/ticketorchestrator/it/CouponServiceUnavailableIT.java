package dev.cdccache.ticketorchestrator.it;

import static dev.cdccache.ticketorchestrator.it.Searches.FROM;
import static dev.cdccache.ticketorchestrator.it.Searches.TO;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

/**
 * When coupon-service cannot be reached or does not answer, a search still answers in time with its tickets
 * and reference data, marked degraded, with the reason and no coupons.
 */
@ExtendWith(TicketStackExtension.class)
class CouponServiceUnavailableIT {

    /** Headroom over the coupon deadline for the HTTP round trip and the page's database work on a busy machine. */
    private static final Duration MARGIN = Duration.ofMillis(1500);

    @Test
    void aCouponServiceThatRefusesConnectionsLeavesTheSearchAnsweringDegraded(TicketStack stack) {
        OrchestratorInstance instance = stack.instanceA();
        long lotId = stack.data().parkingLotIds().get(0);
        instance.search(lotId, FROM, TO, 0, 10);

        long started = System.nanoTime();
        JsonNode page = instance.search(lotId, FROM, TO, 0, 30);
        Duration took = Duration.ofNanos(System.nanoTime() - started);

        assertDegradedWithTickets(page, 30);
        assertThat(page.get("degradedReason").asString()).startsWith("coupon-service call failed");
        // the default deadline is 800 ms; a refused connection fails long before it
        assertThat(took).isLessThan(Duration.ofMillis(800).plus(MARGIN));
    }

    @Test
    void aCouponServiceThatNeverAnswersLeavesTheSearchAnsweringWithinItsTimeout(TicketStack stack) {
        OrchestratorInstance instance = stack.instanceB();
        long lotId = stack.data().parkingLotIds().get(0);
        instance.search(lotId, FROM, TO, 0, 10);
        Duration timeout = Duration.ofMillis(TicketStack.SILENT_COUPON_TIMEOUT_MS);

        long started = System.nanoTime();
        JsonNode page = instance.search(lotId, FROM, TO, 0, 50);
        Duration took = Duration.ofNanos(System.nanoTime() - started);

        assertDegradedWithTickets(page, 50);
        assertThat(page.get("degradedReason").asString())
                .isEqualTo("coupon-service did not answer within " + timeout.toMillis() + " ms");
        assertThat(took).isGreaterThanOrEqualTo(timeout).isLessThan(timeout.plus(MARGIN));
    }

    private static void assertDegradedWithTickets(JsonNode page, int size) {
        assertThat(page.get("degraded").asBoolean()).isTrue();
        assertThat(page.get("tickets")).hasSize(size);
        for (JsonNode ticket : page.get("tickets")) {
            assertThat(ticket.get("category").get("name").asString()).isNotBlank();
            assertThat(ticket.get("parkingLot").get("id").asLong()).isPositive();
            assertThat(ticket.get("coupons")).isEmpty();
        }
    }
}
