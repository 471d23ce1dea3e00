package dev.cdccache.client.consuming;

import static dev.cdccache.client.consuming.Parts.COUPON;
import static dev.cdccache.client.consuming.Parts.HEARTBEAT;
import static dev.cdccache.client.consuming.Parts.TABLE;
import static dev.cdccache.client.consuming.Parts.heartbeat;
import static dev.cdccache.client.consuming.Parts.record;
import static dev.cdccache.client.consuming.Parts.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdccache.client.InvalidationListener;
import dev.cdccache.client.eviction.EvictionRouter;
import dev.cdccache.client.metrics.BadInputLog;
import dev.cdccache.client.metrics.ErrorReason;
import dev.cdccache.client.parsing.RowColumns;
import dev.cdccache.client.staleness.HeartbeatCoverage;
import dev.cdccache.contract.HeartbeatTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The handling of one record and of a poll batch, on its own (no loop, no Kafka). */
class RecordApplierTest {

    private final Parts parts = new Parts();
    private final HeartbeatCoverage coverage = new HeartbeatCoverage(Map.of(COUPON, Set.of(TABLE)));
    private final List<Long> heard = new ArrayList<>();
    private InvalidationListener listener = event -> heard.add(event.offset());

    private RecordApplier applier() {
        return applier(List.of(event -> listener.onApplied(event)));
    }

    private RecordApplier applier(List<InvalidationListener> listeners) {
        return new RecordApplier(parts.kafka, parts.router, HEARTBEAT, coverage, parts.guard, parts.metrics,
                new BadInputLog(parts.clock::get), listeners, parts.clock::get, 1024, true, 250, parts.proven);
    }

    private static ConsumerRecords<byte[], byte[]> batch(List<ConsumerRecord<byte[], byte[]>> records) {
        return new ConsumerRecords<>(Map.of(new TopicPartition(records.get(0).topic(), 0), records), Map.of());
    }

    @Test
    void aChangeEvictsTheKeyOfItsRowAndThenTheListenersHearOfIt() {
        parts.load(1);
        parts.load(2);
        applier().apply(record(COUPON, 7, update(1), null));
        assertThat(parts.cached(1)).isFalse();
        assertThat(parts.cached(2)).isTrue();
        assertThat(heard).containsExactly(7L);
    }

