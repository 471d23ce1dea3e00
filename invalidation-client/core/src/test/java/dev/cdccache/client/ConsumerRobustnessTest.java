package dev.cdccache.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.cdccache.client.consuming.ChangeConsumer;
import dev.cdccache.client.metrics.ErrorReason;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Consumer robustness: no record takes the rest of its poll batch along, and the consumer loop never
 * dies, whatever is thrown inside it (Kafka's MockConsumer; the client runs on its own thread as in production).
 */
class ConsumerRobustnessTest {

    private static final String COUPON = "cdc.coupon_db.coupon";
    private static final String HEARTBEAT = "cdc.cdc_meta.heartbeat";

    /** A mock that can fail {@code position()} once, right after it threw an out-of-range from poll. */
    static final class FailingMockKafka extends MockKafkaTopics {
        final AtomicReference<OffsetOutOfRangeException> outOfRangeNext = new AtomicReference<>();
        final AtomicBoolean failNextPosition = new AtomicBoolean();
        final AtomicReference<Error> errorOnPoll = new AtomicReference<>();
        final AtomicReference<RuntimeException> exceptionOnPoll = new AtomicReference<>();

        @Override
        public synchronized ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
            Error error = errorOnPoll.get();
            if (error != null) {
                throw error;
            }
            RuntimeException exception = exceptionOnPoll.get();
            if (exception != null) {
                throw exception;
            }
            OffsetOutOfRangeException outOfRange = outOfRangeNext.getAndSet(null);
            if (outOfRange != null) {
                failNextPosition.set(true);
                throw outOfRange;
            }
            return super.poll(timeout);
        }

        @Override
        public synchronized Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions, Duration timeout) {
            RuntimeException exception = exceptionOnPoll.get();
            if (exception != null) { // an unreachable broker fails every request, not only fetches
                throw exception;
            }
            return super.endOffsets(partitions, timeout);
        }

        @Override
        public synchronized long position(TopicPartition partition, Duration timeout) {
            if (failNextPosition.getAndSet(false)) {
                throw new TimeoutException("simulated: position not resolved within " + timeout);
            }
            return super.position(partition, timeout);
        }
    }

    private final FailingMockKafka kafka = new FailingMockKafka();
    private final ListAppender<ILoggingEvent> consumerLog = new ListAppender<>();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private InvalidationClient client;
    /** Offsets of the change events the listeners were told about, in order. */
    private final List<Long> applied = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        consumerLog.start();
        ((Logger) LoggerFactory.getLogger(ChangeConsumer.class)).addAppender(consumerLog);
        kafka.createTopic(COUPON);
        kafka.createTopic(HEARTBEAT);
        client = new InvalidationClient(InvalidationClientConfig.builder()
                .bootstrapServers("mock:9092")
                .meterRegistry(registry)
                .heartbeatRequired(false) // fresh = positions confirmed, so freshness is observable here
                .commitLagByTable(true)
                .positionCheckInterval(Duration.ofMillis(20))
                // Bound first: its key factory throws before the other caches of the table evict anything.
                .cache(CacheDefinition.builder("couponsByPlaceAndCode").table("coupon_db.coupon")
                        .keyColumns("place_id", "code").compositeKeyFactory(components -> {
                            if ("boom".equals(components.get(1))) {
                                throw new IllegalStateException("a key factory bug");
                            }
                            return List.copyOf(components);
                        }).build())
                .cache(CacheDefinition.builder("coupons").table("coupon_db.coupon").keyColumns("id").build())
                .cache(CacheDefinition.builder("couponsById").table("coupon_db.coupon").keyColumns("id")
                        .keyType(KeyType.LONG).build())
                .listener(event -> {
                    if (event.topic().equals(COUPON)) {
                        applied.add(event.offset());
                    }
                })
                .build(), props -> kafka);
        client.start();
        assertThat(client.awaitReady(Duration.ofSeconds(5))).isTrue();
    }

    @AfterEach
    void stop() {
        ((Logger) LoggerFactory.getLogger(ChangeConsumer.class)).detachAppender(consumerLog);
        client.close();
    }

    private InvalidatingCache<Object, String> cache(String name) {
        return client.cache(name);
    }

    private void fill() {
        cache("coupons").get(1L, id -> "coupon 1");
        cache("coupons").get(2L, id -> "coupon 2");
        cache("couponsById").get(3L, id -> "coupon 3");
        cache("couponsByPlaceAndCode").get(List.of(7L, "A"), k -> "7/A");
    }

    private static String update(String row) {
        return "{\"before\":" + row + ",\"after\":" + row + ",\"op\":\"u\"}";
    }

    @Test
    void recordsThatOverflowOrThrowWhileParsedMappedOrAppliedDoNotDropTheRestOfTheirPollBatch() {
        String overflow = "123456789012345678901234567890"; // beyond a long
        // One poll batch of one partition, so its order is the offset order: each bad record (before the fix each
        // would throw out of the loop, or burn CPU, after poll had already moved past the whole batch) is followed
        // by a good one, which must still be applied by key.
        List<Map.Entry<String, String>> batch = List.of(
                Map.entry(COUPON, "{\"before\":{\"id\":9,\"place_id\":7,\"code\":\"C\"},\"after\":{\"id\":9,\"place_id\":7,\"code\":\"C\"},\"op\":\"u\",\"ts_ms\":" + overflow
                        + ",\"source\":{\"db\":\"x\",\"table\":\"y\",\"ts_ms\":" + overflow + "}}"),
                Map.entry(COUPON, update("{\"id\":1e400}")),                // non-finite as a double
                Map.entry(COUPON, update("{\"id\":101,\"place_id\":7,\"code\":\"B\"}")),
                Map.entry(COUPON, update("{\"id\":\"1e500000000\"}")),       // 500 million digits if expanded
                Map.entry(COUPON, update("{\"id\":102,\"place_id\":7,\"code\":\"B\"}")),
                Map.entry(COUPON, update("{\"id\":" + overflow + "}")),
                Map.entry(COUPON, update("{\"id\":103,\"place_id\":7,\"code\":\"B\"}")),
                Map.entry(COUPON, update("{\"id\":8,\"place_id\":7,\"code\":\"boom\"}")), // throws while mapped
                Map.entry(COUPON, "{\"before\":{\"id\":104,\"place_id\":7,\"code\":\"A\"},\"after\":{\"id\":104,"
                        + "\"place_id\":7,\"code\":\"A\"},\"op\":\"u\",\"source\":{\"db\":\"x\",\"table\":\"y\","
                        + "\"ts_ms\":1}}"));
        kafka.produceBatch(Map.of(), batch);
        // Waits for the last record to be applied: if a bad record took the rest of the batch along, it never is.
        await().atMost(Duration.ofSeconds(5)).until(() -> applied.contains((long) batch.size() - 1));

        // By key: the good records (ids 9, 101, 102, 103, 104), each after a bad one, evicted their key in the
        // by-id cache; the bad ones evicted no key there (the composite cache, bound first, throws before it).
        assertThat(keyEvictions("couponsById")).isEqualTo(5);
        assertThat(applied).as("offsets the listeners saw: all but the record that threw")
                .containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 8L);
        assertThat(client.metrics().errorCount(ErrorReason.RECORD_FAILURE)).as("the key factory bug").isEqualTo(1);
        // One per bad id and cache it cannot key: three caches each, except the text id "1e500000000", which the
        // auto-typed cache keeps as text.
        assertThat(client.metrics().errorCount(ErrorReason.UNMAPPABLE_KEY)).isEqualTo(3 + 2 + 3);
        // Lag meters are tagged with the configured table, never with the payload's source.db/table.
        assertThat(registry.find("cdc.client.commit.lag").timers()).extracting(t -> t.getId().getTag("table"))
                .containsExactly("coupon_db.coupon");
    }

    @Test
    void heartbeatsThatOverflowAreCountedAndDoNotDropTheHeartbeatAfterThem() {
        long written = System.currentTimeMillis() - 100;
        kafka.produceBatch(Map.of(), List.of(
                Map.entry(HEARTBEAT, "{\"after\":{\"id\":1,\"ts\":123456789012345678901234567890},\"op\":\"u\"}"),
                Map.entry(HEARTBEAT, "{\"after\":{\"id\":1,\"ts\":\"+1000000000-12-31T23:59:59Z\"},\"op\":\"u\"}"),
                Map.entry(HEARTBEAT, "{\"after\":{\"id\":1,\"ts\":" + written * 1000 + "},\"op\":\"u\"}")));
        // Waits for the last heartbeat to be applied: if a bad one took the rest of the batch along, it never is.
        await().atMost(Duration.ofSeconds(5)).until(() -> client.status().lastHeartbeatMillis() == written);
        assertThat(client.metrics().errorCount(ErrorReason.BAD_HEARTBEAT)).isEqualTo(2);
    }

    private double keyEvictions(String cache) {
        var counter = registry.find("cdc.client.evictions").tag("cache", cache).tag("scope", "key").counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void aTimeoutWhileRecoveringLostEventsDoesNotKillTheConsumer() {
        fill();
        TopicPartition tp = new TopicPartition(COUPON, 0);
        kafka.outOfRangeNext.set(new OffsetOutOfRangeException("out of range", Map.of(tp, 0L)));
        await().atMost(Duration.ofSeconds(5))
                .until(() -> client.metrics().errorCount(ErrorReason.OFFSET_OUT_OF_RANGE) == 1);
        assertThat(kafka.failNextPosition.get()).as("position() failed during the recovery").isFalse();
        await().atMost(Duration.ofSeconds(5)).until(() -> cache("coupons").estimatedSize() == 0);

        fill();
        kafka.produce(COUPON, update("{\"id\":1}"));
        await().atMost(Duration.ofSeconds(5)).until(() -> cache("coupons").getIfPresent(1L) == null);
        assertThat(cache("coupons").getIfPresent(2L)).isEqualTo("coupon 2");
    }

    @Test
    void anErrorInTheLoopIsSurvivedWithBackOffAndShowsAsNotFreshUntilItRecovers() {
        await().atMost(Duration.ofSeconds(5)).until(() -> client.status().fresh());
        fill();
        kafka.errorOnPoll.set(new NoClassDefFoundError("simulated by the test"));
        await().atMost(Duration.ofSeconds(5))
                .until(() -> client.metrics().errorCount(ErrorReason.CONSUMER_RESTART) >= 2);
        assertThat(client.status().fresh()).isFalse();
        assertThat(client.status().problem()).contains("restarting");
        assertThat(registry.get("cdc.client.fresh").gauge().value()).isZero();

        kafka.errorOnPoll.set(null);
        kafka.produce(COUPON, update("{\"id\":1}"));
        await().atMost(Duration.ofSeconds(10)).until(() -> cache("coupons").getIfPresent(1L) == null);
        await().atMost(Duration.ofSeconds(10)).until(() -> client.status().fresh());
        assertThat(cache("coupons").getIfPresent(2L)).isEqualTo("coupon 2");
    }

    @Test
    void everyCacheIsNotFreshAsSoonAsTheLoopFailsNotOnlyOnceTheBoundHasPassed() {
        await().atMost(Duration.ofSeconds(5)).until(() -> client.cacheStatus("coupons").fresh());
        // Watermarks are within the 5 s bound: only the failure itself can make the caches not fresh here.
        failAndRecover(() -> kafka.errorOnPoll.set(new NoClassDefFoundError("simulated by the test")),
                ErrorReason.CONSUMER_RESTART, "restarting", () -> kafka.errorOnPoll.set(null));
        failAndRecover(() -> kafka.exceptionOnPoll.set(new KafkaException("simulated: broker unreachable")),
                ErrorReason.CONSUMER_FAILURE, "broker unreachable", () -> kafka.exceptionOnPoll.set(null));
    }

    private void failAndRecover(Runnable fail, ErrorReason counted, String reason, Runnable recover) {
        long before = client.metrics().errorCount(counted);
        fail.run();
        await().atMost(Duration.ofSeconds(5)).until(() -> client.metrics().errorCount(counted) > before);
        assertNoCacheFresh(reason);
        recover.run();
        await().atMost(Duration.ofSeconds(10)).until(() -> client.status().fresh()
                && client.cacheNames().stream().allMatch(cache -> client.cacheStatus(cache).fresh()));
    }

    private void assertNoCacheFresh(String reason) {
        for (String cache : client.cacheNames()) {
            assertThat(client.cacheStatus(cache).watermarkAgeMillis()).as("within the bound").isLessThan(5_000);
            assertThat(client.cacheStatus(cache).fresh()).as("%s fresh", cache).isFalse();
            assertThat(client.cacheStatus(cache).problems()).as("%s problems", cache)
                    .anySatisfy(p -> assertThat(p.message()).contains(reason));
            assertThat(registry.get("cdc.client.cache.fresh").tag("cache", cache).gauge().value()).isZero();
        }
        assertThat(client.status().fresh()).isFalse();
    }

    @Test
    void aRecoveryFromKafkaFailuresIsLoggedOnceAfterTheFailureWarning() {
        await().atMost(Duration.ofSeconds(5)).until(() -> client.status().fresh());
        kafka.exceptionOnPoll.set(new KafkaException("simulated: broker unreachable"));
        await().atMost(Duration.ofSeconds(5))
                .until(() -> client.metrics().errorCount(ErrorReason.CONSUMER_FAILURE) >= 3);
        assertThat(lines(Level.WARN)).as("one warning per 30 s, not one per failure").hasSize(1)
                .allMatch(line -> line.contains("broker unreachable"));
        assertThat(lines(Level.INFO)).noneMatch(line -> line.contains("recovered"));

        kafka.exceptionOnPoll.set(null);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> lines(Level.INFO).stream().anyMatch(line -> line.contains("recovered after")));
        assertThat(client.status().fresh()).isTrue();
        assertThat(lines(Level.INFO)).filteredOn(line -> line.contains("recovered after")).hasSize(1);

        // The next outage warns again at once: the recovery ended the previous run of failures.
        kafka.exceptionOnPoll.set(new KafkaException("simulated: second outage"));
        await().atMost(Duration.ofSeconds(5)).until(() -> lines(Level.WARN).size() == 2);
        kafka.exceptionOnPoll.set(null);
    }

    @Test
    void aFailingListenerIsCountedEveryTimeButLoggedOnceAndDoesNotKeepEventsFromBeingApplied() {
        MockKafkaTopics topics = new MockKafkaTopics();
        topics.createTopic(COUPON);
        topics.createTopic(HEARTBEAT);
        try (InvalidationClient withListener = new InvalidationClient(InvalidationClientConfig.builder()
                .bootstrapServers("mock:9092")
                .heartbeatRequired(false)
                .positionCheckInterval(Duration.ofMillis(20))
                .listener(event -> {
                    throw new IllegalStateException("a listener bug");
                })
                .cache(CacheDefinition.builder("coupons").table("coupon_db.coupon").keyColumns("id").build())
                .build(), props -> topics)) {
            withListener.start();
            assertThat(withListener.awaitReady(Duration.ofSeconds(5))).isTrue();
            InvalidatingCache<Object, String> coupons = withListener.cache("coupons");
            for (long id = 1; id <= 5; id++) {
                coupons.get(id, key -> "coupon " + key);
                topics.produce(COUPON, update("{\"id\":" + id + "}"));
            }
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> withListener.metrics().errorCount(ErrorReason.LISTENER_FAILURE) == 5);
            assertThat(coupons.estimatedSize()).as("every event applied before its listener ran").isZero();
            assertThat(lines(Level.WARN)).filteredOn(line -> line.contains("listener")).hasSize(1)
                    .allMatch(line -> line.contains("the event was applied"));
        }
    }

    private List<String> lines(Level level) {
        List<ILoggingEvent> events;
        synchronized (consumerLog) { // the consumer thread appends meanwhile (doAppend holds this lock)
            events = List.copyOf(consumerLog.list);
        }
        return events.stream().filter(e -> e.getLevel() == level).map(ILoggingEvent::getFormattedMessage).toList();
    }
}
