package dev.cdccache.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdccache.client.keymapping.CompositeKey;
import dev.cdccache.client.metrics.ErrorReason;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The consumer path end to end inside the client, against Kafka's MockConsumer: event to evictions, bad input,
 * heartbeats, lost events and late topics. (The same behaviours against a real broker: {@code InvalidationClientIT}.)
 */
class InvalidationClientConsumingTest {

    private static final String COUPON = "cdc.coupon_db.coupon";
    private static final String ATTRIBUTE = "cdc.coupon_db.coupon_attribute";
    private static final String HEARTBEAT = "cdc.cdc_meta.heartbeat";

    private final MockKafkaTopics kafka = new MockKafkaTopics();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private InvalidationClient client;

    @BeforeEach
    void start() {
        kafka.createTopic(COUPON);
        kafka.createTopic(ATTRIBUTE);
        kafka.createTopic(HEARTBEAT);
        kafka.produce(COUPON, "{\"op\":\"c\",\"after\":{\"id\":1,\"code\":\"OLD\"}}"); // before start: skipped
        client = new InvalidationClient(InvalidationClientConfig.builder()
                .bootstrapServers("mock:9092")
                .meterRegistry(registry)
                .maxMessageBytes(2_000)
                .positionCheckInterval(Duration.ofMillis(20))
                .cache(CacheDefinition.builder("coupons").table("coupon_db.coupon").keyColumns("id").build())
                .cache(CacheDefinition.builder("couponsByCode").table("coupon_db.coupon").keyColumns("code").build())
                .cache(CacheDefinition.builder("couponsByPlaceAndCode").table("coupon_db.coupon")
                        .keyColumns("place_id", "code").build())
                .cache(CacheDefinition.builder("couponStats").table("coupon_db.coupon").evictAll().build())
                .cache(CacheDefinition.builder("couponsWithAttributes")
                        .source(SourceDefinition.keys("coupon_db.coupon", "id"))
                        .source(SourceDefinition.keys("coupon_db.coupon_attribute", "coupon_id")).build())
                .build(), props -> kafka);
        client.start();
        assertThat(client.awaitReady(Duration.ofSeconds(5))).isTrue();
    }

    @AfterEach
    void stop() {
        client.close();
    }

    private <K> InvalidatingCache<K, String> cache(String name) {
        return client.cache(name);
    }

    private void fill() {
        cache("coupons").get(1L, id -> "coupon 1");
        cache("coupons").get(2L, id -> "coupon 2");
        cache("couponsByCode").get("A", code -> "coupon A");
        cache("couponsByCode").get("B", code -> "coupon B");
        cache("couponsByCode").get("C", code -> "coupon C");
        cache("couponsByPlaceAndCode").get(CompositeKey.of(7L, "A"), k -> "7/A");
        cache("couponStats").get("count", k -> "2");
        cache("couponsWithAttributes").get(1L, id -> "coupon 1 with attributes");
        cache("couponsWithAttributes").get(2L, id -> "coupon 2 with attributes");
    }

    private long applied() {
        return (long) registry.get("cdc.client.events").tag("topic", COUPON).counter().count();
    }

    private void awaitApplied(long count) {
        await().atMost(Duration.ofSeconds(5)).until(() -> registry.find("cdc.client.events").tag("topic", COUPON)
                .counter() != null && applied() >= count);
    }

    @Test
    void anUpdateEvictsTheOldAndNewKeyOfEveryCacheBoundToTheTableAndNothingElse() {
        fill();
        kafka.produce(COUPON, """
                {"before":{"id":1,"code":"A","place_id":7},"after":{"id":1,"code":"B","place_id":7},
                 "source":{"db":"coupon_db","table":"coupon","ts_ms":1},"op":"u"}""");
        awaitApplied(1);

        assertThat(cache("coupons").getIfPresent(1L)).isNull();
        assertThat(cache("coupons").getIfPresent(2L)).isEqualTo("coupon 2");
        assertThat(cache("couponsByCode").getIfPresent("A")).isNull();
        assertThat(cache("couponsByCode").getIfPresent("B")).isNull();
        assertThat(cache("couponsByCode").getIfPresent("C")).isEqualTo("coupon C");
        assertThat(cache("couponsByPlaceAndCode").getIfPresent(CompositeKey.of(7L, "A"))).isNull();
        assertThat(cache("couponStats").estimatedSize()).isZero();
        assertThat(cache("couponsWithAttributes").getIfPresent(1L)).isNull();
        assertThat(cache("couponsWithAttributes").getIfPresent(2L)).isEqualTo("coupon 2 with attributes");
        assertThat(registry.get("cdc.client.evictions").tag("cache", "couponsByCode").tag("scope", "key").counter()
                .count()).isEqualTo(2);
    }

