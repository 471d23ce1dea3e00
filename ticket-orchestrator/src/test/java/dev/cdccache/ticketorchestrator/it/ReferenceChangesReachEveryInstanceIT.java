package dev.cdccache.ticketorchestrator.it;

import static dev.cdccache.ticketorchestrator.it.Searches.FROM;
import static dev.cdccache.ticketorchestrator.it.Searches.TO;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

/**
 * Reference data changed with plain SQL (no service involved, nothing published by hand) reaches the caches
 * of every orchestrator instance through the binlog, the real connector process and Kafka.
 */
@ExtendWith(TicketStackExtension.class)
class ReferenceChangesReachEveryInstanceIT {

    private static final Duration INVALIDATION_BOUND = Duration.ofSeconds(20);

    @Test
    void categoryParkingLotAndCarExchangeChangesShowUpInSearchResultsOnEveryInstance(TicketStack stack) {
        List<OrchestratorInstance> instances = List.of(stack.instanceA(), stack.instanceB());
        long lotId = stack.data().parkingLotIds().get(1);
        JsonNode ticket = Searches.firstWithCarExchange(instances.get(0).search(lotId, FROM, TO, 0, 50));
        long ticketId = ticket.get("id").asLong();
        long categoryId = ticket.get("category").get("id").asLong();
        long exchangeId = ticket.get("carExchange").get("id").asLong();
        // both instances now answer from their caches: an unchanged value below would be a stale cache hit
        instances.forEach(instance -> Searches.awaitCachesServing(instance, lotId));

        String nonce = UUID.randomUUID().toString().substring(0, 8);
        stack.sql("UPDATE ticket_category SET name = 'Category " + nonce + "' WHERE id = " + categoryId,
                "UPDATE parking_lot SET name = 'Lot " + nonce + "' WHERE id = " + lotId,
                "UPDATE car_exchange_detail SET temporary_car_number = 'T" + nonce + "' WHERE id = " + exchangeId);

        for (OrchestratorInstance instance : instances) {
            await("changes visible on " + instance.name()).atMost(INVALIDATION_BOUND)
                    .pollInterval(Duration.ofMillis(100))
                    .untilAsserted(() -> {
                        JsonNode found = ticketOnPage(instance.search(lotId, FROM, TO, 0, 50), ticketId);
                        assertThat(found.get("category").get("name").asString()).isEqualTo("Category " + nonce);
                        assertThat(found.get("parkingLot").get("name").asString()).isEqualTo("Lot " + nonce);
                        assertThat(found.get("carExchange").get("temporaryCarNumber").asString())
                                .isEqualTo("T" + nonce);
                    });
            // the other read paths share the same caches (and the evict-all list cache)
            assertThat(instance.getJson("/parking-lots/" + lotId).get("name").asString()).isEqualTo("Lot " + nonce);
            await().atMost(INVALIDATION_BOUND).untilAsserted(() -> assertThat(
                    names(instance.getJson("/categories"))).contains("Category " + nonce));
        }
    }

    @Test
    void insertedAndDeletedRowsShowUpOnEveryInstance(TicketStack stack) {
        List<OrchestratorInstance> instances = List.of(stack.instanceA(), stack.instanceB());
        long lotId = stack.data().parkingLotIds().get(2);
        JsonNode ticket = Searches.firstWithCarExchange(instances.get(0).search(lotId, FROM, TO, 0, 50));
        long ticketId = ticket.get("id").asLong();
        long exchangeId = ticket.get("carExchange").get("id").asLong();
        instances.forEach(instance -> Searches.awaitCachesServing(instance, lotId));
        instances.forEach(instance -> assertThat(names(instance.getJson("/categories"))).isNotEmpty());

        String nonce = UUID.randomUUID().toString().substring(0, 8);
        // the ticket keeps pointing at the exchange (references are indirect): composition must show it gone
        stack.sql("DELETE FROM car_exchange_detail WHERE id = " + exchangeId,
                "INSERT INTO ticket_category (name, monthly_fee, description) VALUES ('New " + nonce
                        + "', 70000, 'added by SQL')");

        for (OrchestratorInstance instance : instances) {
            await("changes visible on " + instance.name()).atMost(INVALIDATION_BOUND)
                    .pollInterval(Duration.ofMillis(100))
                    .untilAsserted(() -> {
                        JsonNode found = ticketOnPage(instance.search(lotId, FROM, TO, 0, 50), ticketId);
                        assertThat(found.get("carExchange").isNull()).as("deleted car exchange").isTrue();
                        assertThat(names(instance.getJson("/categories"))).contains("New " + nonce);
                    });
        }
    }

    @Test
    void anAdminWriteOnOneInstanceReachesEveryInstanceThroughTheChangeStream(TicketStack stack) {
        OrchestratorInstance writer = stack.instanceA();
        OrchestratorInstance reader = stack.instanceB();
        long lotId = stack.data().parkingLotIds().get(2);
        JsonNode before = reader.getJson("/parking-lots/" + lotId);
        Searches.awaitCachesServing(reader, lotId);
        String name = "Admin " + UUID.randomUUID().toString().substring(0, 8);

        HttpResponse<String> written = writer.put("/admin/parking-lots/" + lotId, "{\"name\":\"" + name
                + "\",\"address\":\"1 Test-ro\",\"capacity\":321,\"placeId\":" + before.get("placeId").asLong()
                + "}");

        assertThat(written.statusCode()).as(written.body()).isEqualTo(200);
        await("admin write visible on " + reader.name()).atMost(INVALIDATION_BOUND)
                .pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> {
                    assertThat(reader.getJson("/parking-lots/" + lotId).get("name").asString()).isEqualTo(name);
                    assertThat(reader.search(lotId, FROM, TO, 0, 10).get("tickets").get(0).get("parkingLot")
                            .get("capacity").asInt()).isEqualTo(321);
                });
        HttpResponse<String> invalid = writer.put("/admin/parking-lots/" + lotId,
                "{\"name\":\"\",\"address\":\"x\",\"capacity\":-1,\"placeId\":1}");
        assertThat(invalid.statusCode()).isEqualTo(400);
        assertThat(writer.put("/admin/parking-lots/987654", "{\"name\":\"n\",\"address\":\"a\",\"capacity\":1,"
                + "\"placeId\":1}").statusCode()).isEqualTo(404);
    }

    private static JsonNode ticketOnPage(JsonNode page, long ticketId) {
        for (JsonNode ticket : page.get("tickets")) {
            if (ticket.get("id").asLong() == ticketId) {
                return ticket;
            }
        }
        throw new AssertionError("ticket " + ticketId + " not on the page");
    }

    private static List<String> names(JsonNode categories) {
        return categories.valueStream().map(category -> category.get("name").asString()).toList();
    }
}
