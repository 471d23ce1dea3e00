package dev.cdccache.client.consuming;

import static dev.cdccache.client.consuming.Parts.COUPON;
import static dev.cdccache.client.consuming.Parts.HEARTBEAT;
import static dev.cdccache.client.consuming.Parts.MAX_STALENESS;
import static dev.cdccache.client.consuming.Parts.TABLE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.cdccache.client.StalenessPolicy;
import dev.cdccache.client.eviction.EvictionRouter;
import dev.cdccache.client.staleness.CacheFreshness;
import dev.cdccache.client.staleness.FreshnessProblem;
import dev.cdccache.client.staleness.FreshnessProblem.Kind;
import dev.cdccache.client.staleness.HeartbeatCoverage;
import dev.cdccache.client.staleness.StalenessGuard;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What is reported after a check, and to whom, on its own: checks are built by hand. */
class ProblemReporterTest {

    private static final String MISSING = "cdc.coupon_db.missing";

    private final Parts parts = new Parts();
    private final CacheFreshness other = new CacheFreshness("other", new StalenessGuard(parts.clock::get,
            MAX_STALENESS, StalenessPolicy.BYPASS_CACHE, true), List.of(
            new CacheFreshness.Source("coupon_db.missing", MISSING)), () -> { });
    private final HeartbeatCoverage coverage = new HeartbeatCoverage(Map.of(COUPON, Set.of(TABLE),
            MISSING, Set.of("coupon_db.missing")));
    private final TopicAssignment topics = new TopicAssignment(parts.kafka, parts.router, Set.of(COUPON, HEARTBEAT),
            Duration.ofSeconds(1), 1_000);
    private final ProblemReporter reporter = new ProblemReporter(parts.guard, List.of(parts.freshness), topics,
            coverage, parts.metrics, HEARTBEAT, true, true, 250);

    private PositionProver.Check check(Set<String> missing) {
        return new PositionProver.Check(parts.clock.get(), Long.MIN_VALUE, coverage.coverageOfBoundTables(),
                coverage.coverageOfBoundTopics(), missing, Set.of(COUPON), Map.of(), Map.of());
    }

    private List<Kind> kinds() {
        return parts.guard.status().problems().stream().map(FreshnessProblem::kind).toList();
    }

    @Test
    void aProblemReachesTheClientAndOnlyTheCachesItConcerns() {
        ProblemReporter twoCaches = new ProblemReporter(parts.guard, List.of(parts.freshness, other), topics,
                coverage, parts.metrics, HEARTBEAT, true, true, 250);
        coverage.accept("c1", new HeartbeatCoverage.Heartbeat("c1", false, parts.clock.get(), "e1",
                Set.of(TABLE, "coupon_db.missing")), parts.clock.get());
        twoCaches.publish(check(Set.of(MISSING)), Set.of(COUPON), parts.clock.get(), parts.clock.get());
        assertThat(kinds()).containsExactlyInAnyOrder(Kind.MISSING_TOPIC, Kind.COMPACTED_TOPIC);
        assertThat(parts.cacheGuard.status().problems()).extracting(FreshnessProblem::kind)
                .as("the coupon cache's own").containsExactly(Kind.COMPACTED_TOPIC);
        assertThat(other.guard().status().problems()).extracting(FreshnessProblem::kind)
                .containsExactly(Kind.MISSING_TOPIC);
    }

    @Test
    void anUncoveredTableOrASilentFeederIsReportedOnlyOnceItOutlastsTheBoundAfterReady() {
        long readyAt = parts.clock.get();
        coverage.fedBy(COUPON, "c1"); // a record of c1, none of its heartbeats yet
        reporter.publish(check(Set.of()), Set.of(), readyAt + 1_000, readyAt);
        assertThat(kinds()).as("the first heartbeat takes an interval").isEmpty();

        reporter.publish(check(Set.of()), Set.of(), readyAt + MAX_STALENESS.toMillis() + 1, readyAt);
        assertThat(kinds()).containsExactlyInAnyOrder(Kind.UNCOVERED_TABLE, Kind.SILENT_CONNECTOR);
    }

    @Test
    void aFeederWhoseHeartbeatIsOlderThanTheBoundIsSilentAndASkewedClockIsReported() {
        long now = parts.clock.get();
        coverage.accept("c1", new HeartbeatCoverage.Heartbeat("c1", false, now - 6_000, "e1", Set.of(TABLE)), now);
        coverage.accept("c2", new HeartbeatCoverage.Heartbeat("c2", false, now + 400, "e1", Set.of(TABLE)), now);
        reporter.publish(check(Set.of()), Set.of(), now, now);
        assertThat(parts.guard.status().problems()).extracting(FreshnessProblem::kind, FreshnessProblem::subject)
                .containsExactlyInAnyOrder(tuple(Kind.SILENT_CONNECTOR, COUPON),
                        tuple(Kind.CLOCK_SKEW, "c2"));
        assertThat(parts.guard.status().problems()).filteredOn(p -> p.kind() == Kind.SILENT_CONNECTOR)
                .singleElement().satisfies(p -> assertThat(p.message()).contains("'c1'"));
    }

    @Test
    void aKeyColumnEventsLackIsAConfigurationProblemOfItsCacheNamingTheColumn() {
        List<EvictionRouter.MissingColumn> missing = new java.util.ArrayList<>(
                List.of(new EvictionRouter.MissingColumn(COUPON, "coupons", "place_id")));
        ProblemReporter reporter = new ProblemReporter(parts.guard, List.of(parts.freshness, other), topics, coverage,
                parts.metrics, HEARTBEAT, true, false, 250, () -> missing);
        reporter.publish(check(Set.of()), Set.of(), parts.clock.get(), parts.clock.get());

        assertThat(parts.cacheGuard.status().problems()).singleElement().satisfies(p -> {
            assertThat(p.kind()).isEqualTo(Kind.MISSING_COLUMN);
            assertThat(p.kind().configuration()).isTrue();
            assertThat(p.message()).contains("lack column 'place_id'").contains("cdc.connector.columns.include");
        });
        assertThat(parts.cacheGuard.status().fresh()).as("not fresh while events lack the column").isFalse();
        assertThat(other.guard().status().problems()).as("another cache is not concerned").isEmpty();

        missing.clear();
        reporter.publish(check(Set.of()), Set.of(), parts.clock.get(), parts.clock.get());
        assertThat(parts.cacheGuard.status().problems()).as("gone once events carry it").isEmpty();
    }
}
