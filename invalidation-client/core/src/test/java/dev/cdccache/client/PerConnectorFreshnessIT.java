package dev.cdccache.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdccache.client.metrics.ErrorReason;
import dev.cdccache.client.staleness.FreshnessProblem;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.kafka.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Per-connector freshness against a real Kafka broker: the records two connectors would publish
 * (docs/contract.md: heartbeat rows with {@code id}/{@code ts}/{@code epoch}/{@code tables}, the
 * {@code cdc-connector} header, oversized events with {@code truncated_columns}) are produced here directly, so
 * the client side is tested while the connector side is built elsewhere. One client, one set of topics per run (a unique prefix); tests run in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PerConnectorFreshnessIT {

    private static final Duration MAX_STALENESS = Duration.ofSeconds(2);
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final AtomicInteger RUNS = new AtomicInteger();

    private static KafkaBroker kafka;
    private static KafkaProducer<byte[], byte[]> producer;
    private static ScheduledExecutorService heartbeats;
    /** Connector name -> epoch of the connectors currently beating; tables per connector are fixed below. */
    private static final Map<String, String> beating = new ConcurrentHashMap<>();
    private static final Map<String, String> TABLES = Map.of("items-connector", "shop.item", "tags-connector", "shop.tag");
    private static String prefix;
    private static InvalidationClient client;

    @BeforeAll
    static void start() {
        kafka = LocalStack.shared().kafka();
        prefix = "pcf" + ProcessHandle.current().pid() + "x" + RUNS.incrementAndGet();
        kafka.createTopic(topic("shop.item"), 2);
        kafka.createTopic(topic("shop.tag"), 1);
        kafka.createTopic(topic("cdc_meta.heartbeat"), 1);
        producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.LINGER_MS_CONFIG, 0),
                new ByteArraySerializer(), new ByteArraySerializer());
        heartbeats = Executors.newSingleThreadScheduledExecutor();
        heartbeats.scheduleWithFixedDelay(() -> beating.forEach((connector, epoch) -> heartbeat(connector, connector,
                epoch, TABLES.get(connector))), 0, 200, TimeUnit.MILLISECONDS);
        client = new InvalidationClient(InvalidationClientConfig.builder()
                .bootstrapServers(kafka.bootstrapServers())
                .topicPrefix(prefix)
                .maxStaleness(MAX_STALENESS)
                .positionCheckInterval(Duration.ofMillis(100))
                .cache(CacheDefinition.builder("items").table("shop.item").keyColumns("id").build())
                .cache(CacheDefinition.builder("itemsByCode").table("shop.item").keyColumns("code").build())
                .cache(CacheDefinition.builder("tags").table("shop.tag").keyColumns("item_id").build())
                .cache(CacheDefinition.builder("misspelled").table("shop.itme").keyColumns("id").build())
                .build());
        client.start();
        assertThat(client.awaitReady(WAIT)).isTrue();
    }

    @AfterAll
    static void stop() {
        if (heartbeats != null) {
            heartbeats.shutdownNow();
        }
        if (client != null) {
            client.close();
        }
        if (producer != null) {
            producer.close();
        }
    }

    private static String topic(String table) {
        return prefix + "." + table;
    }

    private static void heartbeat(String header, String id, String epoch, String tables) {
        String value = "{\"op\":\"u\",\"after\":{\"id\":\"" + id + "\",\"ts\":" + System.currentTimeMillis() * 1000
                + ",\"epoch\":\"" + epoch + "\",\"tables\":\"" + tables + "\"},\"source\":{\"db\":\"cdc_meta\","
                + "\"table\":\"heartbeat\"}}";
        send(topic("cdc_meta.heartbeat"), "{\"id\":\"" + id + "\"}", value, header);
    }

    private static void send(String topic, String key, String value, String connectorHeader) {
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, key.getBytes(StandardCharsets.UTF_8),
                value.getBytes(StandardCharsets.UTF_8));
        record.headers().add("cdc-connector", connectorHeader.getBytes(StandardCharsets.UTF_8));
        try {
            producer.send(record).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("could not produce to " + topic, e);
        }
    }

    private static InvalidatingCache<Object, String> cache(String name) {
        return client.cache(name);
    }

    private static boolean hasProblem(FreshnessProblem.Kind kind, String subject) {
        return client.problems().stream().anyMatch(p -> p.kind() == kind && p.subject().equals(subject));
    }

    @Test
    @Order(1)
    void eachConnectorProvesItsOwnTablesAndAMissingTopicIsAConfigurationProblem() {
        beating.put("items-connector", "e1");
        beating.put("tags-connector", "e1");
        await().atMost(WAIT).until(() -> client.cacheStatus("items").fresh() && client.cacheStatus("tags").fresh());

        assertThat(client.cacheStatus("misspelled").fresh()).isFalse();
        assertThat(client.status().fresh()).isFalse();
        assertThat(hasProblem(FreshnessProblem.Kind.MISSING_TOPIC, topic("shop.itme"))).isTrue();
        assertThat(client.status().misconfigured()).isTrue();
    }

    @Test
    @Order(2)
    void aStoppedConnectorsTablesStopBeingFreshWhileTheOtherConnectorKeepsBeating() {
        beating.remove("tags-connector");
        await().atMost(WAIT).until(() -> !client.cacheStatus("tags").fresh());
        assertThat(client.cacheStatus("items").fresh()).as("still proven by its own connector").isTrue();

        beating.put("tags-connector", "e1");
        await().atMost(WAIT).until(() -> client.cacheStatus("tags").fresh());
    }

    @Test
    @Order(3)
    void aHeartbeatForAnotherConnectorsRowIsRejected() {
        long before = client.metrics().errorCount(ErrorReason.REJECTED_HEARTBEAT);
        heartbeat("items-connector", "tags-connector", "e1", "shop.item,shop.tag");
        await().atMost(WAIT).until(() -> client.metrics().errorCount(ErrorReason.REJECTED_HEARTBEAT) == before + 1);
    }

    @Test
    @Order(4)
    void anOversizedEventEvictsByKeyOrTheWholeCacheWhoseKeyColumnWasRemoved() {
        cache("items").get(1L, id -> "item 1");
        cache("items").get(2L, id -> "item 2");
        cache("itemsByCode").get("A", code -> "item A");
        send(topic("shop.item"), "{\"id\":1}", "{\"op\":\"u\",\"before\":{\"id\":1},\"after\":{\"id\":1},"
                + "\"truncated_columns\":[\"code\",\"body\"],\"source\":{\"db\":\"shop\",\"table\":\"item\"}}",
                "items-connector");
        await().atMost(WAIT).until(() -> cache("items").getIfPresent(1L) == null);
        assertThat(cache("items").getIfPresent(2L)).isEqualTo("item 2");
        assertThat(cache("itemsByCode").estimatedSize()).isZero();
        assertThat(client.metrics().errorCount(ErrorReason.TRUNCATED)).isEqualTo(1);
    }

    @Test
    @Order(5)
    void anEpochChangeEvictsTheCachesOfThatConnectorsTables() {
        cache("items").get(3L, id -> "item 3");
        cache("tags").get(3L, id -> "tags of 3");
        beating.put("items-connector", "e2");
        await().atMost(WAIT).until(() -> cache("items").getIfPresent(3L) == null);
        assertThat(cache("tags").getIfPresent(3L)).isEqualTo("tags of 3");
        assertThat(client.metrics().unprovenEvictions("epoch_change")).isPositive();
    }

    @Test
    @Order(6)
    void aDeletedTopicMakesOnlyItsCachesNotFreshAndOtherTablesKeepBeingInvalidated() throws Exception {
        cache("tags").get(4L, id -> "tags of 4");
        try (Admin admin = kafka.admin()) {
            admin.deleteTopics(List.of(topic("shop.tag"))).all().get(30, TimeUnit.SECONDS);
        }
        await().atMost(WAIT).until(() -> hasProblem(FreshnessProblem.Kind.TOPIC_DELETED, topic("shop.tag")));
        assertThat(cache("tags").getIfPresent(4L)).isNull();

        cache("items").get(5L, id -> "item 5");
        send(topic("shop.item"), "{\"id\":5}", "{\"op\":\"u\",\"before\":{\"id\":5,\"code\":\"E\"},"
                + "\"after\":{\"id\":5,\"code\":\"E\"}}", "items-connector");
        await().atMost(WAIT).until(() -> cache("items").getIfPresent(5L) == null);
        await().atMost(WAIT).until(() -> !client.cacheStatus("tags").fresh());
        assertThat(client.cacheStatus("items").fresh()).isTrue();
        assertThat(client.cacheStatus("tags").problems()).extracting(FreshnessProblem::kind)
                .contains(FreshnessProblem.Kind.TOPIC_DELETED);
        assertThat(Set.copyOf(client.cacheNames())).contains("tags");
    }
}
