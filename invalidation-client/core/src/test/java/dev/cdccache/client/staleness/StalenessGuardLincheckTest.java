package dev.cdccache.client.staleness;

import dev.cdccache.client.StalenessPolicy;
import java.time.Duration;
import org.jetbrains.kotlinx.lincheck.LinChecker;
import org.jetbrains.kotlinx.lincheck.annotations.Operation;
import org.jetbrains.kotlinx.lincheck.annotations.Param;
import org.jetbrains.kotlinx.lincheck.paramgen.IntGen;
import org.jetbrains.kotlinx.lincheck.strategy.managed.modelchecking.ModelCheckingOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The freshness state of {@link StalenessGuard} under Lincheck's model checker: the consumer thread records
 * heartbeats, position checks and failures while hit paths ask whether an entry may be served and health asks
 * whether the client is fresh. Every interleaving of small scenarios must give answers that some order of the same
 * calls gives in {@link Model}, the guard's documented semantics written out sequentially: the watermark is the
 * newest heartbeat seen at a completed position check and never goes back; a failing consumer is not fresh until
 * its next position check; an entry read at L is served only if {@code now - max(L, watermark) <= max-staleness}.
 *
 * <p>The consumer's calls share a non-parallel group, as they come from one consumer thread. The clock is fixed
 * ({@link #NOW}); loads and heartbeats are dated 500 ms apart before it, around a 1 s bound.
 *
 * <p>Run alone: {@code ./mvnw -B -pl invalidation-client/core test -Dtest=StalenessGuardLincheckTest}.
 */
@Param(name = "time", gen = IntGen.class, conf = "1:3")
public class StalenessGuardLincheckTest {

    static final long NOW = 10_000;
    static final long MAX_STALENESS = 1_000;

    /** 8,500, 9,000 or 9,500: older than the bound, at it, within it. */
    static long time(int step) {
        return NOW - 2_000 + 500L * step;
    }

    private final StalenessGuard guard = new StalenessGuard(() -> NOW, Duration.ofMillis(MAX_STALENESS),
            StalenessPolicy.BYPASS_CACHE, true);

    public StalenessGuardLincheckTest() {
        guard.markReady();
    }

    @Operation(nonParallelGroup = "consumer")
    public void heartbeat(@Param(name = "time") int step) {
        guard.heartbeatApplied(time(step));
    }

    /** A position check that completes: as the consumer does, with the heartbeat applied when it started. */
    @Operation(nonParallelGroup = "consumer")
    public void positionCheck() {
        guard.positionsConfirmed(NOW, guard.lastHeartbeat());
    }

    @Operation(nonParallelGroup = "consumer")
    public void consumerFails() {
        guard.consumerFailing("consumer down");
    }

    @Operation
    public boolean servable(@Param(name = "time") int loadedAt) {
        return guard.isServable(time(loadedAt));
    }

    @Operation
    public boolean fresh() {
        return guard.status().fresh();
    }

    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a hang fails, not blocks the build
    void servingAndHealthAgreeWithTheDocumentedStateInEveryInterleaving() {
        LinChecker.check(StalenessGuardLincheckTest.class, new ModelCheckingOptions()
                .sequentialSpecification(Model.class)
                .iterations(10)
                .invocationsPerIteration(100)
                .threads(2)
                .actorsPerThread(3)
                .actorsBefore(2)
                .actorsAfter(1));
    }

    /** The guard's semantics, one call at a time (the sequential specification). */
    public static final class Model {
        private long lastHeartbeat = Long.MIN_VALUE;
        private long watermark = Long.MIN_VALUE;
        private boolean failing;

        public void heartbeat(int step) {
            lastHeartbeat = Math.max(lastHeartbeat, time(step));
        }

        public void positionCheck() {
            failing = false;
            watermark = Math.max(watermark, lastHeartbeat);
        }

        public void consumerFails() {
            failing = true;
        }

        public boolean servable(int loadedAt) {
            return NOW - Math.max(time(loadedAt), watermark) <= MAX_STALENESS;
        }

        public boolean fresh() {
            return !failing && watermark != Long.MIN_VALUE && NOW - watermark <= MAX_STALENESS;
        }
    }
}
