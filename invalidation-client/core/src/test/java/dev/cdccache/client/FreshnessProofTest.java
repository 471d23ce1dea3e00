package dev.cdccache.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.cdccache.client.consuming.ChangeConsumer;
import dev.cdccache.client.consuming.TopicPolicies;
import dev.cdccache.client.metrics.ErrorReason;
import dev.cdccache.client.staleness.FreshnessProblem;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Freshness is proven per cache, by every connector publishing into its topics, and never claimed for a cache
 * whose topic is missing, deleted or unavailable (Kafka's MockConsumer; {@code PerConnectorFreshnessIT} does the
 * same against a real broker).
 */
class FreshnessProofTest {

    private static final String COUPON = "cdc.coupon_db.coupon";
    private static final String ATTRIBUTE = "cdc.coupon_db.coupon_attribute";
    private static final String HEARTBEAT = "cdc.cdc_meta.heartbeat";
    private static final Duration MAX_STALENESS = Duration.ofSeconds(5);

    /** A mock whose log-end lookups fail for the partitions of one topic (no leader). */
    static final class PartitionTroubleKafka extends MockKafkaTopics {
        volatile String unavailableTopic;
        volatile boolean metadataDown;

        @Override
        public synchronized Map<String, List<org.apache.kafka.common.PartitionInfo>> listTopics(Duration timeout) {
            if (metadataDown) {
                throw new TimeoutException("simulated: metadata not available within " + timeout);
            }
            return super.listTopics(timeout);
        }

