package dev.cdccache.ticketorchestrator.it;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.function.Supplier;

import tools.jackson.databind.JsonNode;

/** Search parameters and waits the integration tests share. */
final class Searches {

    /** A month in the middle of the generated periods: every lot has well over 50 tickets in it. */
    static final String FROM = "2026-06-01";
    static final String TO = "2026-06-30";

    private Searches() {
    }

    /** Attempts {@link #undisturbed} makes before it fails. */
    private static final int ATTEMPTS = 3;

    /**
     * Waits until {@code instance} serves the page's reference data from its caches (its invalidation client
     * is positioned and caching) and its client proves them fresh: a repeated search of the page then runs no
     * reference query at all, and the first proof after start-up (which evicts the caches if it came later than
     * max-staleness) is behind.
     */
    static void awaitCachesServing(OrchestratorInstance instance, long parkingLotId) {
        await("caches of " + instance.name() + " fresh").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200)).until(instance::cachesFresh);
        await("caches of " + instance.name() + " serving").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    instance.search(parkingLotId, FROM, TO, 0, 50);
                    return StatementDelta.during(instance, () -> instance.search(parkingLotId, FROM, TO, 0, 50))
                            .referenceStatements() == 0;
                });
    }

    /**
     * Runs {@code measurement} (which counts statements) until one run left the instance's caches undisturbed:
     * nothing evicted and no load discarded while it ran. On a machine starved of CPU the connector's heartbeats
     * can arrive later than max-staleness, and the client then rightly evicts its caches; the statements counted
     * meanwhile include the reloads, which are not what the composition costs.
     *
     * @return the first undisturbed run's result
     */
    static <T> T undisturbed(OrchestratorInstance instance, long parkingLotId, Supplier<T> measurement) {
        double disturbances = 0;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            awaitCachesServing(instance, parkingLotId);
            double before = instance.cacheDisturbances();
            T result = measurement.get();
            disturbances = instance.cacheDisturbances() - before;
            if (disturbances == 0) {
                return result;
            }
            System.out.printf("%s: %.0f evictions or discarded loads during attempt %d of the measurement; again%n",
                    instance.name(), disturbances, attempt);
        }
        throw new AssertionError("the caches of " + instance.name() + " were disturbed during each of " + ATTEMPTS
                + " attempts (" + disturbances + " evictions or discarded loads in the last)");
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
