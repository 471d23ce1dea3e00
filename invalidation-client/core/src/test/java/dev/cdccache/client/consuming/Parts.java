package dev.cdccache.client.consuming;

import com.github.benmanes.caffeine.cache.Caffeine;
import dev.cdccache.client.KeyType;
import dev.cdccache.client.StalenessPolicy;
import dev.cdccache.client.cache.CaffeineInvalidatingCache;
import dev.cdccache.client.eviction.CacheBinding;
import dev.cdccache.client.eviction.EvictionRouter;
import dev.cdccache.client.keymapping.KeyMapper;
import dev.cdccache.client.metrics.BadInputLog;
import dev.cdccache.client.metrics.ClientMetrics;
import dev.cdccache.client.position.ProvenPositions;
import dev.cdccache.client.staleness.CacheFreshness;
import dev.cdccache.client.staleness.StalenessGuard;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;

/**
 * What the consumer's parts are built from in their own tests: a fake clock, one cache by id bound to the coupon
 * topic, its router, guards and meters, and Kafka's {@link MockConsumer} with one-partition topics.
 */
final class Parts {

    static final String COUPON = "cdc.coupon_db.coupon";
    static final String TABLE = "coupon_db.coupon";
    static final String HEARTBEAT = "cdc.cdc_meta.heartbeat";
    static final Duration MAX_STALENESS = Duration.ofSeconds(5);

    final AtomicLong clock = new AtomicLong(1_800_000_000_000L);
    final StalenessGuard guard = guard();
    final StalenessGuard cacheGuard = guard();
    final CaffeineInvalidatingCache<Object, Object> coupons = new CaffeineInvalidatingCache<>("coupons",
            Caffeine.newBuilder().maximumSize(100), cacheGuard, true, 0, ForkJoinPool.commonPool(),
            CaffeineInvalidatingCache.LoadListener.NONE);
    final ClientMetrics metrics = new ClientMetrics(null, "test", guard);
    final EvictionRouter router = new EvictionRouter(Map.of(COUPON, List.of(new CacheBinding(coupons, TABLE,
            new KeyMapper(List.of("id"), KeyType.LONG, List::copyOf)))), metrics, new BadInputLog(clock::get));
    final CacheFreshness freshness = new CacheFreshness("coupons", cacheGuard,
            List.of(new CacheFreshness.Source(TABLE, COUPON)), coupons::invalidateAll);
    final MockConsumer<byte[], byte[]> kafka = new MockConsumer<>("none");
    final ProvenPositions proven = new ProvenPositions(Map.of("coupons", List.of(COUPON)));

    Parts() {
        coupons.startAccepting();
    }

    private StalenessGuard guard() {
        return new StalenessGuard(clock::get, MAX_STALENESS, StalenessPolicy.BYPASS_CACHE, true);
    }

    /** Creates one-partition topics whose log starts and ends at offset 0. */
    void topics(String... names) {
        for (String topic : names) {
            kafka.updatePartitions(topic, List.of(new PartitionInfo(topic, 0, null, null, null)));
            kafka.updateBeginningOffsets(Map.of(new TopicPartition(topic, 0), 0L));
            kafka.updateEndOffsets(Map.of(new TopicPartition(topic, 0), 0L));
        }
    }

    static ConsumerRecord<byte[], byte[]> record(String topic, long offset, String value, String connector) {
        RecordHeaders headers = new RecordHeaders();
        if (connector != null) {
            headers.add(ChangeConsumer.CONNECTOR_HEADER, connector.getBytes(StandardCharsets.UTF_8));
        }
        byte[] bytes = value == null ? null : value.getBytes(StandardCharsets.UTF_8);
        return new ConsumerRecord<>(topic, 0, offset, ConsumerRecord.NO_TIMESTAMP, TimestampType.NO_TIMESTAMP_TYPE, -1,
                bytes == null ? -1 : bytes.length, null, bytes, headers, java.util.Optional.empty());
    }

    static String update(long id) {
        return "{\"op\":\"u\",\"before\":{\"id\":" + id + "},\"after\":{\"id\":" + id + "}}";
    }

    static String heartbeat(String connector, long tsMillis, String tables) {
        return "{\"op\":\"u\",\"after\":{\"id\":\"" + connector + "\",\"ts\":" + tsMillis * 1000
                + ",\"epoch\":\"e1\",\"tables\":\"" + tables + "\"}}";
    }

    /** Caches {@code id} in the coupon cache (a load that started now). */
    void load(long id) {
        coupons.get(id, key -> "coupon " + key);
    }

    boolean cached(long id) {
        return coupons.caffeine().getIfPresent(id) != null;
    }
}