        @Override
        public synchronized Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions,
                Duration timeout) {
            for (TopicPartition tp : partitions) {
                if (tp.topic().equals(unavailableTopic)) {
                    throw new TimeoutException("simulated: no leader for " + tp);
                }
            }
            return super.endOffsets(partitions, timeout);
        }
    }

    private final PartitionTroubleKafka kafka = new PartitionTroubleKafka();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    /** Added to the system clock: lets a test jump past max-staleness. */
    private final AtomicLong clockOffset = new AtomicLong();
    private InvalidationClient client;

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
    }

    private long now() {
        return System.currentTimeMillis() + clockOffset.get();
    }

    private void start(String... extraTables) {
        kafka.createTopic(COUPON);
        kafka.createTopic(ATTRIBUTE);
        kafka.createTopic(HEARTBEAT);
        InvalidationClientConfig.Builder config = InvalidationClientConfig.builder()
                .bootstrapServers("mock:9092")
                .meterRegistry(registry)
                .clock(this::now)
                .maxStaleness(MAX_STALENESS)
                .positionCheckInterval(Duration.ofMillis(20))
                .cache(CacheDefinition.builder("coupons").table("coupon_db.coupon").keyColumns("id").build())
                .cache(CacheDefinition.builder("couponsByCode").table("coupon_db.coupon").keyColumns("code").build())
                .cache(CacheDefinition.builder("attributes").table("coupon_db.coupon_attribute")
                        .keyColumns("coupon_id").build());
        for (String table : extraTables) {
            config.cache(CacheDefinition.builder(table).table(table).keyColumns("id").build());
        }
        client = new InvalidationClient(config.build(), props -> kafka);
        client.start();
        assertThat(client.awaitReady(Duration.ofSeconds(5))).isTrue();
    }

    private void heartbeat(String connector, String header, long tsMillis, String epoch, String tables) {
        kafka.produce(HEARTBEAT, "{\"op\":\"u\",\"after\":{\"id\":\"" + connector + "\",\"ts\":" + tsMillis * 1000
                + ",\"epoch\":\"" + epoch + "\",\"tables\":\"" + tables + "\"}}",
                header == null ? Map.of() : Map.of("cdc-connector", header));
    }

    private void heartbeat(String connector, String epoch, String tables) {
        heartbeat(connector, connector, now(), epoch, tables);
    }

    private InvalidatingCache<Object, String> cache(String name) {
        return client.cache(name);
    }

    private static boolean hasProblem(InvalidationClient client, FreshnessProblem.Kind kind, String subject) {
        return client.problems().stream().anyMatch(p -> p.kind() == kind && p.subject().equals(subject));
    }

    @Test
    void aCacheBoundToATopicThatDoesNotExistIsNotFreshAndNamedInAConfigurationProblem() {
        start("coupon_db.cupon"); // misspelled table: its topic does not exist
        heartbeat("coupons", "e1", "coupon_db.coupon,coupon_db.coupon_attribute,coupon_db.cupon");
        await().atMost(Duration.ofSeconds(5)).until(() -> client.cacheStatus("coupons").fresh());

        assertThat(client.cacheStatus("coupon_db.cupon").fresh()).isFalse();
        assertThat(client.status().fresh()).as("the client is fresh only if every cache is").isFalse();
        assertThat(hasProblem(client, FreshnessProblem.Kind.MISSING_TOPIC, "cdc.coupon_db.cupon")).isTrue();
        assertThat(client.status().misconfigured()).isTrue();
        assertThat(client.problems()).filteredOn(p -> p.kind() == FreshnessProblem.Kind.MISSING_TOPIC)
                .singleElement().satisfies(p -> assertThat(p.caches()).containsExactly("coupon_db.cupon"));
        assertThat(registry.get("cdc.client.cache.fresh").tag("cache", "coupon_db.cupon").gauge().value()).isZero();
        assertThat(registry.get("cdc.client.cache.fresh").tag("cache", "coupons").gauge().value()).isOne();
    }

    @Test
    void anotherConnectorsHeartbeatsDoNotProveATableItDoesNotCapture() {
        start();
        // Only the connector capturing the attribute table is alive.
        heartbeat("attributes", "e1", "coupon_db.coupon_attribute");
        await().atMost(Duration.ofSeconds(5)).until(() -> client.cacheStatus("attributes").fresh());

        assertThat(client.cacheStatus("coupons").fresh()).isFalse();
        assertThat(client.cacheStatus("couponsByCode").fresh()).isFalse();
        // A configuration problem only once it outlasts max-staleness after ready: the first heartbeat of a
        // connector comes one interval after start, and every starting instance would otherwise report it.
        assertThat(hasProblem(client, FreshnessProblem.Kind.UNCOVERED_TABLE, "coupon_db.coupon")).isFalse();
        clockOffset.addAndGet(MAX_STALENESS.toMillis() + 1_000);
        heartbeat("attributes", "e1", "coupon_db.coupon_attribute");
        await().atMost(Duration.ofSeconds(5))
                .until(() -> hasProblem(client, FreshnessProblem.Kind.UNCOVERED_TABLE, "coupon_db.coupon"));
        assertThat(client.cacheStatus("coupons").fresh()).isFalse();
        assertThat(client.problems()).extracting(FreshnessProblem::message)
                .anySatisfy(m -> assertThat(m).startsWith("no connector heartbeat covers coupon_db.coupon"));

        heartbeat("coupons", "e1", "coupon_db.coupon");
        await().atMost(Duration.ofSeconds(5)).until(() -> client.status().fresh());
        assertThat(client.problems()).isEmpty();
    }

    @Test
    void aTopicFedBySeveralConnectorsIsNotFreshWhileOneOfThemIsSilentAndTheProblemNamesIt() {
        start();
        // Two shards sharing a schema: both connectors capture coupon_db.coupon into one topic.
        heartbeat("shard-a", "e1", "coupon_db.coupon,coupon_db.coupon_attribute");
        heartbeat("shard-b", "e1", "coupon_db.coupon");
        await().atMost(Duration.ofSeconds(5)).until(() -> client.status().fresh());

        // shard-b stops; shard-a keeps beating, and lists the same table.
        clockOffset.addAndGet(MAX_STALENESS.toMillis() + 1_000);
        heartbeat("shard-a", "e1", "coupon_db.coupon,coupon_db.coupon_attribute");
        await().atMost(Duration.ofSeconds(5))
                .until(() -> hasProblem(client, FreshnessProblem.Kind.SILENT_CONNECTOR, COUPON));
        assertThat(client.cacheStatus("coupons").fresh()).isFalse();
        assertThat(client.cacheStatus("couponsByCode").fresh()).isFalse();
        assertThat(client.cacheStatus("attributes").fresh()).as("fed by shard-a only").isTrue();
        assertThat(client.problems()).filteredOn(p -> p.kind() == FreshnessProblem.Kind.SILENT_CONNECTOR)
                .singleElement().satisfies(p -> {
                    assertThat(p.message()).contains("'shard-b'").contains(COUPON);
                    assertThat(p.caches()).containsExactlyInAnyOrder("coupons", "couponsByCode");
                    assertThat(p.kind().configuration()).isFalse();
                });

        heartbeat("shard-b", "e1", "coupon_db.coupon");
        await().atMost(Duration.ofSeconds(5)).until(() -> client.status().fresh() && client.problems().isEmpty());
    }

    @Test
    void aConnectorNamedByTheHeaderOfATopicsRecordsMustProveThatTopicToo() {
        start();
        heartbeat("shard-a", "e1", "coupon_db.coupon,coupon_db.coupon_attribute");
        await().atMost(Duration.ofSeconds(5)).until(() -> client.status().fresh());
        cache("coupons").get(1L, id -> "coupon 1");
        long evictedBefore = client.metrics().unprovenEvictions("new_coverage");

        // shard-b's records are routed into the coupon topic; its heartbeat lists only its own table.
        kafka.produce(COUPON, "{\"op\":\"u\",\"before\":{\"id\":2,\"code\":\"B\"},\"after\":{\"id\":2,"
                + "\"code\":\"B\"}}", Map.of("cdc-connector", "shard-b"));
        await().atMost(Duration.ofSeconds(5)).until(() -> client.metrics().unprovenEvictions("new_coverage") == evictedBefore + 2);
        assertThat(cache("coupons").getIfPresent(1L)).as("loaded while shard-b was not waited for").isNull();

        clockOffset.addAndGet(MAX_STALENESS.toMillis() + 1_000);
        heartbeat("shard-a", "e1", "coupon_db.coupon,coupon_db.coupon_attribute");
        await().atMost(Duration.ofSeconds(5)).until(() -> client.cacheStatus("attributes").fresh()
                && hasProblem(client, FreshnessProblem.Kind.SILENT_CONNECTOR, COUPON));
        assertThat(client.cacheStatus("coupons").fresh()).as("shard-b has proven nothing").isFalse();

        heartbeat("shard-b", "e1", "shard_db.coupon");
        await().atMost(Duration.ofSeconds(5)).until(() -> client.cacheStatus("coupons").fresh());
        assertThat(client.problems()).isEmpty();
    }

    @Test
    void aHeartbeatWhoseRowIdIsNotTheConnectorInItsHeaderIsRejectedAndCounted() {
        start();
        heartbeat("coupons", "tickets", now(), "e1", "coupon_db.coupon,coupon_db.coupon_attribute");
        await().atMost(Duration.ofSeconds(5))
                .until(() -> client.metrics().errorCount(ErrorReason.REJECTED_HEARTBEAT) == 1);
        assertThat(client.cacheStatus("coupons").fresh()).isFalse();
        assertThat(client.status().lastHeartbeatMillis()).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void aLegacyHeartbeatIsAcceptedAsCoveringEveryTable() {
        start();
        long written = now() - 200;
        kafka.produce(HEARTBEAT, "{\"op\":\"u\",\"after\":{\"id\":1,\"ts\":" + written * 1000 + "}}");
        await().atMost(Duration.ofSeconds(5)).until(() -> client.status().fresh());
        assertThat(client.status().watermarkMillis()).isEqualTo(written);
    }

    @Test
    void aHeartbeatDatedAnHourAheadProvesNothingAndIsReportedAsClockSkew() {
        start();
        heartbeat("coupons", "coupons", now() + Duration.ofHours(1).toMillis(), "e1",
                "coupon_db.coupon,coupon_db.coupon_attribute");
        await().atMost(Duration.ofSeconds(5))
                .until(() -> hasProblem(client, FreshnessProblem.Kind.CLOCK_SKEW, "coupons"));
        assertThat(client.metrics().errorCount(ErrorReason.FUTURE_HEARTBEAT)).isEqualTo(1);
        // Had it been taken as proof (or clamped to now), the client would look fresh with nothing applied.
        assertThat(client.status().fresh()).isFalse();
        assertThat(client.cacheStatus("coupons").watermarkAgeMillis()).isGreaterThan(MAX_STALENESS.toMillis());
        assertThat(registry.get("cdc.client.clock.skew").gauge().value()).isGreaterThanOrEqualTo(3_599.0);
        assertThat(client.status().misconfigured()).as("an outage of time synchronisation, not a setting").isFalse();
    }

    @Test
    void aDatabaseClockSlightlyAheadIsMeasuredAndALaggingConnectorsHeartbeatDoesNotProveItsLag() {
        start();
        long skew = 600; // under the former 1 s tolerance: not noticed at all before
        long sent = now();
        heartbeat("coupons", "coupons", sent + skew, "e1", "coupon_db.coupon,coupon_db.coupon_attribute");
        await().atMost(Duration.ofSeconds(5))
                .until(() -> hasProblem(client, FreshnessProblem.Kind.CLOCK_SKEW, "coupons"));
        // A lower bound: the lead less the heartbeat's own latency through the mock.
        assertThat(registry.get("cdc.client.clock.skew").gauge().value()).isBetween(0.5, skew / 1000.0);
        await().atMost(Duration.ofSeconds(5)).until(() -> client.cacheStatus("coupons").watermarkMillis() != Long.MIN_VALUE);
        assertThat(client.cacheStatus("coupons").watermarkMillis()).as("not a moment this host has not reached")
                .isLessThanOrEqualTo(sent);

        // The connector now lags 1.5 s: its heartbeat, written 1.5 s ago by a clock 600 ms ahead, looks 0.9 s old.
        long written = now() - 1_500;
        heartbeat("coupons", "coupons", written + skew, "e1", "coupon_db.coupon,coupon_db.coupon_attribute");
        await().atMost(Duration.ofSeconds(5))
                .until(() -> registry.get("cdc.client.invalidation.lag").timer().count() == 2);
        // Taken as written when dated, it would show 0.9 s; the measured skew (the lead less the first heartbeat's
        // few ms of latency) brings it back to about its true 1.5 s.
        assertThat(registry.get("cdc.client.invalidation.lag").timer().max(TimeUnit.MILLISECONDS))
                .as("the lag metric shows the lag").isGreaterThanOrEqualTo(1_400.0);
    }

    @Test
    void anEpochChangeAfterReadyEvictsTheCachesOfThatConnectorsTablesOnly() {
        start();
        heartbeat("coupons", "e1", "coupon_db.coupon");
        heartbeat("attributes", "e1", "coupon_db.coupon_attribute");
        await().atMost(Duration.ofSeconds(5)).until(() -> client.status().fresh());
        cache("coupons").get(1L, id -> "coupon 1");
        cache("couponsByCode").get("A", code -> "coupon A");
        cache("attributes").get(1L, id -> "attributes of 1");

        heartbeat("coupons", "e2", "coupon_db.coupon"); // the connector lost its offsets: it skipped a gap
        await().atMost(Duration.ofSeconds(5)).until(() -> client.metrics().unprovenEvictions("epoch_change") == 2);
        assertThat(cache("coupons").getIfPresent(1L)).isNull();
        assertThat(cache("couponsByCode").getIfPresent("A")).isNull();
        assertThat(cache("attributes").getIfPresent(1L)).isEqualTo("attributes of 1");
        assertThat(registry.get("cdc.client.unproven.evictions").tag("reason", "epoch_change").counter().count())
                .isEqualTo(2);
    }

    @Test
    void entriesLoadedBeforeAFreshnessGapLongerThanMaxStalenessAreNotServedAgain() {
        start();
        heartbeat("coupons", "e1", "coupon_db.coupon,coupon_db.coupon_attribute");
        await().atMost(Duration.ofSeconds(5)).until(() -> client.status().fresh());
        cache("coupons").get(1L, id -> "coupon 1, possibly changed during the gap");

        // The connector stops beating for longer than max-staleness (e.g. a restart that skipped binlog)...
        clockOffset.addAndGet(MAX_STALENESS.toMillis() + 2_000);
        await().atMost(Duration.ofSeconds(5)).until(() -> !client.status().fresh());
        // ...then beats again, with the same epoch (a connector that cannot tell it skipped anything).
        heartbeat("coupons", "e1", "coupon_db.coupon,coupon_db.coupon_attribute");
        await().atMost(Duration.ofSeconds(5)).until(() -> client.status().fresh());

        assertThat(cache("coupons").lookup(1L)).as("loaded before the gap: cannot be proven").isNull();
        assertThat(client.metrics().unprovenEvictions("freshness_gap")).isPositive();
        cache("coupons").get(1L, id -> "coupon 1 reloaded");
        assertThat(cache("coupons").getIfPresent(1L)).isEqualTo("coupon 1 reloaded");
    }

    @Test
    void aGapIsLoggedOnceNamingItsCachesWhileTheConsumerCatchesUpThroughOldHeartbeats() {
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        Logger consumerLogger = (Logger) LoggerFactory.getLogger(ChangeConsumer.class);
        consumerLogger.addAppender(log);
        try {
            start();
            String tables = "coupon_db.coupon,coupon_db.coupon_attribute";
            heartbeat("coupons", "e1", tables);
            await().atMost(Duration.ofSeconds(5)).until(() -> client.status().fresh());

            clockOffset.addAndGet(MAX_STALENESS.toMillis() + 10_000);
            await().atMost(Duration.ofSeconds(5)).until(() -> !client.status().fresh());
            // A backlog: heartbeats written during an outage arrive one by one, each still older than max-staleness.
            long behind = now() - MAX_STALENESS.toMillis() - 5_000;
            heartbeat("coupons", "coupons", behind, "e1", tables);
            await().atMost(Duration.ofSeconds(5)).until(() -> client.metrics().unprovenEvictions("freshness_gap") >= 3);
            heartbeat("coupons", "coupons", behind + 2_000, "e1", tables);
            await().atMost(Duration.ofSeconds(5)).until(() -> client.metrics().unprovenEvictions("freshness_gap") >= 6);
            heartbeat("coupons", "e1", tables);
            await().atMost(Duration.ofSeconds(5)).until(() -> client.status().fresh());

            assertThat(gapWarnings(log)).as("one warning for the episode, not one per cache and heartbeat").hasSize(1)
                    .allMatch(line -> line.contains("coupons") && line.contains("couponsByCode") && line.contains("attributes"));
            assertThat(client.metrics().unprovenEvictions("freshness_gap")).as("every eviction is still counted").isEqualTo(9);

            // Fresh again: the next gap is a new episode and warns again.
            clockOffset.addAndGet(MAX_STALENESS.toMillis() + 2_000);
            await().atMost(Duration.ofSeconds(5)).until(() -> !client.status().fresh());
            heartbeat("coupons", "e1", tables);
            await().atMost(Duration.ofSeconds(5)).until(() -> client.status().fresh());
            assertThat(gapWarnings(log)).hasSize(2);
        } finally {
            consumerLogger.detachAppender(log);
        }
    }

    private static List<String> gapWarnings(ListAppender<ILoggingEvent> log) {
        return log.list.stream().filter(e -> e.getLevel() == Level.WARN).map(ILoggingEvent::getFormattedMessage)
                .filter(line -> line.contains("without proof")).toList();
    }

    @Test
    void anOversizedEventEvictsByKeyWhereTheKeyColumnsAreKeptAndTheWholeCacheWhereTheyWereRemoved() {
        start();
        cache("coupons").get(1L, id -> "coupon 1");
        cache("coupons").get(2L, id -> "coupon 2");
        cache("couponsByCode").get("A", code -> "coupon A");
        kafka.produce(COUPON, "{\"op\":\"u\",\"before\":{\"id\":1},\"after\":{\"id\":1},"
                + "\"truncated_columns\":[\"code\",\"description\"],\"source\":{\"db\":\"coupon_db\","
                + "\"table\":\"coupon\",\"ts_ms\":1}}");
        await().atMost(Duration.ofSeconds(5)).until(() -> cache("coupons").getIfPresent(1L) == null);
        assertThat(cache("coupons").getIfPresent(2L)).as("evicted by key").isEqualTo("coupon 2");
        assertThat(cache("couponsByCode").estimatedSize()).as("its key column was removed").isZero();
        assertThat(client.metrics().errorCount(ErrorReason.TRUNCATED)).isEqualTo(1);
        assertThat(client.metrics().errorCount(ErrorReason.UNMAPPABLE_KEY)).isZero();

        cache("couponsByCode").get("B", code -> "coupon B");
        kafka.produce(COUPON, "{\"op\":\"u\",\"before\":{\"id\":2,\"code\":\"X\"},\"after\":{\"id\":2,\"code\":\"X\"},"
                + "\"truncated_columns\":\"garbled\"}");
        await().atMost(Duration.ofSeconds(5)).until(() -> cache("coupons").getIfPresent(2L) == null);
        assertThat(cache("couponsByCode").estimatedSize()).as("an unreadable marker evicts everything").isZero();
    }

    @Test
    void aDeletedTopicMakesOnlyItsCachesNotFreshAndTheOtherTablesKeepBeingInvalidated() {
        start();
        heartbeat("coupons", "e1", "coupon_db.coupon,coupon_db.coupon_attribute");
        await().atMost(Duration.ofSeconds(5)).until(() -> client.status().fresh());
        cache("attributes").get(1L, id -> "attributes of 1");
        cache("coupons").get(1L, id -> "coupon 1");

        kafka.updatePartitions(ATTRIBUTE, List.of()); // deleted
        await().atMost(Duration.ofSeconds(5))
                .until(() -> hasProblem(client, FreshnessProblem.Kind.TOPIC_DELETED, ATTRIBUTE));
        assertThat(cache("attributes").getIfPresent(1L)).as("its events may be lost: evicted").isNull();

        kafka.produce(COUPON, "{\"op\":\"u\",\"before\":{\"id\":1,\"code\":\"A\"},\"after\":{\"id\":1,\"code\":\"A\"}}");
        await().atMost(Duration.ofSeconds(5)).until(() -> cache("coupons").getIfPresent(1L) == null);
        clockOffset.addAndGet(MAX_STALENESS.toMillis() + 1_000);
        heartbeat("coupons", "e1", "coupon_db.coupon,coupon_db.coupon_attribute");
        await().atMost(Duration.ofSeconds(5)).until(() -> client.cacheStatus("coupons").fresh());
        assertThat(client.cacheStatus("attributes").fresh()).isFalse();
    }

    @Test
    void anUnavailablePartitionDoesNotStopTheInvalidationOrFreshnessOfOtherTables() {
        start();
        heartbeat("coupons", "e1", "coupon_db.coupon,coupon_db.coupon_attribute");
        await().atMost(Duration.ofSeconds(5)).until(() -> client.status().fresh());
        cache("coupons").get(1L, id -> "coupon 1");

        kafka.unavailableTopic = ATTRIBUTE;
        await().atMost(Duration.ofSeconds(10))
                .until(() -> hasProblem(client, FreshnessProblem.Kind.PARTITIONS_UNAVAILABLE, ATTRIBUTE));
        kafka.produce(COUPON, "{\"op\":\"u\",\"before\":{\"id\":1,\"code\":\"A\"},\"after\":{\"id\":1,\"code\":\"A\"}}");
        await().atMost(Duration.ofSeconds(5)).until(() -> cache("coupons").getIfPresent(1L) == null);

        clockOffset.addAndGet(MAX_STALENESS.toMillis() + 1_000);
        heartbeat("coupons", "e1", "coupon_db.coupon,coupon_db.coupon_attribute");
        await().atMost(Duration.ofSeconds(10)).until(() -> client.cacheStatus("coupons").fresh());
        assertThat(client.cacheStatus("attributes").fresh()).isFalse();

        kafka.unavailableTopic = null;
        await().atMost(Duration.ofSeconds(10)).until(() -> client.status().fresh() && client.problems().isEmpty());
    }

    @Test
    void aPositionCheckThatCannotStartDoesNotKeepFetchedEventsFromBeingApplied() {
        start();
        cache("coupons").get(1L, id -> "coupon 1");
        kafka.metadataDown = true;
        long failures = client.metrics().errorCount(ErrorReason.CONSUMER_FAILURE);
        await().atMost(Duration.ofSeconds(5))
                .until(() -> client.metrics().errorCount(ErrorReason.CONSUMER_FAILURE) > failures);
        kafka.produce(COUPON, "{\"op\":\"u\",\"before\":{\"id\":1,\"code\":\"A\"},\"after\":{\"id\":1,\"code\":\"A\"}}");
        // Evicted, not merely aged out (no heartbeat here, so entries are served only within max-staleness).
        await().atMost(Duration.ofSeconds(3)).until(() -> cache("coupons").caffeine().getIfPresent(1L) == null);
        assertThat(client.status().problem()).contains("metadata not available");
        kafka.metadataDown = false;
    }

    @Test
    void aCompactedChangeTopicIsRefusedAsAConfigurationProblemAndAFailedLookupStopsNothing() {
        kafka.createTopic(COUPON);
        kafka.createTopic(ATTRIBUTE);
        kafka.createTopic(HEARTBEAT);
        AtomicInteger lookups = new AtomicInteger();
        client = new InvalidationClient(InvalidationClientConfig.builder()
                .bootstrapServers("mock:9092")
                .clock(this::now)
                .positionCheckInterval(Duration.ofMillis(20))
                .cache(CacheDefinition.builder("coupons").table("coupon_db.coupon").keyColumns("id").build())
                .cache(CacheDefinition.builder("attributes").table("coupon_db.coupon_attribute")
                        .keyColumns("coupon_id").build())
                .build(), props -> kafka, props -> new TopicPolicies() {
                    @Override
                    public CompletableFuture<Map<String, String>> cleanupPolicies(Set<String> topics) {
                        // The first lookup fails (e.g. no DescribeConfigs permission yet); the next ones answer.
                        return lookups.getAndIncrement() == 0
                                ? CompletableFuture.failedFuture(new IllegalStateException("simulated: denied"))
                                : CompletableFuture.completedFuture(Map.of(COUPON, "compact", ATTRIBUTE, "delete"));
                    }

                    @Override
                    public void close() {
                    }
                });
        client.start();
        assertThat(client.awaitReady(Duration.ofSeconds(5))).isTrue();
        heartbeat("coupons", "e1", "coupon_db.coupon,coupon_db.coupon_attribute");
        await().atMost(Duration.ofSeconds(5)).until(() -> client.cacheStatus("attributes").fresh());

        clockOffset.addAndGet(5_000); // failed lookups are retried every 5 s
        await().atMost(Duration.ofSeconds(5))
                .until(() -> hasProblem(client, FreshnessProblem.Kind.COMPACTED_TOPIC, COUPON));
        assertThat(client.status().misconfigured()).isTrue();
        assertThat(client.problems()).filteredOn(p -> p.kind() == FreshnessProblem.Kind.COMPACTED_TOPIC)
                .singleElement().satisfies(p -> assertThat(p.caches()).containsExactly("coupons"));
        // Its events are still applied, and the other table is unaffected.
        cache("coupons").get(1L, id -> "coupon 1");
        kafka.produce(COUPON, "{\"op\":\"u\",\"before\":{\"id\":1},\"after\":{\"id\":1}}");
        await().atMost(Duration.ofSeconds(5)).until(() -> cache("coupons").caffeine().getIfPresent(1L) == null);
        heartbeat("coupons", "e1", "coupon_db.coupon,coupon_db.coupon_attribute");
        await().atMost(Duration.ofSeconds(5)).until(() -> client.cacheStatus("attributes").fresh());
        assertThat(client.cacheStatus("coupons").fresh()).as("reading a compacted topic proves nothing").isFalse();
    }

    @Test
    void problemsConcerningACacheAreReportedInItsOwnStatus() {
        start("coupon_db.cupon");
        await().atMost(Duration.ofSeconds(5)).until(() -> !client.problems().isEmpty());
        assertThat(client.cacheStatus("coupon_db.cupon").problems()).extracting(FreshnessProblem::kind)
                .contains(FreshnessProblem.Kind.MISSING_TOPIC);
        assertThat(client.cacheStatus("coupons").problems()).extracting(FreshnessProblem::subject)
                .doesNotContain("cdc.coupon_db.cupon");
        assertThat(Set.copyOf(client.cacheNames())).contains("coupon_db.cupon");
    }
}
