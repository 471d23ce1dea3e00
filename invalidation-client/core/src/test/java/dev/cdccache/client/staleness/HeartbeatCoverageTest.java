package dev.cdccache.client.staleness;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.staleness.HeartbeatCoverage.Heartbeat;
import dev.cdccache.client.staleness.HeartbeatCoverage.Outcome;
import dev.cdccache.client.staleness.HeartbeatCoverage.ResetReason;
import dev.cdccache.client.staleness.HeartbeatCoverage.Status;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The per-connector freshness rules (docs/contract.md, "Heartbeats"), as pure logic. */
class HeartbeatCoverageTest {

    private static final long NOW = 1_800_000_000_000L;
    private static final String COUPON = "coupon_db.coupon";
    private static final String ATTRIBUTE = "coupon_db.coupon_attribute";
    private static final String TICKET = "ticket_db.ticket";

    private final HeartbeatCoverage coverage = new HeartbeatCoverage(topics(COUPON, ATTRIBUTE, TICKET));

    /** Each table read from its own topic {@code cdc.<table>}. */
    private static Map<String, Set<String>> topics(String... tables) {
        Map<String, Set<String>> byTopic = new HashMap<>();
        for (String table : tables) {
            byTopic.put(topic(table), Set.of(table));
        }
        return byTopic;
    }

    private static String topic(String table) {
        return "cdc." + table;
    }

    private static Heartbeat heartbeat(String id, long ts, String epoch, String... tables) {
        return new Heartbeat(id, false, ts, epoch, Set.of(tables));
    }

    @Test
    void aTableIsCoveredOnlyByTheHeartbeatsOfAConnectorListingIt() {
        coverage.accept("coupons", heartbeat("coupons", NOW - 100, "e1", COUPON, ATTRIBUTE), NOW);
        coverage.accept("tickets", heartbeat("tickets", NOW - 5_000, "e1", TICKET), NOW);
        // The coupon connector keeps beating; the ticket connector stopped 5 s ago.
        coverage.accept("coupons", heartbeat("coupons", NOW, "e1", COUPON, ATTRIBUTE), NOW);

        assertThat(coverage.coverage(COUPON)).isEqualTo(NOW);
        assertThat(coverage.coverage("Coupon_DB.Coupon")).as("table names compare case-insensitively").isEqualTo(NOW);
        assertThat(coverage.coverage(TICKET)).as("not proven by another connector's heartbeats").isEqualTo(NOW - 5_000);
        assertThat(coverage.coverage("other.table")).isEqualTo(HeartbeatCoverage.UNCOVERED);
    }

    @Test
    void aHeartbeatIsAcceptedOnlyWhenItsRowIdIsTheConnectorNamedByItsHeader() {
        Outcome outcome = coverage.accept("tickets", heartbeat("coupons", NOW, "e1", COUPON), NOW);
        assertThat(outcome.status()).isEqualTo(Status.REJECTED);
        assertThat(coverage.coverage(COUPON)).isEqualTo(HeartbeatCoverage.UNCOVERED);
    }

    @Test
    void aLegacyHeartbeatCoversEveryTableAndANewShapeRowWithoutHeaderOnlyItsOwn() {
        HeartbeatCoverage legacy = new HeartbeatCoverage(topics(COUPON, TICKET));
        Outcome outcome = legacy.accept(null, new Heartbeat("1", true, NOW, null, null), NOW);
        assertThat(outcome.status()).isEqualTo(Status.ACCEPTED);
        assertThat(legacy.coverage(COUPON)).isEqualTo(NOW);
        assertThat(legacy.coverage(TICKET)).isEqualTo(NOW);

        coverage.accept(null, heartbeat("coupons", NOW, "e1", COUPON), NOW);
        assertThat(coverage.coverage(COUPON)).isEqualTo(NOW);
        assertThat(coverage.coverage(TICKET)).isEqualTo(HeartbeatCoverage.UNCOVERED);
    }

