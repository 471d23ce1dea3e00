package dev.cdccache.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.position.CommitPosition;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.connector.ConnectorProcess;
import dev.cdccache.infra.mariadb.MariaDbServer;
import io.micrometer.core.instrument.Counter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Large transactions end to end (real MariaDB with binlog, a real Kafka broker, the real connector process, a
 * client with two caches on the table): a transaction that changes more rows of a table than
 * {@code large-transactions.evict-table-after-rows} is published as its first rows and then ONE table-wide eviction
 * (a copy on each of the topic's three partitions); the client evicts both caches of the table once, and a proof
 * of the transaction's commit position implies the eviction was applied. The connector killed with SIGKILL while it
 * reads such a transaction, after it stored offsets of suppressed rows, evicts the transaction's table again when
 * it restarts.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LargeTransactionIT {

    private static final Duration CONVERGE = Duration.ofSeconds(90);
    private static final String DB = "bulk_db";
    private static final String PREFIX = "bulk";
    private static final String TOPIC = PREFIX + "." + DB + ".coupon";
    private static final String NAME = "large-transaction-it";
    /** Rows of the table: enough that reading one UPDATE of all of them takes the connector seconds. */
    private static final int ROWS = 200_000;
    private static final int THRESHOLD = 100;
    /** Rows cached: spread over the table, so over the three partitions and mostly among the suppressed rows. */
    private static final List<Long> SAMPLE = List.of(1L, 2L, 3L, 50L, 99L, 101L, 5_000L, 77_777L, 123_456L,
            150_001L, 199_999L, 200_000L);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static LocalStack stack;
    private static MariaDbServer mariaDb;
    private static ConnectorProcess connector;
    private static InvalidationClient client;
    private static final AtomicInteger loads = new AtomicInteger();
    private static final List<JsonNode> published = new CopyOnWriteArrayList<>();
    private static final List<JsonNode> storedOffsets = new CopyOnWriteArrayList<>();
    private static final AtomicBoolean recording = new AtomicBoolean(true);
    private static Thread recorder;

    @BeforeAll
    static void startEverything() {
        stack = LocalStack.shared();
        mariaDb = stack.mariaDb();
        mariaDb.createDatabase(DB);
        mariaDb.execute(DB, "DROP TABLE IF EXISTS coupon",
                "CREATE TABLE coupon (id BIGINT PRIMARY KEY, code VARCHAR(32) NOT NULL, issue_limit INT NOT NULL,"
                        + " UNIQUE KEY uk_code (code))",
                // before the connector starts (it starts at the current binlog position): not captured
                "INSERT INTO coupon SELECT seq, CONCAT('c', seq), 1 FROM seq_1_to_" + ROWS);
        connector = ConnectorProcess.builder(ConnectorJar.path(), stack)
                .tables(List.of(DB + ".coupon"))
                .topicPrefix(PREFIX)
                .name(NAME)
                .property("cdc.connector.large-transactions.evict-table-after-rows", Integer.toString(THRESHOLD))
                .property("cdc.connector.offsets.flush-interval", "100ms")
                .build()
                .start();
        recorder = new Thread(LargeTransactionIT::record, "large-transaction-recorder");
        recorder.setDaemon(true);
        recorder.start();
        client = new InvalidationClient(InvalidationClientConfig.builder()
                .bootstrapServers(stack.kafka().bootstrapServers())
                .topicPrefix(PREFIX)
                // without a registry of its own the client's meters count nothing that could be read back
                .meterRegistry(new io.micrometer.core.instrument.simple.SimpleMeterRegistry())
                // the heartbeat queues behind the bulk while the connector reads it: entries cached meanwhile must be
                // served, or the crash test could not cache anything inside the transaction
                .maxStaleness(Duration.ofSeconds(60))
                .cache(CacheDefinition.builder("byId").table(DB + ".coupon").keyColumns("id").build())
                .cache(CacheDefinition.builder("byCode").table(DB + ".coupon").keyColumns("code").build())
                .build());
        client.start();
        assertThat(client.awaitReady(CONVERGE)).isTrue();
        mariaDb.execute(DB, "UPDATE coupon SET issue_limit = 2 WHERE id = 1"); // a first change: topics are read
        awaitApplied(position());
        await().atMost(CONVERGE).until(() -> client.status().fresh());
    }

    @AfterAll
    static void stopEverything() throws InterruptedException {
        recording.set(false);
        if (recorder != null) {
            recorder.join(10_000);
        }
        if (client != null) {
            client.close();
        }
        if (connector != null) {
            connector.stop();
        }
    }

    /** Keeps every record of the change topic and of the connector's offsets topic, from the beginning. */
    private static void record() {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka().bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "large-transaction-it-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.METADATA_MAX_AGE_CONFIG, "500"), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(java.util.regex.Pattern.compile(java.util.regex.Pattern.quote(TOPIC) + "|"
                    + java.util.regex.Pattern.quote(NAME + ".offsets")));
            while (recording.get()) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                    if (r.value() == null) {
                        continue;
                    }
                    JsonNode value = JSON.readTree(new String(r.value(), StandardCharsets.UTF_8));
                    (r.topic().equals(TOPIC) ? published : storedOffsets).add(value);
                }
            }
        }
    }

    private static CommitPosition position() {
        try (Connection connection = mariaDb.adminConnection(DB); Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@gtid_binlog_pos")) {
            rs.next();
            return CommitPosition.parse(rs.getString(1)).orElseThrow();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Runs one statement in its own transaction and returns that transaction's GTID. */
    private static String commit(String sql) {
        try (Connection connection = mariaDb.adminConnection(DB); Statement s = connection.createStatement()) {
            connection.setAutoCommit(true);
            s.executeUpdate(sql);
            try (ResultSet rs = s.executeQuery("SELECT @@last_gtid")) {
                rs.next();
                return rs.getString(1);
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void awaitApplied(CommitPosition position) {
        await().atMost(CONVERGE).until(() -> client.readYourWrites().isApplied("byId", position)
                && client.readYourWrites().isApplied("byCode", position));
    }

    private static void cacheSample(String value) {
        InvalidatingCache<Long, String> byId = client.cache("byId");
        InvalidatingCache<String, String> byCode = client.cache("byCode");
        Function<Object, String> loader = key -> value + " #" + loads.incrementAndGet();
        await().atMost(CONVERGE).untilAsserted(() -> {
            for (long id : SAMPLE) {
                byId.get(id, loader::apply);
                byCode.get("c" + id, loader::apply);
                assertThat(byId.lookup(id)).as("cached %s", id).isNotNull();
                assertThat(byCode.lookup("c" + id)).as("cached c%s", id).isNotNull();
            }
        });
    }

    private static List<String> sampleStillCached() {
        InvalidatingCache<Long, String> byId = client.cache("byId");
        InvalidatingCache<String, String> byCode = client.cache("byCode");
        List<String> cached = new ArrayList<>();
        for (long id : SAMPLE) {
            if (byId.lookup(id) != null) {
                cached.add("byId " + id);
            }
            if (byCode.lookup("c" + id) != null) {
                cached.add("byCode c" + id);
            }
        }
        return cached;
    }

    private static double tableEvictions() {
        Counter counter = client.meterRegistry().find("cdc.client.table.evictions")
                .tag("table", DB + ".coupon").tag("reason", "coalesced_transaction").counter();
        return counter == null ? 0 : counter.count();
    }

    private static List<JsonNode> ofTransaction(String gtid) {
        return published.stream().filter(v -> gtid.equals(v.path("source").path("gtid").asString(null))).toList();
    }

    private static List<JsonNode> evictions(String gtid) {
        return ofTransaction(gtid).stream().filter(v -> v.path("coalesced").isObject()).toList();
    }

    @Test
    @Order(1)
    void aLargeUpdateIsPublishedAsItsFirstRowsAndOneEvictionPerPartitionWhichTheClientAppliesOnce() {
        cacheSample("before the update");
        double before = tableEvictions();

        String update = commit("UPDATE coupon SET issue_limit = issue_limit + 1");
        String single = commit("UPDATE coupon SET issue_limit = 7 WHERE id = 199999");
        long committed = System.currentTimeMillis();
        CommitPosition afterBoth = position();

        // a heartbeat written after the transaction, applied and confirmed by a position check: the eviction was
        // applied on every partition
        await().atMost(CONVERGE).until(() -> client.cacheStatus("byId").watermarkMillis() > committed
                && client.cacheStatus("byCode").watermarkMillis() > committed);
        assertThat(sampleStillCached()).as("entries of the table left once a later heartbeat was applied").isEmpty();
        // and so does a read floor at the transaction's commit position
        awaitApplied(afterBoth);
        assertThat(tableEvictions()).as("three copies, one eviction").isEqualTo(before + 1);

        await().atMost(CONVERGE).until(() -> evictions(update).size() == 3 && !ofTransaction(single).isEmpty());
        List<JsonNode> rows = ofTransaction(update).stream().filter(v -> !v.path("coalesced").isObject()).toList();
        assertThat(rows).as("row events published before the eviction").hasSize(THRESHOLD);
        assertThat(evictions(update)).allSatisfy(e -> {
            assertThat(e.path("coalesced").path("transaction").asString()).isEqualTo(update);
            assertThat(e.path("coalesced").path("rows_published").asInt()).isEqualTo(THRESHOLD);
            assertThat(e.path("truncated_columns").toString()).isEqualTo("[\"*\"]");
        });
        assertThat(evictions(update).stream().map(e -> e.path("coalesced").path("eviction").asString()).distinct())
                .as("copies of one eviction").hasSize(1);
        assertThat(ofTransaction(single)).as("the one-row change right after it").hasSize(1);
    }

    @Test
    @Order(2)
    void aConnectorKilledInsideACoalescedTransactionEvictsItsTableAgainOnRestart() throws Exception {
        cacheSample("before the update");
        double before = tableEvictions();

        String update = commit("UPDATE coupon SET issue_limit = issue_limit + 1");
        // the first eviction reached the client: what it cached before is gone
        await().atMost(CONVERGE).until(() -> tableEvictions() == before + 1);
        assertThat(sampleStillCached()).isEmpty();
        // entries cached after the first eviction: stale, had the rest of the transaction been lost
        cacheSample("cached while the connector reads the transaction");
        // the connector stored offsets of rows it suppressed (inside the transaction), then dies
        int offsetsSeen = storedOffsets.size();
        await().atMost(CONVERGE).pollInterval(Duration.ofMillis(5)).until(() -> storedOffsets.size() > offsetsSeen);
        connector.kill();
        await().atMost(CONVERGE).until(() -> evictions(update).size() == 3);

        connector.restart();
        awaitApplied(position());
        await().atMost(CONVERGE).untilAsserted(() -> assertThat(evictions(update).stream()
                .map(e -> e.path("coalesced").path("eviction").asString()).distinct())
                .as("the restart evicted the transaction's table again, as a new eviction (if not: the connector had"
                        + " read the whole transaction before it was killed)").hasSize(2));
        assertThat(sampleStillCached()).as("entries left after the restart re-read the transaction").isEmpty();
        assertThat(tableEvictions()).isEqualTo(before + 2);
        assertThat(Files.readString(connector.logFile())).contains("published a table-wide eviction to the 3 partitions");
    }
}