    @Test
    void aListenerThatLeavesTheThreadInterruptedIsReportedAndTheInterruptCleared() {
        listener = event -> {
            heard.add(event.offset());
            Thread.currentThread().interrupt(); // e.g. restoring the flag after an interrupted blocking call
        };
        try {
            parts.load(1);
            parts.load(2);
            RecordApplier applier = applier();
            applier.apply(record(COUPON, 7, update(1), null));
            assertThat(Thread.currentThread().isInterrupted()).as("cleared before the next Kafka call").isFalse();
            assertThat(parts.metrics.errorCount(ErrorReason.LISTENER_FAILURE)).isEqualTo(1);
            applier.apply(record(COUPON, 8, update(2), null));
            assertThat(parts.cached(1)).isFalse();
            assertThat(parts.cached(2)).isFalse();
            assertThat(heard).containsExactly(7L, 8L);
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void anOversizedOrMalformedRecordIsCountedAndEvictsTheWholeCacheOfItsTable() {
        parts.load(2);
        applier().apply(record(COUPON, 1, "x".repeat(2048), null));
        assertThat(parts.metrics.errorCount(ErrorReason.OVERSIZED)).isEqualTo(1);
        assertThat(parts.cached(2)).isFalse();
        parts.load(2);
        applier().apply(record(COUPON, 2, "{not json", null));
        assertThat(parts.metrics.errorCount(ErrorReason.MALFORMED_JSON)).isEqualTo(1);
        assertThat(parts.cached(2)).isFalse();
        assertThat(heard).isEmpty();
    }

    @Test
    void anErrorRewindsThePartitionToTheFirstRecordNotAppliedAndIsRethrown() {
        TopicPartition tp = new TopicPartition(COUPON, 0);
        parts.topics(COUPON);
        parts.kafka.assign(List.of(tp));
        parts.kafka.seek(tp, 3);
        listener = event -> {
            if (event.offset() == 1) {
                throw new OutOfMemoryError("simulated");
            }
            heard.add(event.offset());
        };
        RecordApplier applier = applier();
        assertThatThrownBy(() -> applier.applyAll(batch(List.of(record(COUPON, 0, update(1), null),
                record(COUPON, 1, update(2), null), record(COUPON, 2, update(3), null)))))
                .isInstanceOf(OutOfMemoryError.class);
        assertThat(heard).containsExactly(0L);
        assertThat(parts.kafka.position(tp)).as("the record after the failed one is read again").isEqualTo(2);
        assertThat(parts.metrics.errorCount(ErrorReason.RECORD_FAILURE)).isEqualTo(1);
    }

    @Test
    void aHeartbeatMovesTheGuardsLastHeartbeatAndOneFromTheFutureIsCounted() {
        long now = parts.clock.get();
        RecordApplier applier = applier();
        applier.apply(record(HEARTBEAT, 0, heartbeat("c1", now - 50, TABLE), "c1"));
        assertThat(parts.guard.lastHeartbeat()).isEqualTo(now - 50);
        applier.apply(record(HEARTBEAT, 1, heartbeat("c1", now + 400, TABLE), "c1"));
        assertThat(parts.metrics.errorCount(ErrorReason.FUTURE_HEARTBEAT)).as("400 ms > max-clock-skew").isEqualTo(1);
        assertThat(parts.guard.lastHeartbeat()).as("never beyond now").isLessThanOrEqualTo(now);
        applier.apply(record(HEARTBEAT, 2, heartbeat("c1", now, TABLE), "c2"));
        assertThat(parts.metrics.errorCount(ErrorReason.REJECTED_HEARTBEAT)).isEqualTo(1);
    }

    @Test
    void aRecordNamingAConnectorNotYetFeedingItsTopicAfterReadyEvictsTheTopicsCaches() {
        RecordApplier applier = applier();
        long now = parts.clock.get();
        applier.apply(record(HEARTBEAT, 0, heartbeat("shard-a", now, TABLE), "shard-a"));
        coverage.markReady();
        parts.load(5);
        applier.apply(record(COUPON, 0, update(1), "shard-a"));
        assertThat(parts.cached(5)).as("shard-a lists the table: known").isTrue();

        applier.apply(record(COUPON, 1, update(1), "shard-b"));
        assertThat(parts.cached(5)).isFalse();
        assertThat(parts.metrics.unprovenEvictions("new_coverage")).isEqualTo(1);
        assertThat(coverage.feeders(COUPON)).containsOnlyKeys("shard-a", "shard-b");
    }

    @Test
    void withoutListenersOnlyTheColumnsTheCachesAndHeartbeatsReadAreParsed() {
        RecordApplier applier = applier(List.of());
        assertThat(applier.columnsOf(COUPON)).isEqualTo(RowColumns.only(Set.of("id")));
        assertThat(applier.columnsOf(HEARTBEAT)).isEqualTo(RowColumns.only(Set.copyOf(HeartbeatTable.COLUMNS)));
        assertThat(applier.columnsOf("cdc.coupon_db.unbound").keepsAll()).as("nothing known: all").isTrue();

        long now = parts.clock.get();
        applier.apply(record(HEARTBEAT, 0, heartbeat("c1", now - 50, TABLE), "c1"));
        assertThat(parts.guard.lastHeartbeat()).isEqualTo(now - 50);
        parts.load(1);
        parts.load(2);
        applier.apply(record(COUPON, 0, "{\"op\":\"u\",\"before\":{\"code\":\"A\",\"note\":{\"j\":[1]},\"id\":1},"
                + "\"after\":{\"code\":\"B\",\"id\":1,\"note\":\"x\"}}", "c1"));
        assertThat(parts.cached(1)).isFalse();
        assertThat(parts.cached(2)).isTrue();
    }

    @Test
    void aListenerSeesEveryColumnOfTheRowNotOnlyTheKeyColumns() {
        List<JsonNode> rows = new ArrayList<>();
        RecordApplier applier = applier(List.of(event -> rows.add(event.after())));
        assertThat(applier.columnsOf(COUPON).keepsAll()).isTrue();
        applier.apply(record(COUPON, 0, "{\"op\":\"c\",\"after\":{\"id\":1,\"code\":\"B\",\"stamp\":1772360130041211}}",
                null));
        assertThat(rows).singleElement().satisfies(row -> assertThat(row.propertyNames())
                .containsExactlyInAnyOrder("id", "code", "stamp"));
    }

    @Test
    void anEventLackingAKeyColumnEvictsTheWholeCacheAndNamesTheColumnUntilAnEventCarriesItAgain() {
        parts.load(1);
        parts.load(2);
        // a connector projection that left the cache's key column "id" out of the row images
        applier().apply(record(COUPON, 1, "{\"op\":\"u\",\"before\":{\"code\":\"A\"},\"after\":{\"code\":\"B\"}}", null));

        assertThat(parts.cached(1)).as("conservative: nothing of the cache survives").isFalse();
        assertThat(parts.cached(2)).isFalse();
        assertThat(parts.metrics.errorCount(ErrorReason.UNMAPPABLE_KEY)).isEqualTo(1);
        assertThat(parts.router.missingColumns()).containsExactly(new EvictionRouter.MissingColumn(COUPON, "coupons", "id"));

        parts.load(2);
        applier().apply(record(COUPON, 2, update(1), null));
        assertThat(parts.router.missingColumns()).as("the column is back").isEmpty();
        assertThat(parts.cached(2)).as("evicted by key again").isTrue();
    }

    @Test
    void aNullKeyValueIsNotAMissingColumn() {
        applier().apply(record(COUPON, 1, "{\"op\":\"u\",\"before\":{\"id\":null},\"after\":{\"id\":null}}", null));
        assertThat(parts.metrics.errorCount(ErrorReason.UNMAPPABLE_KEY)).isEqualTo(1);
        assertThat(parts.router.missingColumns()).isEmpty();
    }
}
