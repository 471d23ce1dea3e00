package dev.cdccache.client.consuming;

import static dev.cdccache.client.consuming.Parts.COUPON;
import static dev.cdccache.client.consuming.Parts.HEARTBEAT;
import static dev.cdccache.client.consuming.Parts.MAX_STALENESS;
import static dev.cdccache.client.consuming.Parts.TABLE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.staleness.HeartbeatCoverage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The freshness proof on its own: a fake clock, Kafka's MockConsumer, heartbeats applied straight to the coverage. */
class PositionProverTest {

    private final Parts parts = new Parts();
    private final HeartbeatCoverage coverage = new HeartbeatCoverage(Map.of(COUPON, Set.of(TABLE)));
    private final AtomicInteger readyCalls = new AtomicInteger();
    private final TopicAssignment topics = new TopicAssignment(parts.kafka, parts.router, Set.of(COUPON, HEARTBEAT),
            Duration.ofSeconds(1), 1_000);
    private final PositionProver prover = new PositionProver(parts.kafka, topics, coverage,
            new TopicPolicyCheck(new NoPolicies(), Set.of(COUPON)), parts.guard, List.of(parts.freshness),
            new ProblemReporter(parts.guard, List.of(parts.freshness), topics, coverage, parts.metrics, HEARTBEAT,
                    true, true, 250),
            parts.metrics, parts.clock::get, readyCalls::incrementAndGet, Duration.ofSeconds(1),
            Duration.ofMillis(200), true, true, parts.proven);

    /** Lookups that never answer: no topic is known to be compacted. */
    static final class NoPolicies implements TopicPolicies {
        @Override
        public CompletableFuture<Map<String, String>> cleanupPolicies(Set<String> topics) {
            return new CompletableFuture<>();
        }

        @Override
        public void close() {
        }
    }

    private void beat(long tsMillis) {
        coverage.accept("c1", new HeartbeatCoverage.Heartbeat("c1", false, tsMillis, "e1", Set.of(TABLE)),
                parts.clock.get());
    }

    @Test
    void aCheckCompletesOnlyOnceThePositionsReachTheEndOffsetsLookedUpAtItsStart() {
        parts.topics(COUPON, HEARTBEAT);
        prover.startCheck();
        assertThat(prover.tryCompleteCheck()).as("positioned at the end at the first listing").isTrue();
        assertThat(readyCalls).hasValue(1);

        long proven = parts.clock.get();
        beat(proven);
        parts.clock.addAndGet(200);
        TopicPartition tp = new TopicPartition(COUPON, 0);
        parts.kafka.updateEndOffsets(Map.of(tp, 2L)); // two records not read yet
        prover.startCheck();
        beat(parts.clock.get()); // applied after the check started: not part of its proof
        assertThat(prover.tryCompleteCheck()).isFalse();
        assertThat(parts.cacheGuard.watermark()).isEqualTo(Long.MIN_VALUE);

        parts.kafka.addRecord(new ConsumerRecord<>(COUPON, 0, 0, null, null));
        parts.kafka.addRecord(new ConsumerRecord<>(COUPON, 0, 1, null, null));
        parts.kafka.poll(Duration.ZERO);
        assertThat(prover.tryCompleteCheck()).isTrue();
        assertThat(parts.cacheGuard.watermark()).as("the coverage when the check started").isEqualTo(proven);
        assertThat(readyCalls).as("ready once").hasValue(1);
    }

    @Test
    void aWatermarkThatMovesAgainAfterAGapLongerThanTheBoundEvictsItsCacheBeforeItIsServedAgain() {
        parts.topics(COUPON, HEARTBEAT);
        beat(parts.clock.get());
        prover.startCheck();
        prover.tryCompleteCheck();
        parts.load(1);

        parts.clock.addAndGet(MAX_STALENESS.toMillis() + 1_000); // no heartbeat meanwhile
        long again = parts.clock.get();
        beat(again);
        prover.startCheck();
        prover.tryCompleteCheck();
        assertThat(parts.cached(1)).isFalse();
        assertThat(parts.metrics.unprovenEvictions(PositionProver.FRESHNESS_GAP)).isEqualTo(1);
        assertThat(parts.cacheGuard.watermark()).isEqualTo(again);
    }

    @Test
    void aCheckIsDueAgainOnlyAnIntervalAfterTheLastOneStarted() {
        parts.topics(COUPON, HEARTBEAT);
        assertThat(prover.checkDue()).isTrue();
        prover.startCheck();
        assertThat(prover.checkDue()).as("one in progress").isFalse();
        prover.tryCompleteCheck();
        parts.clock.addAndGet(199);
        assertThat(prover.checkDue()).isFalse();
        parts.clock.addAndGet(1);
        assertThat(prover.checkDue()).isTrue();
    }
}
