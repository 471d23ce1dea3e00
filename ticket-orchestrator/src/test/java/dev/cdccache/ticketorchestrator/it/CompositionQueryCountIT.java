package dev.cdccache.ticketorchestrator.it;

import static dev.cdccache.ticketorchestrator.it.Searches.FROM;
import static dev.cdccache.ticketorchestrator.it.Searches.TO;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

import dev.cdccache.ticketorchestrator.reference.ReferenceType;

/**
 * How many SQL statements one search page costs, counted on the real database connection of the instance
 * (not assumed): batched composition against the naive per-item mode.
 */
@ExtendWith(TicketStackExtension.class)
class CompositionQueryCountIT {

    private static final int PAGE_SIZE = 50;

    @Test
    void batchedPageRunsOneQueryPerReferenceTypeOnMissesAndNoneOnAWarmCache(TicketStack stack) {
        OrchestratorInstance instance = stack.instanceA();
        long lotId = stack.data().parkingLotIds().get(0);
        ColdAndWarm pages = Searches.undisturbed(instance, lotId, () -> ColdAndWarm.of(instance, lotId, 0));
        StatementDelta<JsonNode> cold = pages.cold();
        StatementDelta<JsonNode> warm = pages.warm();

        PageShape shape = PageShape.of(cold.result());
        assertThat(shape.tickets).isEqualTo(PAGE_SIZE);
        assertThat(shape.categories.size()).as("distinct categories on the page").isGreaterThan(1);
        assertThat(shape.exchanges).as("tickets with a car exchange").isGreaterThan(1);
        assertThat(cold.count("season_ticket")).isEqualTo(1);
        assertThat(cold.count(ReferenceType.CATEGORY)).isEqualTo(1);
        assertThat(cold.count(ReferenceType.PARKING_LOT)).isEqualTo(1);
        assertThat(cold.count(ReferenceType.CAR_EXCHANGE)).isEqualTo(1);

        assertThat(warm.byTable()).containsOnlyKeys("season_ticket");
        assertThat(warm.count("season_ticket")).isEqualTo(1);
        assertThat(warm.result().get("tickets")).isEqualTo(cold.result().get("tickets"));
    }

    @Test
    void batchedNextPageQueriesOnlyTheRowsItHasNotSeen(TicketStack stack) {
        OrchestratorInstance instance = stack.instanceA();
        long lotId = stack.data().parkingLotIds().get(0);
        StatementDelta<JsonNode> next = Searches.undisturbed(instance, lotId, () -> {
            instance.clearReferenceCaches();
            instance.search(lotId, FROM, TO, 0, PAGE_SIZE);
            return StatementDelta.during(instance, () -> instance.search(lotId, FROM, TO, 1, PAGE_SIZE));
        });

        // the lot and (almost surely) every category are cached by page 0; the exchanges are new rows
        assertThat(next.count(ReferenceType.PARKING_LOT)).isZero();
        assertThat(next.count(ReferenceType.CATEGORY)).isLessThanOrEqualTo(1);
        assertThat(next.count(ReferenceType.CAR_EXCHANGE)).isEqualTo(1);
    }

    @Test
    void perItemModeWithoutCacheRunsTheSeedsOnePlusThreeTimesPageSizeQueries(TicketStack stack) {
        OrchestratorInstance instance = stack.perItem(false);
        long lotId = stack.data().parkingLotIds().get(0);

        for (int round = 0; round < 2; round++) {
            StatementDelta<JsonNode> delta = StatementDelta.during(instance,
                    () -> instance.search(lotId, FROM, TO, 0, PAGE_SIZE));

            PageShape shape = PageShape.of(delta.result());
            assertThat(shape.tickets).isEqualTo(PAGE_SIZE);
            assertThat(delta.count("season_ticket")).isEqualTo(1);
            assertThat(delta.count(ReferenceType.CATEGORY)).isEqualTo(PAGE_SIZE);
            // one lookup per ticket plus the one that checks the lot exists
            assertThat(delta.count(ReferenceType.PARKING_LOT)).isEqualTo(PAGE_SIZE + 1);
            assertThat(delta.count(ReferenceType.CAR_EXCHANGE)).isEqualTo(shape.exchanges);
        }
    }

    @Test
    void perItemModeThroughTheCacheRunsOneQueryPerDistinctMissingRow(TicketStack stack) {
        OrchestratorInstance instance = stack.perItem(true);
        long lotId = stack.data().parkingLotIds().get(0);
        ColdAndWarm pages = Searches.undisturbed(instance, lotId, () -> ColdAndWarm.of(instance, lotId, 0));
        StatementDelta<JsonNode> cold = pages.cold();

        PageShape shape = PageShape.of(cold.result());
        assertThat(cold.count(ReferenceType.CATEGORY)).isEqualTo(shape.categories.size());
        assertThat(cold.count(ReferenceType.PARKING_LOT)).isEqualTo(1);
        // every exchange row is its own: the N+1 pattern the batched mode avoids
        assertThat(cold.count(ReferenceType.CAR_EXCHANGE)).isEqualTo(shape.exchanges).isGreaterThan(1);

        assertThat(pages.warm().referenceStatements()).isZero();
    }

    /** One page searched right after the reference caches were emptied, then again. */
    private record ColdAndWarm(StatementDelta<JsonNode> cold, StatementDelta<JsonNode> warm) {

        static ColdAndWarm of(OrchestratorInstance instance, long lotId, int page) {
            instance.clearReferenceCaches();
            StatementDelta<JsonNode> cold = StatementDelta.during(instance,
                    () -> instance.search(lotId, FROM, TO, page, PAGE_SIZE));
            StatementDelta<JsonNode> warm = StatementDelta.during(instance,
                    () -> instance.search(lotId, FROM, TO, page, PAGE_SIZE));
            return new ColdAndWarm(cold, warm);
        }
    }

    /** What a page holds: tickets, distinct categories, tickets with a car exchange. */
    private record PageShape(int tickets, Set<Long> categories, int exchanges) {

        static PageShape of(JsonNode page) {
            Set<Long> categories = new HashSet<>();
            int exchanges = 0;
            int tickets = 0;
            for (JsonNode ticket : page.get("tickets")) {
                tickets++;
                categories.add(ticket.get("category").get("id").asLong());
                if (!ticket.get("carExchange").isNull()) {
                    exchanges++;
                }
            }
            return new PageShape(tickets, categories, exchanges);
        }
    }
}