    @Test
    void aChangeOfASecondSourceTableEvictsTheCacheItFeeds() {
        fill();
        kafka.produce(ATTRIBUTE, "{\"after\":{\"id\":90,\"coupon_id\":2,\"name\":\"color\"},\"op\":\"c\"}");
        await().atMost(Duration.ofSeconds(5))
                .until(() -> cache("couponsWithAttributes").getIfPresent(2L) == null);
        assertThat(cache("couponsWithAttributes").getIfPresent(1L)).isNotNull();
        assertThat(cache("coupons").getIfPresent(2L)).isEqualTo("coupon 2");
    }

    @Test
    void insertDeleteTombstoneAndTruncateAreApplied() {
        cache("coupons").get(5L, id -> null); // cached absence
        assertThat(cache("coupons").lookup(5L)).isNotNull();
        kafka.produce(COUPON, "{\"before\":null,\"after\":{\"id\":5,\"code\":\"E\"},\"op\":\"c\"}");
        awaitApplied(1);
        assertThat(cache("coupons").lookup(5L)).isNull();

        fill();
        kafka.produce(COUPON, "{\"before\":{\"id\":2,\"code\":\"B\"},\"after\":null,\"op\":\"d\"}");
        kafka.produce(COUPON, (byte[]) null); // tombstone
        awaitApplied(3);
        assertThat(cache("coupons").getIfPresent(2L)).isNull();
        assertThat(cache("couponsByCode").getIfPresent("B")).isNull();
        assertThat(cache("coupons").getIfPresent(1L)).isEqualTo("coupon 1");

        kafka.produce(COUPON, "{\"before\":null,\"after\":null,\"op\":\"t\"}");
        awaitApplied(4);
        assertThat(cache("coupons").estimatedSize()).isZero();
        assertThat(cache("couponsByCode").estimatedSize()).isZero();
        assertThat(cache("couponsWithAttributes").estimatedSize()).isZero();
    }

    @Test
    void poisonMessagesAreCountedMadeSafeAndDoNotStopTheGoodOnesAfterThem() {
        fill();
        kafka.produce(COUPON, "{not json");
        kafka.produce(COUPON, "[\"no envelope\"]");
        kafka.produce(COUPON, "{\"op\":\"z\",\"after\":{\"id\":1}}");
        kafka.produce(COUPON, "{\"op\":\"u\",\"after\":{\"id\":\"x" + "y".repeat(3_000) + "\"}}");
        awaitApplied(4);
        assertThat(client.metrics().errorCount(ErrorReason.MALFORMED_JSON)).isEqualTo(1);
        assertThat(client.metrics().errorCount(ErrorReason.NOT_AN_ENVELOPE)).isEqualTo(1);
        assertThat(client.metrics().errorCount(ErrorReason.UNEXPECTED_OPERATION)).isEqualTo(1);
        assertThat(client.metrics().errorCount(ErrorReason.OVERSIZED)).isEqualTo(1);
        assertThat(cache("coupons").estimatedSize()).as("made safe: whole caches of the table evicted").isZero();
        assertThat(cache("couponsWithAttributes").estimatedSize()).isZero();

        fill();
        kafka.produce(COUPON, "{\"before\":{\"id\":{\"oops\":1},\"code\":\"A\"},\"after\":{\"id\":{\"oops\":1},\"code\":\"A\"},\"op\":\"u\"}");
        awaitApplied(5);
        // coupons and couponsWithAttributes (id is an object), couponsByPlaceAndCode (no place_id)
        assertThat(client.metrics().errorCount(ErrorReason.UNMAPPABLE_KEY)).isEqualTo(3);
        assertThat(cache("coupons").estimatedSize()).isZero();
        assertThat(cache("couponsByCode").getIfPresent("A")).as("a cache that could map the row").isNull();
        assertThat(cache("couponsByCode").getIfPresent("C")).isEqualTo("coupon C");

        fill();
        kafka.produce(COUPON, "{\"before\":{\"id\":1,\"code\":\"A\"},\"after\":{\"id\":1,\"code\":\"A\"},\"op\":\"u\"}");
        awaitApplied(6);
        assertThat(cache("coupons").getIfPresent(1L)).isNull();
        assertThat(cache("coupons").getIfPresent(2L)).isEqualTo("coupon 2");
        assertThat(registry.get("cdc.client.errors").tag("reason", "malformed_json").counter().count()).isEqualTo(1);
    }

