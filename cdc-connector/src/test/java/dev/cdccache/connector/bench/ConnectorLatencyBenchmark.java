package dev.cdccache.connector.bench;

import dev.cdccache.connector.testing.InProcessConnector;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.mariadb.MariaDbServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Commit-to-Kafka latency and bulk throughput of the connector, on the real local stack (MariaDB
 * with binlog, Kafka broker, the connector with its default settings, in this JVM).
 *
 * <p>Latency: single-row UPDATEs (autocommit) at a fixed rate; the stamp is {@code System.nanoTime()}
 * right after {@code executeUpdate} returns (the commit is done), keyed by (id, version); a consumer in
 * this JVM stamps each event when {@code poll} hands it over. Throughput: one UPDATE of 100,000 rows,
 * from the statement's start to the last of its 100,000 events in Kafka.
 *
 * <p>Run: {@code ./mvnw -B -pl cdc-connector test-compile exec:java}
 * (optional {@code -Dbench.changes=1000 -Dbench.lowRate=50 -Dbench.highRate=1000 -Dbench.bulkRows=100000}).
 */
public final class ConnectorLatencyBenchmark {

    private static final String DB = "bench_db";
    private static final String TOPIC = "bench." + DB + ".bench_row";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Map<String, Long> committedAt = new ConcurrentHashMap<>();
    private final Map<String, Long> receivedAt = new ConcurrentHashMap<>();
    private final AtomicLong bulkEvents = new AtomicLong();
    private final AtomicLong lastBulkEventNanos = new AtomicLong();
    private volatile int bulkVersion = -1;
    private final AtomicBoolean consuming = new AtomicBoolean(true);

    public static void main(String[] args) throws Exception {
        int changes = Integer.getInteger("bench.changes", 1000);
        int lowRate = Integer.getInteger("bench.lowRate", 50);
        int highRate = Integer.getInteger("bench.highRate", 1000);
        int bulkRows = Integer.getInteger("bench.bulkRows", 100_000);
        new ConnectorLatencyBenchmark().run(changes, lowRate, highRate, bulkRows);
    }