    @Test
    void aHeartbeatFromTheFutureProvesNothingBeyondNowMinusTheMeasuredSkew() {
        // The database clock is 600 ms ahead (under a tolerance of 1 s, so formerly not noticed at all).
        Outcome slightlyAhead = coverage.accept("coupons", heartbeat("coupons", NOW + 600, "e1", COUPON), NOW);
        assertThat(slightlyAhead.aheadMillis()).isEqualTo(600);
        assertThat(slightlyAhead.skewMillis()).isEqualTo(600);
        assertThat(slightlyAhead.tsMillis()).isEqualTo(NOW - 600);
        assertThat(coverage.coverage(COUPON)).isEqualTo(NOW - 600);

        Outcome hourAhead = coverage.accept("tickets", heartbeat("tickets", NOW + 3_600_000, "e1", TICKET), NOW);
        assertThat(hourAhead.tsMillis()).as("proves nothing recent").isEqualTo(NOW - 3_600_000);
        assertThat(coverage.clockSkews(NOW)).containsEntry("coupons", 600L).containsEntry("tickets", 3_600_000L);
    }

    @Test
    void aFutureDatedHeartbeatBehindALaggingConnectorDoesNotTurnItsLagIntoProof() {
        long skew = 2_000; // the database clock's true lead
        // While the pipeline is fast (10 ms), heartbeats measure most of the lead...
        for (long written = NOW - 30_000; written < NOW - 20_000; written += 1_000) {
            coverage.accept("coupons", heartbeat("coupons", written + skew, "e1", COUPON), written + 10);
        }
        // ...then the connector lags 1.5 s behind: its heartbeats still arrive dated 500 ms in the future.
        long written = NOW - 1_500;
        Outcome lagging = coverage.accept("coupons", heartbeat("coupons", written + skew, "e1", COUPON), NOW);
        assertThat(lagging.aheadMillis()).isEqualTo(500);
        assertThat(lagging.skewMillis()).isEqualTo(skew - 10);
        // Clamping it to now would have proven 1.5 s of changes that are not applied yet.
        assertThat(lagging.tsMillis()).as("never later than the heartbeat's true write time").isLessThanOrEqualTo(written);
        assertThat(NOW - lagging.tsMillis()).as("the lag it shows").isGreaterThanOrEqualTo(1_500);
    }

    @Test
    void aMeasuredSkewStopsCountingOnceTheWindowHasPassed() {
        coverage.accept("coupons", heartbeat("coupons", NOW + 800, "e1", COUPON), NOW);
        long later = NOW + ClockSkew.WINDOW_MILLIS + 1_000;
        Outcome corrected = coverage.accept("coupons", heartbeat("coupons", later - 20, "e1", COUPON), later);
        assertThat(corrected.skewMillis()).isZero();
        assertThat(corrected.tsMillis()).isEqualTo(later - 20);
        assertThat(coverage.clockSkews(later)).isEmpty();
    }

    @Test
    void aTopicIsProvenOnlyAsFarAsTheLeastRecentHeartbeatOfEveryConnectorListingItsTable() {
        // Two shards sharing a schema: both connectors capture coupon_db.coupon into one topic.
        coverage.accept("shard-a", heartbeat("shard-a", NOW, "e1", COUPON), NOW);
        coverage.accept("shard-b", heartbeat("shard-b", NOW - 7_000, "e1", COUPON), NOW);

        assertThat(coverage.coverageOfTopic(topic(COUPON))).isEqualTo(NOW - 7_000);
        assertThat(coverage.feeders(topic(COUPON))).containsEntry("shard-a", NOW).containsEntry("shard-b", NOW - 7_000);
        assertThat(coverage.coverageOfTopic(topic(TICKET))).isEqualTo(HeartbeatCoverage.UNCOVERED);
    }

