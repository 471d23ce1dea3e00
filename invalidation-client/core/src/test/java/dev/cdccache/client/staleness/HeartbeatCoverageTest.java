package dev.cdccache.client.staleness;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.staleness.HeartbeatCoverage.Heartbeat;
import dev.cdccache.client.staleness.HeartbeatCoverage.Outcome;
import dev.cdccache.client.staleness.HeartbeatCoverage.ResetReason;
import dev.cdccache.client.staleness.HeartbeatCoverage.Status;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The per-connector freshness rules (docs/contract.md, "Heartbeats"), as pure logic. */
class HeartbeatCoverageTest {

    private static final long NOW = 1_800_000_000_000L;
    private static final String COUPON = "coupon_db.coupon";
    private static final String ATTRIBUTE = "coupon_db.coupon_attribute";
    private static final String TICKET = "ticket_db.ticket";

    private final HeartbeatCoverage coverage = new HeartbeatCoverage(Set.of(COUPON, ATTRIBUTE, TICKET), 1_000);

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
        HeartbeatCoverage legacy = new HeartbeatCoverage(Set.of(COUPON, TICKET), 1_000);
        Outcome outcome = legacy.accept(null, new Heartbeat("1", true, NOW, null, null), NOW);
        assertThat(outcome.status()).isEqualTo(Status.ACCEPTED);
        assertThat(legacy.coverage(COUPON)).isEqualTo(NOW);
        assertThat(legacy.coverage(TICKET)).isEqualTo(NOW);

        coverage.accept(null, heartbeat("coupons", NOW, "e1", COUPON), NOW);
        assertThat(coverage.coverage(COUPON)).isEqualTo(NOW);
        assertThat(coverage.coverage(TICKET)).isEqualTo(HeartbeatCoverage.UNCOVERED);
    }

    @Test
    void aHeartbeatDatedBeyondTheToleranceInTheFutureIsClampedToNow() {
        Outcome slightlyAhead = coverage.accept("coupons", heartbeat("coupons", NOW + 900, "e1", COUPON), NOW);
        assertThat(slightlyAhead.clamped()).isFalse();
        assertThat(coverage.coverage(COUPON)).isEqualTo(NOW + 900);

        Outcome hourAhead = coverage.accept("tickets", heartbeat("tickets", NOW + 3_600_000, "e1", TICKET), NOW);
        assertThat(hourAhead.clamped()).isTrue();
        assertThat(hourAhead.tsMillis()).isEqualTo(NOW);
        assertThat(coverage.coverage(TICKET)).isEqualTo(NOW);
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
