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
import dev.cdccache.client.metrics.ErrorReason;
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
                List.of(parts.freshness), parts.metrics, new PositionProverTest.NoPolicies(), ready::countDown,
                parts.proven));
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

    private static org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]> change(int partition, long offset,
            long id, String gtid) {
        byte[] value = ("{\"op\":\"u\",\"before\":{\"id\":" + id + "},\"after\":{\"id\":" + id
                + "},\"source\":{\"gtid\":\"" + gtid + "\"}}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        org.apache.kafka.common.header.internals.RecordHeaders headers =
                new org.apache.kafka.common.header.internals.RecordHeaders();
        headers.add(ChangeConsumer.CONNECTOR_HEADER, "c1".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return new org.apache.kafka.clients.consumer.ConsumerRecord<>(COUPON, partition, offset,
                org.apache.kafka.clients.consumer.ConsumerRecord.NO_TIMESTAMP,
                org.apache.kafka.common.record.TimestampType.NO_TIMESTAMP_TYPE, -1, value.length, null, value, headers,
                java.util.Optional.empty());
    }

    @Test
    void aLaterGtidAppliedFromOnePartitionDoesNotProveAFloorWhileAnotherPartitionHoldsTheEarlierChange() {
        parts.topics(HEARTBEAT);
        parts.kafka.updatePartitions(COUPON, List.of(new org.apache.kafka.common.PartitionInfo(COUPON, 0, null, null,
                null), new org.apache.kafka.common.PartitionInfo(COUPON, 1, null, null, null)));
        TopicPartition p0 = new TopicPartition(COUPON, 0);
        TopicPartition p1 = new TopicPartition(COUPON, 1);
        parts.kafka.updateBeginningOffsets(Map.of(p0, 0L, p1, 0L));
        parts.kafka.updateEndOffsets(Map.of(p0, 0L, p1, 0L));
        ChangeConsumer loop = consumer();
        loop.step();
        dev.cdccache.client.position.CommitPosition written =
                dev.cdccache.client.position.CommitPosition.parse("0-1-10").orElseThrow();

        // The write 0-1-10 is on partition 1, not fetched yet; a later change 0-1-11 arrived on partition 0.
        parts.kafka.addRecord(change(0, 0, 2, "0-1-11"));
        parts.kafka.updateEndOffsets(Map.of(p0, 1L));
        loop.step();
        assertThat(parts.proven.isProven("coupons", written)).isFalse();

        parts.kafka.addRecord(change(1, 0, 1, "0-1-10"));
        parts.kafka.updateEndOffsets(Map.of(p1, 1L));
        loop.step();
        assertThat(parts.proven.isProven("coupons", written)).isTrue();
    }

    @Test
    void aHeartbeatWithItsGtidAndTheNextCompletedCheckProveEveryPartitionOfTheTopic() {
        parts.topics(COUPON, HEARTBEAT);
        ChangeConsumer loop = consumer();
        loop.step();
        dev.cdccache.client.position.CommitPosition written =
                dev.cdccache.client.position.CommitPosition.parse("0-1-10").orElseThrow();

        String heartbeat = heartbeat("c1", parts.clock.get(), TABLE).replace("}}", "},\"source\":{\"gtid\":\"0-1-12\"}}");
        parts.kafka.addRecord(record(HEARTBEAT, 0, heartbeat, "c1"));
        parts.kafka.updateEndOffsets(Map.of(new TopicPartition(HEARTBEAT, 0), 1L));
        loop.step();
        assertThat(parts.proven.isProven("coupons", written)).as("no check started after the heartbeat").isFalse();

        parts.clock.addAndGet(200);
        loop.step();
        assertThat(parts.proven.isProven("coupons", written)).isTrue();
        assertThat(parts.proven.provenByDomain("coupons")).containsExactly(Map.entry("0", 12L));
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
    void aLogThatNowEndsBeforeThePositionIsLostEventsAndNoCheckProvesItsCaches() {
        parts.topics(COUPON, HEARTBEAT);
        ChangeConsumer loop = consumer();
        loop.step();
        TopicPartition coupons = new TopicPartition(COUPON, 0);
        TopicPartition heartbeats = new TopicPartition(HEARTBEAT, 0);
        for (int offset = 0; offset < 10; offset++) {
            parts.kafka.addRecord(record(COUPON, offset, update(100 + offset), "c1"));
        }
        parts.kafka.updateEndOffsets(Map.of(coupons, 10L));
        loop.step();
        assertThat(parts.kafka.position(coupons)).isEqualTo(10);
        long provenBefore = parts.cacheGuard.watermark();

        // The topic is deleted and created again: its new log holds 3 records (a change of key 1 among them) that
        // the consumer, still at 10, never read. A heartbeat written after them arrives.
        parts.load(1);
        parts.clock.addAndGet(200);
        parts.kafka.addRecord(record(HEARTBEAT, 0, heartbeat("c1", parts.clock.get(), TABLE), "c1"));
        parts.kafka.updateEndOffsets(Map.of(coupons, 3L, heartbeats, 1L));
        loop.step();
        parts.clock.addAndGet(200);
        loop.step();

        assertThat(parts.cached(1)).as("the caches of the topic are evicted").isFalse();
        assertThat(parts.metrics.errorCount(ErrorReason.OFFSET_OUT_OF_RANGE)).isEqualTo(1);
        assertThat(parts.kafka.position(coupons)).as("moved to the new end").isEqualTo(3);
        assertThat(parts.cacheGuard.watermark()).as("no check proved the skipped records")
                .isEqualTo(provenBefore);
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
