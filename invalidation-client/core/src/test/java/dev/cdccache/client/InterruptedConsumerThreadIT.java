package dev.cdccache.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdccache.client.metrics.ErrorReason;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.kafka.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An interrupt of the consumer thread against a real broker, whose consumer throws on every call while the thread
 * is interrupted: the client stops its consumer only by waking it up, so an interrupt (from a listener run on the
 * thread, or from another thread) must neither end the loop nor leave it spinning on that exception while the
 * caches keep their entries. It is cleared, reported, and the next change still evicts.
 */
class InterruptedConsumerThreadIT {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** Longer than every wait: an entry can only go by its eviction, never by turning too old to serve. */
    private static final Duration MAX_STALENESS = Duration.ofSeconds(60);

    private final AtomicBoolean interruptOnEvent = new AtomicBoolean();
    private String prefix;
    private KafkaProducer<byte[], byte[]> producer;
    private ScheduledExecutorService heartbeats;
    private InvalidationClient client;

    @BeforeEach
    void start() {
        KafkaBroker kafka = LocalStack.shared().kafka();
        prefix = "interrupt" + ProcessHandle.current().pid() + "x" + System.nanoTime();
        kafka.createTopic(prefix + ".shop.item", 1);
        kafka.createTopic(prefix + ".cdc_meta.heartbeat", 1);
        producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.LINGER_MS_CONFIG, 0),
                new ByteArraySerializer(), new ByteArraySerializer());
        heartbeats = Executors.newSingleThreadScheduledExecutor();
        heartbeats.scheduleWithFixedDelay(this::heartbeat, 0, 200, TimeUnit.MILLISECONDS);
        client = new InvalidationClient(InvalidationClientConfig.builder()
                .bootstrapServers(kafka.bootstrapServers())
                .topicPrefix(prefix)
                .maxStaleness(MAX_STALENESS)
                .positionCheckInterval(Duration.ofMillis(100))
                .cache(CacheDefinition.builder("items").table("shop.item").keyColumns("id").build())
                .listener(event -> {
                    if (interruptOnEvent.get()) {
                        Thread.currentThread().interrupt(); // e.g. restoring the flag after a blocking call
                    }
                })
                .build());
        client.start();
        assertThat(client.awaitReady(WAIT)).isTrue();
        await().atMost(WAIT).until(() -> client.status().fresh());
    }

    @AfterEach
    void stop() {
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

    @Test
    void aListenerThatInterruptsItsThreadIsReportedAndLaterChangesStillEvict() {
        interruptOnEvent.set(true);
        InvalidatingCache<Object, String> items = client.cache("items");
        items.get(1L, id -> "item 1");
        items.get(2L, id -> "item 2");

        change(1);
        await().atMost(WAIT).until(() -> items.getIfPresent(1L) == null);
        change(2);
        await("the change after the interrupting listener call is applied").atMost(WAIT)
                .until(() -> items.getIfPresent(2L) == null);
        assertThat(client.errorCount(ErrorReason.LISTENER_FAILURE)).isGreaterThanOrEqualTo(2);
        await().atMost(WAIT).until(() -> client.status().fresh());
    }

    @Test
    void anInterruptFromAnotherThreadIsReportedAndTheConsumerGoesOn() {
        InvalidatingCache<Object, String> items = client.cache("items");
        items.get(3L, id -> "item 3");
        Thread consumer = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals(client.instanceId() + "-consumer")).findFirst().orElseThrow();

        consumer.interrupt();
        await().atMost(WAIT).until(() -> client.errorCount(ErrorReason.CONSUMER_FAILURE) >= 1);

        change(3);
        await("the consumer still applies changes").atMost(WAIT).until(() -> items.getIfPresent(3L) == null);
        await("fresh again once positions are confirmed").atMost(WAIT).until(() -> client.status().fresh());
        assertThat(consumer.isAlive()).isTrue();
    }

    private void change(long id) {
        send(prefix + ".shop.item", "{\"id\":" + id + "}", "{\"op\":\"u\",\"before\":{\"id\":" + id + "},\"after\":"
                + "{\"id\":" + id + "},\"source\":{\"db\":\"shop\",\"table\":\"item\",\"ts_ms\":"
                + System.currentTimeMillis() + "}}");
    }

    private void heartbeat() {
        send(prefix + ".cdc_meta.heartbeat", "{\"id\":\"c1\"}", "{\"op\":\"u\",\"after\":{\"id\":\"c1\",\"ts\":"
                + System.currentTimeMillis() * 1000 + ",\"epoch\":\"e1\",\"tables\":\"shop.item\"},"
                + "\"source\":{\"db\":\"cdc_meta\",\"table\":\"heartbeat\"}}");
    }

    private void send(String topic, String key, String value) {
        try {
            ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, key.getBytes(StandardCharsets.UTF_8),
                    value.getBytes(StandardCharsets.UTF_8));
            record.headers().add("cdc-connector", "c1".getBytes(StandardCharsets.UTF_8)); // the connector's name
            producer.send(record).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("could not produce to " + topic, e);
        }
    }
}
