package dev.cdccache.client.consuming;

import static dev.cdccache.client.consuming.Parts.COUPON;
import static dev.cdccache.client.consuming.Parts.HEARTBEAT;
import static dev.cdccache.client.consuming.Parts.TABLE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.metrics.BadInputLog;
import dev.cdccache.client.metrics.ErrorReason;
import dev.cdccache.client.metrics.TableEvictionReason;
import dev.cdccache.client.position.CommitPosition;
import dev.cdccache.client.staleness.HeartbeatCoverage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/**
 * The table-wide eviction a connector publishes instead of the remaining rows of a large transaction, one copy per
 * partition: the first copy read evicts every cache of the table, the others only prove their own partition; a
 * new eviction of the same transaction (a connector restart) evicts again; clients that do not know the marker
 * still evict, through {@code truncated_columns}.
 */
class CoalescedEvictionTest {

    private final Parts parts = new Parts();
    private final List<String> heard = new ArrayList<>();
    private final RecordApplier applier = new RecordApplier(parts.kafka, parts.router, HEARTBEAT,
            new HeartbeatCoverage(Map.of(COUPON, Set.of(TABLE))), parts.guard, parts.metrics,
            new BadInputLog(parts.clock::get), List.of(event -> heard.add(event.partition() + ":" + event.offset())),
            parts.clock::get, 4096, false, 250, parts.proven);

    private static String eviction(String id) {
        return "{\"before\":null,\"after\":null,\"source\":{\"db\":\"coupon_db\",\"table\":\"coupon\",\"gtid\":\"0-1-50\"},"
                + "\"op\":\"u\",\"ts_ms\":1,\"truncated_columns\":[\"*\"],\"coalesced\":{\"transaction\":\"0-1-50\","
                + "\"eviction\":\"" + id + "\",\"rows_published\":10000,\"partitions\":3}}";
    }

    private static ConsumerRecord<byte[], byte[]> record(int partition, long offset, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        return new ConsumerRecord<>(COUPON, partition, offset, ConsumerRecord.NO_TIMESTAMP,
                TimestampType.NO_TIMESTAMP_TYPE, -1, bytes.length, null, bytes, new RecordHeaders(),
                java.util.Optional.empty());
    }

    private static String update(long id, long sequence) {
        return "{\"op\":\"u\",\"before\":{\"id\":" + id + "},\"after\":{\"id\":" + id + "},\"source\":{\"gtid\":\"0-1-"
                + sequence + "\"}}";
    }

    private boolean provenUpTo(long sequence) {
        parts.proven.publish(Map.of(COUPON, Set.of(0, 1, 2)));
        return parts.proven.isProven("coupons", CommitPosition.parse("0-1-" + sequence).orElseThrow());
    }

    @Test
    void theFirstCopyEvictsEveryCacheOfTheTableOnceAndIsNotAnError() {
        parts.load(1);
        parts.load(2);
        applier.apply(record(1, 10, eviction("e-1")));
        assertThat(parts.cached(1)).isFalse();
        assertThat(parts.cached(2)).isFalse();
        assertThat(parts.metrics.tableEvictions(TABLE, TableEvictionReason.COALESCED_TRANSACTION)).isEqualTo(1);
        assertThat(parts.metrics.errorCount(ErrorReason.TRUNCATED)).as("not a reduced event").isZero();

        parts.load(1); // loaded after the transaction committed: fresh
        applier.apply(record(0, 20, eviction("e-1")));
        applier.apply(record(2, 30, eviction("e-1")));
        assertThat(parts.cached(1)).as("the other copies evict nothing more").isTrue();
        assertThat(parts.metrics.tableEvictions(TABLE, TableEvictionReason.COALESCED_TRANSACTION)).isEqualTo(1);
        assertThat(heard).as("listeners hear every copy").containsExactly("1:10", "0:20", "2:30");
    }

    @Test
    void aNewEvictionOfTheSameTransactionEvictsAgain() {
        applier.apply(record(0, 10, eviction("e-1")));
        parts.load(1);
        applier.apply(record(0, 40, eviction("e-2"))); // the connector restarted inside the transaction
        assertThat(parts.cached(1)).isFalse();
        assertThat(parts.metrics.tableEvictions(TABLE, TableEvictionReason.COALESCED_TRANSACTION)).isEqualTo(2);
    }

    @Test
    void eachCopyProvesOnlyItsOwnPartitionSoNoPartitionRunsAheadOfRowsItNeverGot() {
        applier.apply(record(1, 10, eviction("e-1")));
        applier.apply(record(1, 11, update(9, 51))); // a later transaction, read from partition 1 first
        assertThat(provenUpTo(50)).as("partitions 0 and 2 have not read their copies yet").isFalse();
        applier.apply(record(0, 20, eviction("e-1")));
        assertThat(provenUpTo(50)).isFalse();
        applier.apply(record(2, 30, eviction("e-1")));
        assertThat(provenUpTo(50)).as("every partition read its copy").isTrue();
        assertThat(provenUpTo(51)).as("partitions 0 and 2 never saw 51").isFalse();
    }

    @Test
    void anEvictionWithoutTheMarkerStillEvictsEveryCacheAsAReducedEventDoes() {
        // what a client of the previous release reads: truncated_columns ["*"] and no key columns
        parts.load(1);
        applier.apply(record(0, 10, eviction("e-1").replace("\"coalesced\"", "\"unknown_field\"")));
        assertThat(parts.cached(1)).isFalse();
        assertThat(parts.metrics.errorCount(ErrorReason.TRUNCATED)).isEqualTo(1);
    }

    @Test
    void aTruncateIsCountedAsATableWideEviction() {
        parts.load(1);
        applier.apply(record(0, 10, "{\"op\":\"t\",\"before\":null,\"after\":null}"));
        assertThat(parts.cached(1)).isFalse();
        assertThat(parts.metrics.tableEvictions(TABLE, TableEvictionReason.TRUNCATE)).isEqualTo(1);
    }
}
