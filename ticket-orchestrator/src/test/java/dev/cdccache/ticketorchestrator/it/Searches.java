package dev.cdccache.ticketorchestrator.it;

import static org.awaitility.Awaitility.await;

import java.time.Duration;

import tools.jackson.databind.JsonNode;

/** Search parameters and waits the integration tests share. */
final class Searches {

    /** A month in the middle of the generated periods: every lot has well over 50 tickets in it. */
    static final String FROM = "2026-06-01";
    static final String TO = "2026-06-30";

    private Searches() {
    }

    /**
     * Waits until {@code instance} serves the page's reference data from its caches (its invalidation client
     * is positioned and caching): a repeated search of the page then runs no reference query at all.
     */
    static void awaitCachesServing(OrchestratorInstance instance, long parkingLotId) {
        await("caches of " + instance.name() + " serving").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    instance.search(parkingLotId, FROM, TO, 0, 50);
                    return StatementDelta.during(instance, () -> instance.search(parkingLotId, FROM, TO, 0, 50))
                            .referenceStatements() == 0;
                });
    }

    /** @return the first ticket of the page that has a car exchange */
    static JsonNode firstWithCarExchange(JsonNode page) {
        for (JsonNode ticket : page.get("tickets")) {
            if (!ticket.get("carExchange").isNull()) {
                return ticket;
            }
        }
        throw new AssertionError("no ticket with a car exchange on the page: " + page);
    }
}
