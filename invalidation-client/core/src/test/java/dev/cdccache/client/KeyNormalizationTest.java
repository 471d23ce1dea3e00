package dev.cdccache.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Key equality vs database equality: under a case-insensitive collation {@code abc10} and {@code ABC10}
 * are one row. With {@code key-normalization: lower-case} the cache folds the keys looked up and the keys derived
 * from events alike, so a cached "not found" of one spelling does not survive the insert of the other.
 */
class KeyNormalizationTest {

    private static final String COUPON = "cdc.coupon_db.coupon";
    private static final String HEARTBEAT = "cdc.cdc_meta.heartbeat";

    private final MockConsumer<byte[], byte[]> kafka = new MockConsumer<>("none") {
        @Override
        public synchronized ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
            ConsumerRecords<byte[], byte[]> records = super.poll(timeout);
            if (records.isEmpty()) {
                try {
                    wait(2); // MockConsumer returns at once: do not spin a core
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return records;
        }
    };
    private InvalidationClient client;
    private long couponOffset;

    @BeforeEach
    void start() {
        for (String topic : List.of(COUPON, HEARTBEAT)) {
            kafka.updatePartitions(topic, List.of(new PartitionInfo(topic, 0, null, null, null)));
            kafka.updateBeginningOffsets(Map.of(new TopicPartition(topic, 0), 0L));
            kafka.updateEndOffsets(Map.of(new TopicPartition(topic, 0), 0L));
        }
        client = new InvalidationClient(InvalidationClientConfig.builder().bootstrapServers("mock:9092")
                .positionCheckInterval(Duration.ofMillis(20))
                .cache(CacheDefinition.builder("byCode").table("coupon_db.coupon").keyColumns("code")
                        .keyNormalization(KeyNormalization.LOWER_CASE).build())
                .cache(CacheDefinition.builder("byCodeAsIs").table("coupon_db.coupon").keyColumns("code").build())
                .build(), props -> kafka);
        client.start();
        assertThat(client.awaitReady(Duration.ofSeconds(5))).isTrue();
    }

    @AfterEach
    void stop() {
        client.close();
    }

    private void insertCoupon(String code) {
        TopicPartition tp = new TopicPartition(COUPON, 0);
        kafka.addRecord(new ConsumerRecord<>(COUPON, 0, couponOffset++, null,
                ("{\"op\":\"c\",\"after\":{\"id\":10,\"code\":\"" + code + "\"}}").getBytes(StandardCharsets.UTF_8)));
        kafka.updateEndOffsets(Map.of(tp, couponOffset));
    }

    @Test
    void aNotFoundCachedUnderOneCaseIsEvictedByTheInsertOfTheOtherCase() {
        InvalidatingCache<String, Long> byCode = client.cache("byCode");
        InvalidatingCache<String, Long> asIs = client.cache("byCodeAsIs");
        assertThat(byCode.get("abc10", code -> null)).isNull();
        assertThat(asIs.get("abc10", code -> null)).isNull();
        assertThat(byCode.lookup("abc10")).as("the absence is cached").isNotNull();

        insertCoupon("ABC10");
        await().atMost(Duration.ofSeconds(5)).until(() -> byCode.lookup("abc10") == null);
        assertThat(byCode.get("abc10", code -> 10L)).isEqualTo(10L);
        // Without normalisation the absence survives: the event evicted "ABC10" only.
        assertThat(asIs.lookup("abc10")).isNotNull().extracting(entry -> entry.value()).isNull();
    }

    @Test
    void everySpellingOfAKeySharesOneEntry() {
        InvalidatingCache<String, Long> byCode = client.cache("byCode");
        List<String> loaded = new ArrayList<>();
        assertThat(byCode.get("ABC10", code -> { loaded.add(code); return 10L; })).isEqualTo(10L);
        assertThat(byCode.get("abc10", code -> { loaded.add(code); return 11L; })).isEqualTo(10L);
        assertThat(byCode.getIfPresent("Abc10")).isEqualTo(10L);
        assertThat(loaded).as("the loader sees the key as the caller wrote it, once").containsExactly("ABC10");

        List<Set<? extends String>> bulk = new ArrayList<>();
        Map<String, Long> found = byCode.getAll(List.of("aBc10", "XYZ1", "xyz1"), missing -> {
            bulk.add(Set.copyOf(missing));
            // a loader typically keys its result by the row's own spelling
            return missing.stream().collect(Collectors.toMap(code -> code.toUpperCase(), code -> 1L));
        });
        assertThat(found).containsExactly(Map.entry("aBc10", 10L), Map.entry("XYZ1", 1L), Map.entry("xyz1", 1L));
        assertThat(bulk).containsExactly(Set.of("XYZ1"));
        assertThat(byCode.getIfPresent("xyz1")).isEqualTo(1L);

        byCode.invalidate("ABC10");
        assertThat(byCode.getIfPresent("abc10")).isNull();
    }

    @Test
    void normalisationOfANumericOrCompositeKeyFailsStartUp() {
        assertThatThrownBy(() -> InvalidationClientConfig.builder().bootstrapServers("mock:9092")
                .cache(CacheDefinition.builder("byId").table("coupon_db.coupon").keyColumns("id").keyType(KeyType.LONG)
                        .keyNormalization(KeyNormalization.LOWER_CASE).build()).build())
                .isInstanceOfSatisfying(InvalidConfigurationException.class, e -> {
                    assertThat(e.setting()).isEqualTo("caches.byId.key-normalization");
                    assertThat(e.problem()).contains("text keys").contains("long");
                });
        assertThatThrownBy(() -> InvalidationClientConfig.builder().bootstrapServers("mock:9092")
                .cache(CacheDefinition.builder("byPlaceAndCode").table("coupon_db.coupon").keyColumns("place_id", "code")
                        .keyNormalization(KeyNormalization.UPPER_CASE).build()).build())
                .isInstanceOfSatisfying(InvalidConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo("caches.byPlaceAndCode.key-normalization"));
    }
}
