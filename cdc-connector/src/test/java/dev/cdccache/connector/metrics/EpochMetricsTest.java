package dev.cdccache.connector.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.connector.continuity.Continuity;
import dev.cdccache.connector.continuity.Continuity.Verdict;
import dev.cdccache.connector.continuity.ContinuityState;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** The epoch meters follow the epochs the connector starts, and only those: clients evict on each of them. */
class EpochMetricsTest {

    private static final Instant CHECKED_AT = Instant.parse("2026-11-26T06:00:00Z");

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ContinuityState state = new ContinuityState(new EpochMetrics(registry)::epochStarted);

    @Test
    void theMetersAreExportedAtZeroBeforeAnyEpochChange() {
        assertThat(changes(true)).isZero();
        assertThat(changes(false)).isZero();
        assertThat(gapTime()).isZero();
    }

    @Test
    void resumingTheStoredEpochIsNoChange() {
        state.set(continuity("e1", Verdict.RESUMED));

        assertThat(changes(true) + changes(false)).isZero();
        assertThat(gapTime()).isZero();
    }

    @Test
    void aNewEpochAfterAGapCountsAsAGapAndDatesIt() {
        state.set(continuity("e2", Verdict.POSITION_PURGED));

        assertThat(changes(true)).isEqualTo(1);
        assertThat(changes(false)).isZero();
        assertThat(gapTime()).isEqualTo(CHECKED_AT.getEpochSecond());
    }

    @Test
    void aFirstStartIsAnEpochChangeWithoutGap() {
        state.set(continuity("e1", Verdict.FIRST_START));

        assertThat(changes(false)).isEqualTo(1);
        assertThat(changes(true)).isZero();
        assertThat(gapTime()).isZero();
    }

    @Test
    void aStatementInTheBinlogReplacesTheRunningEpochAndCountsAsAGap() {
        state.set(continuity("e1", Verdict.RESUMED));
        Instant statementAt = CHECKED_AT.plusSeconds(90);

        String epoch = state.renewForStatement("UPDATE coupon SET used = 1", Clock.fixed(statementAt, ZoneOffset.UTC));

        assertThat(epoch).isNotEqualTo("e1");
        assertThat(changes(true)).isEqualTo(1);
        assertThat(gapTime()).isEqualTo(statementAt.getEpochSecond());
    }

    @Test
    void settingTheSameEpochAgainIsNotCountedTwice() {
        Continuity purged = continuity("e2", Verdict.POSITION_PURGED);
        state.set(purged);
        state.set(purged);

        assertThat(changes(true)).isEqualTo(1);
    }

    private static Continuity continuity(String epoch, Verdict verdict) {
        return new Continuity(epoch, verdict, "message", "", CHECKED_AT);
    }

    private double changes(boolean gap) {
        return registry.get("cdc.connector.epoch.changes").tag("gap", Boolean.toString(gap)).counter().count();
    }

    private double gapTime() {
        return registry.get("cdc.connector.epoch.gap.time").gauge().value();
    }
}
