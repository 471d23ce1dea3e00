package dev.cdccache.client.staleness;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.StalenessCheck;
import dev.cdccache.client.StalenessPolicy;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * {@code staleness-check: scheduled}: hits compare with a threshold that {@link StalenessGuard#tick()}
 * precomputes. The clock here moves only when a test moves it, and ticks run only when a test runs them.
 */
class ScheduledStalenessCheckTest {

    private static final Duration MAX_STALENESS = Duration.ofSeconds(5);
    private static final Duration SLACK = Duration.ofMillis(1_250);

    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final AtomicLong clockReads = new AtomicLong();
    private final StalenessGuard guard = new StalenessGuard(() -> {
        clockReads.incrementAndGet();
        return clock.get();
    }, MAX_STALENESS, StalenessPolicy.BYPASS_CACHE, true, StalenessCheck.SCHEDULED, SLACK);

    private void confirmedWithHeartbeatAged(StalenessGuard g, long age) {
        g.heartbeatApplied(clock.get() - age);
        g.positionsConfirmed(clock.get(), g.lastHeartbeat());
    }

    @Test
    void nothingIsServedBeforeTheFirstCheck() {
        guard.markReady();
        assertThat(guard.needsTicks()).isTrue();
        assertThat(guard.isServable(clock.get())).isFalse();
        guard.tick();
        assertThat(guard.isServable(clock.get())).isTrue();
    }

    @Test
    void aFreshWatermarkServesEveryEntryAndHitsReadNoClock() {
        guard.markReady();
        confirmedWithHeartbeatAged(guard, 100);
        guard.tick();
        long reads = clockReads.get();
        assertThat(guard.isServable(clock.get() - 3_600_000)).isTrue();
        assertThat(guard.isServable(clock.get())).isTrue();
        assertThat(clockReads.get()).as("clock reads by hits").isEqualTo(reads);
    }

    @Test
    void withAStalledWatermarkEntriesAreServedForMaxStalenessMinusTheSlack() {
        guard.markReady();
        confirmedWithHeartbeatAged(guard, 0);
        for (int i = 0; i < 100; i++) { // 10 s without a heartbeat, checks every 100 ms
            clock.addAndGet(100);
            guard.tick();
        }
        long servedFor = MAX_STALENESS.toMillis() - SLACK.toMillis();
        assertThat(guard.isServable(clock.get() - servedFor)).isTrue();
        assertThat(guard.isServable(clock.get() - servedFor - 1)).isFalse();
        assertThat(guard.overruns()).isZero();
    }

    @Test
    void servingResumesAsSoonAsTheWatermarkAdvances() {
        guard.markReady();
        long loadedAt = clock.get();
        guard.tick();
        clock.addAndGet(10_000);
        guard.tick();
        assertThat(guard.isServable(loadedAt)).isFalse();
        confirmedWithHeartbeatAged(guard, 200); // no scheduled check in between
        assertThat(guard.isServable(loadedAt)).isTrue();
    }

    @Test
    void theBoundHoldsBetweenChecksAsLongAsNoneIsLaterThanTheSlack() {
        // Whatever the precomputed check serves, the exact check (one clock read per hit) serves too, at any
        // moment up to the slack after the latest check, while heartbeats come, stall and resume at random.
        StalenessGuard exact = new StalenessGuard(clock::get, MAX_STALENESS, StalenessPolicy.BYPASS_CACHE, true);
        guard.markReady();
        exact.markReady();
        SplittableRandom random = new SplittableRandom(42);
        long servedByBoth = 0;
        guard.tick();
        for (int step = 0; step < 20_000; step++) {
            long lastTick = clock.get();
            if (random.nextInt(10) < 3) {
                long age = random.nextLong(0, 8_000);
                confirmedWithHeartbeatAged(guard, age);
                exact.heartbeatApplied(clock.get() - age);
                exact.positionsConfirmed(clock.get(), exact.lastHeartbeat());
                if (random.nextBoolean()) {
                    guard.tick();
                    lastTick = clock.get();
                }
            }
            // Probe hits at moments up to the slack after the latest check, with entries of any age.
            long gap = random.nextLong(0, SLACK.toMillis() + 1);
            clock.set(lastTick + gap);
            for (int probe = 0; probe < 5; probe++) {
                long loadedAt = clock.get() - random.nextLong(0, 12_000);
                if (guard.isServable(loadedAt)) {
                    assertThat(exact.isServable(loadedAt))
                            .as("entry aged %d ms at %d ms after the check", clock.get() - loadedAt, gap).isTrue();
                    servedByBoth++;
                }
            }
            guard.tick();
        }
        assertThat(servedByBoth).as("hits served (the property must not hold vacuously)").isGreaterThan(10_000);
        assertThat(guard.overruns()).isZero();
    }

    @Test
    void aCheckLaterThanTheSlackIsCountedAsAnOverrun() {
        guard.markReady();
        guard.tick();
        clock.addAndGet(SLACK.toMillis());
        guard.tick();
        assertThat(guard.overruns()).isZero();
        clock.addAndGet(SLACK.toMillis() + 1);
        guard.tick();
        assertThat(guard.overruns()).isEqualTo(1);
        assertThat(guard.status().checkOverruns()).isEqualTo(1);
    }

    @Test
    void untilTheSlackHasPassedTheThresholdServesExactlyWhatTheClockWould() {
        guard.markReady();
        guard.tick();
        long oldestServed = clock.get() + SLACK.toMillis() - MAX_STALENESS.toMillis();
        clock.addAndGet(SLACK.toMillis()); // the last moment the threshold is valid: that entry is exactly max old
        guard.tickIfLate(clock.get());
        assertThat(guard.isServable(oldestServed)).isTrue();
        assertThat(guard.isServable(oldestServed - 1)).isFalse();
        assertThat(guard.overruns()).isZero();
    }

    @Test
    void aStalledTickerMakesEntriesMissOnceAnyThreadReadingTheClockSeesIt() {
        // The error of a precomputed threshold goes one way: the longer nobody recomputes it, the older the entries
        // it serves. So whoever reads the clock (a load, the consumer loop, a health check) replaces an outdated one.
        guard.markReady();
        guard.tick();
        long oldestServed = clock.get() + SLACK.toMillis() - MAX_STALENESS.toMillis();
        clock.addAndGet(SLACK.toMillis() + 1); // the ticker is 1 ms later than the slack allows
        guard.tickIfLate(clock.get());
        assertThat(guard.isServable(oldestServed)).as("an entry older than max-staleness").isFalse();
        assertThat(guard.isServable(clock.get() + SLACK.toMillis() - MAX_STALENESS.toMillis())).isTrue();
        assertThat(guard.overruns()).isEqualTo(1);

        clock.addAndGet(10_000); // a health check finds it out of date too
        assertThat(guard.status().checkOverruns()).isEqualTo(2);
        assertThat(guard.isServable(clock.get() - MAX_STALENESS.toMillis())).isFalse();
    }

    @Test
    void aCurrentThresholdIsNotRecomputedByThreadsThatOnlyCheckIt() {
        guard.markReady();
        guard.tick();
        long reads = clockReads.get();
        clock.addAndGet(SLACK.toMillis());
        guard.tickIfLate(clock.get());
        assertThat(clockReads.get()).as("clock reads of a recomputation").isEqualTo(reads);
    }

    @Test
    void onceTheChecksStopNothingIsServed() {
        guard.markReady();
        confirmedWithHeartbeatAged(guard, 0);
        guard.tick();
        assertThat(guard.isServable(clock.get())).isTrue();
        guard.stopTicks();
        confirmedWithHeartbeatAged(guard, 0); // a late position check must not revive the threshold
        assertThat(guard.isServable(clock.get())).isFalse();
    }

    @Test
    void serveStaleNeedsNoChecks() {
        StalenessGuard serveStale = new StalenessGuard(clock::get, MAX_STALENESS, StalenessPolicy.SERVE_STALE, true,
                StalenessCheck.SCHEDULED, SLACK);
        assertThat(serveStale.needsTicks()).isFalse();
        assertThat(serveStale.isServable(clock.get() - 3_600_000)).isTrue();
    }
}
