package dev.cdccache.client.consuming;

import static dev.cdccache.client.consuming.Parts.COUPON;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.metrics.ErrorReason;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The failure handling on its own: what each kind of failure counts, reports and evicts. */
class FailureRecoveryTest {

    private final Parts parts = new Parts();
    private final TopicAssignment topics = new TopicAssignment(parts.kafka, parts.router, Set.of(COUPON),
            Duration.ofSeconds(1), 1_000);
    private final FailureRecovery recovery = new FailureRecovery(parts.kafka, topics, parts.router, parts.guard,
            List.of(parts.freshness), parts.metrics, parts.clock::get, Duration.ofMillis(1), Duration.ofSeconds(1));

    @Test
    void aKafkaFailureOrARestartMakesTheClientAndEveryCacheReportAFailingConsumer() {
        recovery.kafkaFailed(new KafkaException("simulated: broker unreachable"));
        assertThat(parts.metrics.errorCount(ErrorReason.CONSUMER_FAILURE)).isEqualTo(1);
        assertThat(parts.cacheGuard.status().problem()).contains("broker unreachable");
        assertThat(parts.guard.status().problem()).contains("broker unreachable");

        recovery.restartAfter(new IllegalStateException("a bug"));
        assertThat(parts.metrics.errorCount(ErrorReason.CONSUMER_RESTART)).isEqualTo(1);
        assertThat(parts.cacheGuard.status().problem()).contains("restarting");

        parts.cacheGuard.positionsChecked(parts.clock.get()); // what a completed check does
        assertThat(parts.cacheGuard.status().problem()).isNull();
    }

    @Test
    void lostEventsMoveThePartitionToItsEndAndEvictTheCachesOfItsTopic() {
        parts.topics(COUPON);
        topics.refresh();
        TopicPartition tp = new TopicPartition(COUPON, 0);
        parts.kafka.updateEndOffsets(Map.of(tp, 9L));
        parts.load(1);
        recovery.recoverLostEvents(Set.of(tp));
        assertThat(parts.cached(1)).isFalse();
        assertThat(recovery.hasLostEvents()).isFalse();
        assertThat(parts.kafka.position(tp)).isEqualTo(9);
        assertThat(parts.metrics.errorCount(ErrorReason.OFFSET_OUT_OF_RANGE)).isEqualTo(1);
    }

    @Test
    void anInterruptIsNotAStopItIsClearedCountedAndMakesEveryCacheReportAFailingConsumer() {
        Thread.currentThread().interrupt();
        try {
            recovery.restartAfter(new IllegalStateException("a bug"));
            assertThat(Thread.currentThread().isInterrupted()).as("cleared, so the next Kafka call works").isFalse();
            assertThat(parts.metrics.errorCount(ErrorReason.CONSUMER_FAILURE)).isEqualTo(1);
            assertThat(parts.metrics.errorCount(ErrorReason.CONSUMER_RESTART)).isEqualTo(1);
            assertThat(parts.cacheGuard.status().fresh()).isFalse();

            recovery.interrupted(new InterruptedException("simulated"));
            assertThat(parts.metrics.errorCount(ErrorReason.CONSUMER_FAILURE)).isEqualTo(2);
            assertThat(parts.guard.status().problem()).contains("interrupted");
        } finally {
            Thread.interrupted();
        }
    }
}