    @Test
    void aConnectorNamedByTheHeaderOfATopicsRecordsFeedsItEvenIfItsHeartbeatListsAnotherTable() {
        // A rerouted topic: shard-b's heartbeat lists its own table, but its records land in the coupon topic.
        coverage.accept("shard-a", heartbeat("shard-a", NOW, "e1", COUPON), NOW);
        assertThat(coverage.fedBy(topic(COUPON), "shard-a")).as("already known from its heartbeat").isFalse();
        assertThat(coverage.coverageOfTopic(topic(COUPON))).isEqualTo(NOW);

        coverage.markReady();
        assertThat(coverage.fedBy(topic(COUPON), "shard-b")).as("new after ready: evict").isTrue();
        assertThat(coverage.fedBy(topic(COUPON), "shard-b")).as("only once").isFalse();
        assertThat(coverage.coverageOfTopic(topic(COUPON))).as("no heartbeat of shard-b yet")
                .isEqualTo(HeartbeatCoverage.UNCOVERED);

        coverage.accept("shard-b", heartbeat("shard-b", NOW - 3_000, "e1", "shard_b.coupon"), NOW);
        assertThat(coverage.coverageOfTopic(topic(COUPON))).isEqualTo(NOW - 3_000);
        assertThat(coverage.coverage(COUPON)).as("the table is listed by shard-a only").isEqualTo(NOW);
    }

    @Test
    void aLegacyConnectorNamedByHeadersIsTheOneWhoseOldShapeHeartbeatsCarryThatHeader() {
        coverage.accept("old", new Heartbeat("1", true, NOW - 4_000, null, null), NOW);
        coverage.fedBy(topic(COUPON), "old");
        assertThat(coverage.feeders(topic(COUPON))).containsExactly(Map.entry("legacy:old", NOW - 4_000));
    }

    @Test
    void anEpochChangeAfterReadyResetsTheTablesOfThatConnectorOnly() {
        coverage.accept("coupons", heartbeat("coupons", NOW, "e1", COUPON, ATTRIBUTE), NOW);
        coverage.accept("tickets", heartbeat("tickets", NOW, "e1", TICKET), NOW);
        Outcome beforeReady = coverage.accept("coupons", heartbeat("coupons", NOW + 1, "e0", COUPON, ATTRIBUTE), NOW);
        assertThat(beforeReady.resetTables()).as("nothing is cached before ready").isEmpty();

        coverage.markReady();
        Outcome same = coverage.accept("coupons", heartbeat("coupons", NOW + 2, "e0", COUPON, ATTRIBUTE), NOW);
        assertThat(same.resetTables()).isEmpty();
        Outcome changed = coverage.accept("coupons", heartbeat("coupons", NOW + 3, "e2", COUPON, ATTRIBUTE), NOW);
        assertThat(changed.resetTables()).containsExactlyInAnyOrder(COUPON, ATTRIBUTE);
        assertThat(changed.resetReason()).isEqualTo(ResetReason.EPOCH_CHANGE);
    }

    @Test
    void aConnectorOrTableCoveredForTheFirstTimeAfterReadyResetsThoseTables() {
        coverage.accept("coupons", heartbeat("coupons", NOW, "e1", COUPON), NOW);
        coverage.markReady();

        Outcome newConnector = coverage.accept("tickets", heartbeat("tickets", NOW, "e1", TICKET, "unbound.table"), NOW);
        assertThat(newConnector.resetTables()).containsExactly(TICKET);
        assertThat(newConnector.resetReason()).isEqualTo(ResetReason.NEW_COVERAGE);

        Outcome addedTable = coverage.accept("coupons", heartbeat("coupons", NOW + 1, "e1", COUPON, ATTRIBUTE), NOW);
        assertThat(addedTable.resetTables()).containsExactly(ATTRIBUTE);
        assertThat(coverage.accept("coupons", heartbeat("coupons", NOW + 2, "e1", COUPON, ATTRIBUTE), NOW)
                .resetTables()).isEmpty();
    }
}
