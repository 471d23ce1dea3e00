package dev.cdccache.ticketorchestrator.it;

import static dev.cdccache.ticketorchestrator.it.Searches.FROM;
import static dev.cdccache.ticketorchestrator.it.Searches.TO;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

/**
 * The search against the real coupon-service app (its exec jar as a child process on the same MariaDB):
 * one coupon-service call per page, counted on coupon-service's own request metrics; the lot's coupons
 * filtered to those usable in each ticket's period; and a degraded answer once coupon-service is gone.
 */
@ExtendWith(TicketStackExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RealCouponServiceIT {

    private static final String PROGRESS_URI = "uri=\"/places/{placeId}/coupon-progresses\"";

    @Test
    @Order(1)
    void eachPageCarriesTheLotsApplicableCouponsFromOneCouponServiceCall(TicketStack stack) throws Exception {
        URI couponService = stack.couponService();
        fillCoupons(stack);
        OrchestratorInstance instance = withCoupons(stack, couponService);
        long lotId = stack.data().parkingLotIds().get(0);
        assertThat(instance.getJson("/parking-lots/" + lotId).get("placeId").asLong()).isEqualTo(1);
        // a freshly started JVM answers its first requests slowly; this test is about what is called, not speed
        assertThat(get(couponService.resolve("/places/1/coupon-progresses")).statusCode()).isEqualTo(200);

        for (int page = 0; page < 2; page++) {
            long callsBefore = placeCouponCalls(couponService);
            int current = page;
            JsonNode result = instance.search(lotId, FROM, TO, current, 30);
            long calls = placeCouponCalls(couponService) - callsBefore;

            assertThat(calls).as("coupon-service calls for page " + page).isEqualTo(1);
            assertThat(result.get("degraded").asBoolean()).as(result.toString()).isFalse();
            assertThat(result.get("degradedReason").isNull()).isTrue();
            assertThat(result.get("tickets")).hasSize(30);
            for (JsonNode ticket : result.get("tickets")) {
                // active, issuable and valid in June 2026: only PARK-A (PARK-B paused, PARK-C over in 2024,
                // PARK-D sold out, PARK-E belongs to another place)
                assertThat(ticket.get("coupons")).singleElement().satisfies(coupon -> {
                    assertThat(coupon.get("code").asString()).isEqualTo("PARK-A");
                    assertThat(coupon.get("placeId").asLong()).isEqualTo(1);
                    assertThat(coupon.get("remainingCount").asInt()).isEqualTo(90);
                });
            }
        }
    }

    @Test
    @Order(2)
    void whenCouponServiceStopsTheSearchAnswersDegradedInTime(TicketStack stack) {
        URI couponService = stack.couponService();
        OrchestratorInstance instance = withCoupons(stack, couponService);
        long lotId = stack.data().parkingLotIds().get(0);

        stack.stopCouponService();
        long started = System.nanoTime();
        JsonNode result = instance.search(lotId, FROM, TO, 0, 30);
        Duration took = Duration.ofNanos(System.nanoTime() - started);

        assertThat(result.get("degraded").asBoolean()).isTrue();
        assertThat(result.get("degradedReason").asString()).startsWith("coupon-service call failed");
        assertThat(result.get("tickets")).hasSize(30)
                .allSatisfy(ticket -> assertThat(ticket.get("coupons")).isEmpty());
        // a refused connection fails at once: well within the 5 s coupon deadline
        assertThat(took).isLessThan(Duration.ofSeconds(5));
    }

    private static OrchestratorInstance withCoupons(TicketStack stack, URI couponService) {
        return stack.instance("with-coupons", Map.of("ticket.coupons.base-url", couponService.toString(),
                "ticket.coupons.timeout", "5s", "ticket.coupons.read-timeout", "5s"));
    }

    private static void fillCoupons(TicketStack stack) {
        stack.mariaDb().execute(TicketStack.COUPON_DATABASE,
                "INSERT INTO place (id, name, region, category) VALUES (1, 'Gangnam Parking', 'Seoul', 'PARKING'),"
                        + " (2, 'Mapo Parking', 'Seoul', 'PARKING')",
                "INSERT INTO coupon (id, code, place_id, name, discount_type, discount_value, minimum_price,"
                        + " valid_from, valid_until, status, issue_limit) VALUES"
                        + " (101, 'PARK-A', 1, 'Night 10%', 'PERCENTAGE', 10, 0, '2026-01-01', '2026-12-31', 'ACTIVE', 100),"
                        + " (102, 'PARK-B', 1, 'Paused', 'FIXED_AMOUNT', 1000, 0, '2026-01-01', '2026-12-31', 'PAUSED', 100),"
                        + " (103, 'PARK-C', 1, 'Last year', 'FIXED_AMOUNT', 1000, 0, '2024-01-01', '2024-12-31', 'ACTIVE', 100),"
                        + " (104, 'PARK-D', 1, 'Sold out', 'FIXED_AMOUNT', 2000, 0, '2026-01-01', '2026-12-31', 'ACTIVE', 5),"
                        + " (201, 'PARK-E', 2, 'Other lot', 'FIXED_AMOUNT', 500, 0, '2026-01-01', '2026-12-31', 'ACTIVE', 100)",
                "INSERT INTO coupon_progress (coupon_id, issued_count, used_count) VALUES"
                        + " (101, 10, 2), (102, 0, 0), (103, 0, 0), (104, 5, 1), (201, 0, 0)");
    }

    private static HttpResponse<String> get(URI uri) throws IOException, InterruptedException {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Requests coupon-service has served on its place-coupons endpoint, from its own metrics. */
    private static long placeCouponCalls(URI couponService) throws IOException, InterruptedException {
        HttpResponse<String> metrics = get(couponService.resolve("/actuator/prometheus"));
        assertThat(metrics.statusCode()).isEqualTo(200);
        return metrics.body().lines()
                .filter(line -> line.startsWith("http_server_requests_seconds_count{") && line.contains(PROGRESS_URI))
                .mapToLong(line -> (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .sum();
    }
}