    @Test
    void anUpdateWithoutItsBeforeImageEvictsTheWholeCacheOfSecondaryKeys() {
        fill();
        kafka.produce(COUPON, "{\"before\":null,\"after\":{\"id\":1,\"code\":\"B\"},\"op\":\"u\"}");
        awaitApplied(1);
        assertThat(cache("couponsByCode").estimatedSize()).isZero();
        assertThat(client.metrics().errorCount(ErrorReason.UNMAPPABLE_KEY)).isPositive();
    }

    @Test
    void heartbeatsAdvanceTheWatermark() {
        long written = System.currentTimeMillis() - 300;
        kafka.produce(HEARTBEAT, "{\"before\":null,\"after\":{\"id\":1,\"ts\":" + written * 1000 + "},\"op\":\"u\"}");
        await().atMost(Duration.ofSeconds(5)).until(() -> client.status().watermarkMillis() == written);
        assertThat(client.status().fresh()).isTrue();
        assertThat(registry.get("cdc.client.invalidation.lag").timer().count()).isEqualTo(1);

        kafka.produce(HEARTBEAT, "{\"after\":{\"id\":1},\"op\":\"u\"}");
        await().atMost(Duration.ofSeconds(5)).until(() -> client.metrics().errorCount(ErrorReason.BAD_HEARTBEAT) == 1);
    }

    @Test
    void lostEventsMoveToTheEndAndEvictTheCachesOfTheirTopic() {
        fill();
        TopicPartition tp = new TopicPartition(COUPON, 0);
        kafka.setPollException(new OffsetOutOfRangeException("out of range", Map.of(tp, 0L)));
        await().atMost(Duration.ofSeconds(5))
                .until(() -> client.metrics().errorCount(ErrorReason.OFFSET_OUT_OF_RANGE) == 1);
        assertThat(cache("coupons").estimatedSize()).isZero();
        assertThat(cache("couponsByCode").estimatedSize()).isZero();
        assertThat(cache("couponsWithAttributes").estimatedSize()).isZero();

        fill();
        kafka.produce(COUPON, "{\"before\":{\"id\":1,\"code\":\"A\"},\"after\":{\"id\":1,\"code\":\"A\"},\"op\":\"u\"}");
        awaitApplied(1);
        assertThat(cache("coupons").getIfPresent(1L)).isNull();
    }

    @Test
    void aTopicThatAppearsAfterStartIsReadFromItsBeginning() {
        InvalidationClient late = new InvalidationClient(InvalidationClientConfig.builder()
                .bootstrapServers("mock:9092")
                .positionCheckInterval(Duration.ofMillis(20))
                .cache(CacheDefinition.builder("items").table("shop.item").keyColumns("id").build())
                .build(), props -> kafka);
        try {
            late.start();
            assertThat(late.awaitReady(Duration.ofSeconds(5))).isTrue();
            late.<Long, String>cache("items").get(3L, id -> "item 3");

            String topic = "cdc.shop.item";
            TopicPartition tp = new TopicPartition(topic, 0);
            kafka.updateBeginningOffsets(Map.of(tp, 0L));
            kafka.updateEndOffsets(Map.of(tp, 1L));
            // The connector creates the topic with its first event; it is written before this client assigns it.
            kafka.updatePartitions(topic, List.of(new PartitionInfo(topic, 0, null, null, null)));
            await().atMost(Duration.ofSeconds(5)).until(() -> kafka.assignment().contains(tp));
            kafka.addRecord(new ConsumerRecord<>(topic, 0, 0L, null,
                    "{\"before\":{\"id\":3},\"after\":{\"id\":3},\"op\":\"u\"}".getBytes(StandardCharsets.UTF_8)));
            await().atMost(Duration.ofSeconds(5)).until(() -> late.cache("items").getIfPresent(3L) == null);
        } finally {
            late.close();
        }
    }
}
