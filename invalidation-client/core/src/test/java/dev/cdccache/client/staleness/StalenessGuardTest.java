package dev.cdccache.client.staleness;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.StalenessPolicy;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Bounded staleness (docs/client.md, guarantee 4) with a controllable clock: which entries are served as the watermark moves or stalls. */
class StalenessGuardTest {

    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final StalenessGuard guard = new StalenessGuard(clock::get, Duration.ofSeconds(5),
            StalenessPolicy.BYPASS_CACHE, true);

    private void advance(long millis) {
        clock.addAndGet(millis);
    }

    /** The consumer confirmed its position at "now" while the latest heartbeat was written {@code age} ago. */
    private void confirmedWithHeartbeatAged(long age) {
        guard.heartbeatApplied(clock.get() - age);
        guard.positionsConfirmed(clock.get(), guard.lastHeartbeat());
    }

    @Test
    void withoutAWatermarkOnlyEntriesLoadedWithinTheBoundAreServed() {
        guard.markReady();
        long loadedNow = clock.get();
        assertThat(guard.isServable(loadedNow)).isTrue();
        advance(5_000);
        assertThat(guard.isServable(loadedNow)).isTrue();
        advance(1);
        assertThat(guard.isServable(loadedNow)).isFalse();
        assertThat(guard.status().fresh()).isFalse();
    }

    @Test
    void anEntryWithoutItsLoadTimeIsServedOnlyUnderAWatermarkWithinTheBound() {
        guard.markReady();
        long unknown = dev.cdccache.client.cache.CachedValue.UNKNOWN_LOAD;
        assertThat(guard.isServable(unknown)).as("no watermark yet").isFalse();
        assertThat(guard.isServable(unknown, clock.get())).isFalse();
        confirmedWithHeartbeatAged(0);
        assertThat(guard.isServable(unknown)).isTrue();
        advance(5_001);
        assertThat(guard.isServable(unknown)).isFalse();
    }

    @Test
    void theBoundHoldsAtEveryHitWithoutAnyBackgroundRefresh() {
        // Regression (consistency verifier, long runs): a threshold precomputed by a timer thread was served
        // from after that thread fell behind, so entries 3,001-3,286 ms old passed a 3,000 ms bound.
        // Only the clock moves here; nothing recomputes anything between the two checks.
        guard.markReady();
        confirmedWithHeartbeatAged(0);
        long loadedLongAgo = clock.get() - 60_000;
        assertThat(guard.isServable(loadedLongAgo)).as("covered by a fresh watermark").isTrue();
        advance(5_001);
        assertThat(guard.isServable(loadedLongAgo)).as("watermark and load both older than the bound").isFalse();
    }

    @Test
    void aBatchCheckAgainstOneClockReadingAppliesTheSameBound() {
        guard.markReady();
        confirmedWithHeartbeatAged(0);
        long loaded = clock.get() - 60_000;
        long now = clock.get();
        assertThat(guard.isServable(loaded, now)).isTrue();
        assertThat(guard.isServable(loaded, now + 5_001)).isFalse();
        assertThat(guard.isServable(now + 1, now + 5_001)).as("loaded within the bound of that reading").isTrue();
    }

    @Test
    void aFreshWatermarkServesOldEntries() {
        guard.markReady();
        long loadedLongAgo = clock.get();
        advance(60_000);
        confirmedWithHeartbeatAged(1_000);
        assertThat(guard.isServable(loadedLongAgo)).isTrue();
        assertThat(guard.status().fresh()).isTrue();
        assertThat(guard.status().watermarkAgeMillis()).isEqualTo(1_000);
    }

    @Test
    void whenHeartbeatsStopEntriesOlderThanTheBoundStopBeingServedAndServingResumesAfterRecovery() {
        guard.markReady();
        long loadedAt = clock.get();
        confirmedWithHeartbeatAged(500);
        advance(1_000);
        // Connector stopped: positions are still confirmed, but no newer heartbeat arrives.
        for (int i = 0; i < 20; i++) {
            guard.positionsConfirmed(clock.get(), guard.lastHeartbeat());
            advance(250);
        }
        assertThat(guard.status().fresh()).isFalse();
        assertThat(guard.isServable(loadedAt)).isFalse();
        long loadedRecently = clock.get() - 1_000;
        assertThat(guard.isServable(loadedRecently)).isTrue();

        // Connector back: heartbeats flow and the consumer catches up.
        confirmedWithHeartbeatAged(800);
        assertThat(guard.status().fresh()).isTrue();
        assertThat(guard.isServable(loadedAt)).isTrue();
    }

    @Test
    void aHeartbeatAppliedAfterThePositionCheckStartedDoesNotAdvanceTheWatermark() {
        guard.markReady();
        long checkStart = clock.get();
        long heartbeatAtStart = guard.lastHeartbeat(); // none yet
        guard.heartbeatApplied(clock.get());          // arrives while the check is pending
        guard.positionsConfirmed(checkStart, heartbeatAtStart);
        assertThat(guard.status().watermarkMillis()).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void withoutRequiredHeartbeatsThePositionCheckTimeIsTheWatermark() {
        StalenessGuard positionsOnly = new StalenessGuard(clock::get, Duration.ofSeconds(5),
                StalenessPolicy.BYPASS_CACHE, false);
        positionsOnly.markReady();
        positionsOnly.positionsConfirmed(clock.get(), Long.MIN_VALUE);
        assertThat(positionsOnly.status().watermarkMillis()).isEqualTo(clock.get());
        assertThat(positionsOnly.status().fresh()).isTrue();
    }

    @Test
    void serveStaleServesEverythingButStillReportsTheState() {
        StalenessGuard serveStale = new StalenessGuard(clock::get, Duration.ofSeconds(5),
                StalenessPolicy.SERVE_STALE, true);
        serveStale.markReady();
        long loadedAt = clock.get();
        clock.addAndGet(60_000);
        assertThat(serveStale.isServable(loadedAt)).isTrue();
        assertThat(serveStale.status().fresh()).isFalse();
    }

    @Test
    void aProblemIsReportedUntilTheNextConfirmedPosition() {
        guard.positionUnconfirmed("TimeoutException: broker unreachable");
        assertThat(guard.status().problem()).contains("unreachable");
        guard.positionsConfirmed(clock.get(), Long.MIN_VALUE);
        assertThat(guard.status().problem()).isNull();
    }
}