    private void run(int changes, int lowRate, int highRate, int bulkRows) throws Exception {
        LocalStack stack = LocalStack.shared();
        MariaDbServer db = stack.mariaDb();
        db.createDatabase(DB);
        db.execute(DB, "DROP TABLE IF EXISTS bench_row",
                "CREATE TABLE bench_row (id BIGINT PRIMARY KEY, version INT NOT NULL, payload VARCHAR(64) NOT NULL)",
                // rows exist before the connector starts: the schema-only snapshot emits nothing for them
                "INSERT INTO bench_row SELECT seq, 0, CONCAT('row-', seq) FROM seq_1_to_" + bulkRows);

        List<String> lines = new ArrayList<>();
        Map<String, String> settings = new java.util.LinkedHashMap<>(
                InProcessConnector.settings(stack, "bench", "bench", List.of(DB + ".bench_row")));
        settings.put("logging.level.root", "WARN");
        // -Dbench.set.<property>=<value> overrides a connector setting, e.g. -Dbench.set.cdc.connector.max-batch-size=4096
        System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith("bench.set."))
                .forEach(k -> settings.put(k.substring("bench.set.".length()), System.getProperty(k)));
        try (InProcessConnector connector = InProcessConnector.start(settings)) {
            Thread consumer = startConsumer(stack.kafka().bootstrapServers());
            try (Connection connection = db.adminConnection(DB)) {
                connection.setAutoCommit(true);
                // warm-up: JIT, connections, producer metadata
                runAtRate(connection, 200, 200, 1);
                awaitReceived(200, Duration.ofSeconds(30));
                clear();

                lines.add(latency(connection, changes, lowRate, 2));
                lines.add(latency(connection, changes, highRate, 3));
                lines.add(bulk(connection, bulkRows));
            } finally {
                consuming.set(false);
                consumer.join(10_000);
            }
        } finally {
            stack.close();
        }
        System.out.println();
        System.out.println("Connector benchmark, " + LocalDateTime.now(ZoneOffset.UTC).withNano(0) + " UTC, "
                + Runtime.getRuntime().availableProcessors() + " cores, Java " + System.getProperty("java.version"));
        lines.forEach(System.out::println);
    }

    private String latency(Connection connection, int changes, int rate, int version) throws Exception {
        clear();
        long start = System.nanoTime();
        runAtRate(connection, changes, rate, version);
        double achieved = changes / ((System.nanoTime() - start) / 1e9);
        awaitReceived(changes, Duration.ofSeconds(60));
        Histogram histogram = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
        int early = 0;
        for (Map.Entry<String, Long> commit : committedAt.entrySet()) {
            long micros = (receivedAt.get(commit.getKey()) - commit.getValue()) / 1_000;
            if (micros < 0) {
                early++; // the event overtook the commit's OK packet
                micros = 0;
            }
            histogram.recordValue(micros);
        }
        if (Boolean.getBoolean("bench.debug")) {
            committedAt.entrySet().stream()
                    .sorted((a, b) -> Long.compare(receivedAt.get(b.getKey()) - b.getValue(), receivedAt.get(a.getKey()) - a.getValue()))
                    .limit(15)
                    .forEach(e -> System.out.printf("  slow: %s committed at +%d ms, latency %.1f ms%n", e.getKey(),
                            (e.getValue() - start) / 1_000_000, (receivedAt.get(e.getKey()) - e.getValue()) / 1e6));
        }
        return String.format("latency  target %5d/s (achieved %6.0f/s), %d changes: p50 %6.1f ms  p99 %6.1f ms  max %6.1f ms  (%d arrived before the commit returned)",
                rate, achieved, changes, histogram.getValueAtPercentile(50) / 1000.0,
                histogram.getValueAtPercentile(99) / 1000.0, histogram.getMaxValue() / 1000.0, early);
    }

    private String bulk(Connection connection, int rows) throws Exception {
        bulkEvents.set(0);
        bulkVersion = 100;
        long start = System.nanoTime();
        try (Statement statement = connection.createStatement()) {
            statement.executeUpdate("UPDATE bench_row SET version = 100");
        }
        long committed = System.nanoTime();
        long deadline = committed + TimeUnit.SECONDS.toNanos(300);
        while (bulkEvents.get() < rows && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        long last = lastBulkEventNanos.get();
        double seconds = (last - start) / 1e9;
        return String.format("bulk     UPDATE of %d rows in one transaction: statement %.2f s, all %d events in Kafka after %.2f s"
                        + " -> %.0f row changes/s (last event %.2f s after the commit returned)",
                rows, (committed - start) / 1e9, bulkEvents.get(), seconds, bulkEvents.get() / seconds, (last - committed) / 1e9);
    }

    private void runAtRate(Connection connection, int changes, int rate, int version) throws Exception {
        long interval = TimeUnit.SECONDS.toNanos(1) / rate;
        long next = System.nanoTime();
        try (PreparedStatement update = connection.prepareStatement("UPDATE bench_row SET version = ? WHERE id = ?")) {
            for (int id = 1; id <= changes; id++) {
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                next += interval;
                update.setInt(1, version);
                update.setLong(2, id);
                update.executeUpdate();
                committedAt.put(id + ":" + version, System.nanoTime());
            }
        }
    }

    private void awaitReceived(int count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (committedAt.keySet().stream().filter(receivedAt::containsKey).count() >= count) {
                return;
            }
            Thread.sleep(10);
        }
        throw new IllegalStateException("only " + committedAt.keySet().stream().filter(receivedAt::containsKey).count()
                + " of " + count + " events arrived within " + timeout);
    }

    private void clear() {
        committedAt.clear();
        receivedAt.clear();
    }

    private Thread startConsumer(String bootstrapServers) throws InterruptedException {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "100");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> partitions = consumer.partitionsFor(TOPIC, Duration.ofSeconds(10)).stream()
                .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position); // resolve the end now, before any change is made
        Thread thread = new Thread(() -> {
            try (consumer) {
                while (consuming.get()) {
                    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(50))) {
                        long now = System.nanoTime();
                        if (record.value() == null) {
                            continue;
                        }
                        JsonNode after = JSON.readTree(record.value()).path("after");
                        int version = after.path("version").asInt();
                        if (version == bulkVersion) {
                            bulkEvents.incrementAndGet();
                            lastBulkEventNanos.set(now);
                        } else {
                            receivedAt.putIfAbsent(after.path("id").asLong() + ":" + version, now);
                        }
                    }
                }
            }
        }, "bench-consumer");
        thread.start();
        return thread;
    }
}
