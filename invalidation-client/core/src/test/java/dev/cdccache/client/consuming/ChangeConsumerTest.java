package dev.cdccache.client.consuming;

import static dev.cdccache.client.consuming.Parts.COUPON;
import static dev.cdccache.client.consuming.Parts.HEARTBEAT;
import static dev.cdccache.client.consuming.Parts.TABLE;
import static dev.cdccache.client.consuming.Parts.heartbeat;
import static dev.cdccache.client.consuming.Parts.record;
import static dev.cdccache.client.consuming.Parts.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.StalenessCheck;
import dev.cdccache.client.StalenessPolicy;
import dev.cdccache.client.staleness.CacheFreshness;
import dev.cdccache.client.staleness.StalenessGuard;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The loop itself with Kafka's MockConsumer, stepped by the test or run on its own thread. */
class ChangeConsumerTest {

    private final Parts parts = new Parts();
    private final CountDownLatch ready = new CountDownLatch(1);

    private ChangeConsumer consumer() {
        InvalidationClientConfig config = InvalidationClientConfig.builder().bootstrapServers("mock:9092")
                .clock(parts.clock::get).pollTimeout(Duration.ofMillis(1)).build();
        return new ChangeConsumer(new ChangeConsumer.Setup(config, parts.kafka, parts.router, parts.guard,
                List.of(parts.freshness), parts.metrics, new PositionProverTest.NoPolicies(), ready::countDown));
    }

    @Test
    void stepsPositionAtTheEndThenApplyWhatIsProducedAndProveItWithTheHeartbeat() {
        parts.topics(COUPON, HEARTBEAT);
        ChangeConsumer loop = consumer();
        assertThat(loop.subscribedTopics()).containsExactlyInAnyOrder(COUPON, HEARTBEAT);
        loop.step();
        assertThat(ready.getCount()).isZero();

        parts.load(1);
        long written = parts.clock.get();
        parts.kafka.addRecord(record(COUPON, 0, update(1), "c1"));
        parts.kafka.addRecord(record(HEARTBEAT, 0, heartbeat("c1", written, TABLE), "c1"));
        parts.kafka.updateEndOffsets(Map.of(new TopicPartition(COUPON, 0), 1L, new TopicPartition(HEARTBEAT, 0), 1L));
        loop.step(); // applies both (the check started before them proves nothing yet)
        assertThat(parts.cached(1)).isFalse();
        parts.clock.addAndGet(200);
        loop.step(); // the next check starts after the heartbeat was applied and completes at once
        assertThat(parts.cacheGuard.watermark()).isEqualTo(written);
    }

    @Test
    void everyIterationRecomputesTheStalenessThresholdsSoAStalledTickerCannotKeepAnOutdatedOne() {
        parts.topics(COUPON, HEARTBEAT);
        Duration slack = Duration.ofMillis(500);
        StalenessGuard clientGuard = new StalenessGuard(parts.clock::get, Parts.MAX_STALENESS,
                StalenessPolicy.BYPASS_CACHE, true, StalenessCheck.SCHEDULED, slack);
        StalenessGuard cacheGuard = new StalenessGuard(parts.clock::get, Parts.MAX_STALENESS,
                StalenessPolicy.BYPASS_CACHE, true, StalenessCheck.SCHEDULED, slack);
        InvalidationClientConfig config = InvalidationClientConfig.builder().bootstrapServers("mock:9092")
                .clock(parts.clock::get).pollTimeout(Duration.ofMillis(1)).build();
        ChangeConsumer loop = new ChangeConsumer(new ChangeConsumer.Setup(config, parts.kafka, parts.router,
                clientGuard, List.of(new CacheFreshness("coupons", cacheGuard, parts.freshness.sources(),
                        parts.coupons::invalidateAll)), parts.metrics, new PositionProverTest.NoPolicies(),
                ready::countDown));
        // The ticker's last run; no heartbeat has come, so entries are served for max-staleness minus the slack.
        clientGuard.tick();
        cacheGuard.tick();
        long oldestServed = parts.clock.get() + slack.toMillis() - Parts.MAX_STALENESS.toMillis();
        assertThat(cacheGuard.isServable(oldestServed)).isTrue();

        // The ticker stalls past the slack: that entry is now older than max-staleness.
        parts.clock.addAndGet(slack.toMillis() + 1);
        loop.step();

        assertThat(cacheGuard.isServable(oldestServed)).as("served past the bound").isFalse();
        assertThat(clientGuard.isServable(oldestServed)).isFalse();
        assertThat(cacheGuard.isServable(oldestServed + slack.toMillis() + 1)).as("a younger entry still served")
                .isTrue();
        assertThat(cacheGuard.overruns()).as("the late recomputation is reported").isEqualTo(1);
    }

    @Test
    void stopEndsTheLoopOnItsThreadAndClosesTheConsumer() throws InterruptedException {
        parts.topics(COUPON, HEARTBEAT);
        ChangeConsumer loop = consumer();
        Thread thread = new Thread(loop, "test-consumer");
        thread.start();
        assertThat(ready.await(5, TimeUnit.SECONDS)).isTrue();
        loop.stop();
        thread.join(5_000);
        assertThat(thread.isAlive()).isFalse();
        await().atMost(Duration.ofSeconds(1)).until(parts.kafka::closed);
    }
}
