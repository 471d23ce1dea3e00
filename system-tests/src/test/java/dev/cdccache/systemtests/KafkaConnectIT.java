package dev.cdccache.systemtests;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdccache.client.cache.CachedValue;
import dev.cdccache.client.parsing.ChangeEvent;
import dev.cdccache.client.parsing.Operation;
import dev.cdccache.client.staleness.StalenessStatus;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.connector.ConnectorProcess;
import dev.cdccache.infra.kafka.ConnectCluster;
import dev.cdccache.infra.kafka.KafkaConnectWorker;
import dev.cdccache.infra.mariadb.MariaDbServer;
import dev.cdccache.infra.process.JavaProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import java.util.stream.StreamSupport;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The connector on a real Kafka Connect cluster (the JVM's {@link ConnectCluster#shared() shared one}: three brokers
 * and two distributed workers started from the Kafka jars; this class's connector is removed when it ends), the
 * Debezium MariaDB plugin as released ({@code debezium-connector-mariadb}, classifier {@code plugin}) on their
 * plugin path, and the connector deployed through the REST API from exactly what
 * {@code cdc-connector --cdc.connector.export-connect-config=true} prints. The embedded connector reads the
 * same binlog meanwhile, under another topic prefix, so both deployments are compared on the same commits.
 *
 * <p>Heartbeats: no HeartbeatWriter runs on Connect; the heartbeat row is written by Debezium's
 * {@code heartbeat.action.query}, which runs when an event passes the connector's binlog loop. On an idle
 * database the only such events are the server's replication heartbeats, which the exported keep-alive setting
 * asks for every 1.6 s. The failover scenario starts with an idle window (the embedded connector, whose own
 * heartbeat writes would move the binlog, stopped; nothing else writing) in which the Connect-fed client must
 * stay fresh and keep receiving heartbeats.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KafkaConnectIT {

    private static final String DB = "kc_db";
    private static final String EMBEDDED_PREFIX = "embedded";
    private static final String CONNECT_PREFIX = "connect";
    private static final String CONNECTOR = "connect-it";
    private static final Duration CONVERGE = Duration.ofSeconds(60);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static final Path CONNECTOR_JAR = ConnectorJar.path();

    private static LocalStack stack;
    private static MariaDbServer mariaDb;
    private static ConnectCluster connect;
    private static ConnectorProcess embedded;
    private static InvalidationClient embeddedClient;
    private static InvalidationClient connectClient;
    private static final List<ChangeEvent> embeddedEvents = new CopyOnWriteArrayList<>();
    private static final List<ChangeEvent> connectEvents = new CopyOnWriteArrayList<>();
    private static long started;

    @BeforeAll
    static void startEverything() throws Exception {
        started = System.nanoTime();
        stack = LocalStack.shared();
        mariaDb = stack.mariaDb();
        mariaDb.createDatabase(DB);
        mariaDb.execute(DB,
                "CREATE TABLE item (id BIGINT PRIMARY KEY, code VARCHAR(32) NOT NULL, name VARCHAR(64) NOT NULL, "
                        + "price DECIMAL(10,2) NOT NULL, version INT NOT NULL, changed_at DATETIME(6) NOT NULL, "
                        + "UNIQUE KEY uk_code (code))");

        // The JVMs start side by side: most of their start-up is waiting (group joins, binlog connection).
        ExecutorService starter = Executors.newFixedThreadPool(2);
        Future<ConnectCluster> cluster = starter.submit(ConnectCluster::shared);
        Future<ConnectorProcess> embeddedStarted = starter.submit(() -> ConnectorProcess.builder(CONNECTOR_JAR, stack)
                .tables(List.of(DB + ".item"))
                .topicPrefix(EMBEDDED_PREFIX)
                .name("embedded-it")
                .build()
                .start());
        starter.shutdown();
        connect = cluster.get();
        String connectorJson = exportConnectConfig();

        KafkaConnectWorker.Response created = connect.runningWorker().post("/connectors", connectorJson);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        await().atMost(CONVERGE).until(() -> taskWorker(connect.runningWorker()) != null);

        embedded = embeddedStarted.get();

        // Connect creates a table's topic only with its first record, and clients do not trust caches bound to a
        // topic that does not exist: create it ahead, as an operator deploying onto Connect would.
        // (with the partition count the embedded connector provisions, so both spread rows alike)
        int partitions;
        try (var admin = stack.kafka().admin()) {
            partitions = admin.describeTopics(List.of(EMBEDDED_PREFIX + "." + DB + ".item")).allTopicNames()
                    .get(30, java.util.concurrent.TimeUnit.SECONDS).get(EMBEDDED_PREFIX + "." + DB + ".item")
                    .partitions().size();
        }
        try (var admin = connect.kafka().admin()) {
            admin.createTopics(List.of(new NewTopic(CONNECT_PREFIX + "." + DB + ".item", partitions, (short) 1)))
                    .all().get(30, java.util.concurrent.TimeUnit.SECONDS);
        }
        embeddedClient = client(EMBEDDED_PREFIX, embeddedEvents);
        connectClient = client(CONNECT_PREFIX, connectEvents);
        for (InvalidationClient client : List.of(embeddedClient, connectClient)) {
            client.start();
            assertThat(client.awaitReady(Duration.ofSeconds(30))).isTrue();
        }
        // Connect creates its topics on their first record; clients read a topic that appears later from its start.
        for (InvalidationClient client : List.of(embeddedClient, connectClient)) {
            await().atMost(CONVERGE).until(() -> client.status().fresh());
        }
        System.out.printf("KafkaConnectIT: set-up (2 workers, connector deployed, embedded connector, clients) took %d ms%n",
                (System.nanoTime() - started) / 1_000_000);
    }

    @AfterAll
    static void stopEverything() {
        for (AutoCloseable part : new AutoCloseable[] {embeddedClient, connectClient, embedded}) {
            try {
                if (part != null) {
                    part.close();
                }
            } catch (Exception ignored) {
                // keep closing the others
            }
        }
        if (connect != null) {
            connect.removeConnector(CONNECTOR); // the shared cluster runs on (its killed worker restarted) for the next class
        }
        System.out.printf("KafkaConnectIT: %d ms in all%n", (System.nanoTime() - started) / 1_000_000);
    }

    /** What a user runs: the runnable connector with its settings and the export flag; stdout is the JSON. */
    private static String exportConnectConfig() throws Exception {
        Path output = Path.of("target", "connect-it", "connector.json");
        Files.createDirectories(output.getParent());
        Files.deleteIfExists(output); // the process log is appended to
        JavaProcess export = JavaProcess.builder("connect-export")
                .jar(CONNECTOR_JAR)
                .logFile(output)
                .jvmArg("-XX:TieredStopAtLevel=1")
                .env("CDC_CONNECTOR_DATABASE_PASSWORD", mariaDb.connectorPassword())
                .arg("--cdc.connector.export-connect-config=true")
                .arg("--cdc.connector.name=" + CONNECTOR)
                .arg("--cdc.connector.database.host=" + mariaDb.host())
                .arg("--cdc.connector.database.port=" + mariaDb.port())
                .arg("--cdc.connector.database.user=" + mariaDb.connectorUser())
                .arg("--cdc.connector.tables=" + DB + ".item")
                .arg("--cdc.connector.topic-prefix=" + CONNECT_PREFIX)
                .arg("--cdc.connector.kafka.bootstrap-servers=" + bootstrapServers(CONNECT_PREFIX))
                .start();
        assertThat(export.waitFor(Duration.ofSeconds(90))).as(export.tail(30)).isZero();
        String json = Files.readString(export.logFile());
        assertThat(json).doesNotContain(mariaDb.connectorPassword());
        return json;
    }

    /** The embedded connector publishes to the shared stack's broker, the one on Connect to the Connect cluster. */
    private static String bootstrapServers(String prefix) {
        return prefix.equals(CONNECT_PREFIX) ? connect.kafka().bootstrapServers() : stack.kafka().bootstrapServers();
    }

    private static InvalidationClient client(String prefix, List<ChangeEvent> applied) {
        InvalidationClientConfig.Builder config = InvalidationClientConfig.builder()
                .bootstrapServers(bootstrapServers(prefix))
                .topicPrefix(prefix)
                .clientId("kc-" + prefix)
                .maxStaleness(Duration.ofSeconds(5))
                .cache(CacheDefinition.builder("items").table(DB + ".item").keyColumns("id").build())
                .cache(CacheDefinition.builder("itemsByCode").table(DB + ".item").keyColumns("code").build())
                .listener(applied::add);
        return new InvalidationClient(config.build());
    }

    // --- the scenarios -----------------------------------------------------------------------------------

    @Test
    @Order(1)
    void clientsOfTheConnectConnectorReceiveTheSameEventsAndEvictTheSameEntriesAsWithTheEmbeddedOne() throws Exception {
        for (int id = 1; id <= 6; id++) {
            sql("INSERT INTO item VALUES (" + id + ", 'c" + id + "', 'item " + id + "', " + id + ".50, 0, UTC_TIMESTAMP(6))");
        }
        // inserts applied before the caches are filled, so that only the changes below evict
        for (List<ChangeEvent> events : List.of(embeddedEvents, connectEvents)) {
            await().atMost(CONVERGE).until(() -> count(events, Operation.CREATE) == 6);
        }
        for (InvalidationClient client : List.of(embeddedClient, connectClient)) {
            for (long id = 1; id <= 6; id++) {
                client.<Long, String>cache("items").get(id, KafkaConnectIT::rowById);
            }
            for (String code : List.of("c1", "c2", "c3", "c4", "c5", "c6", "c2-new")) {
                client.<String, String>cache("itemsByCode").get(code, KafkaConnectIT::rowByCode); // c2-new: cached as absent
            }
        }

        sql("UPDATE item SET name = 'renamed', changed_at = UTC_TIMESTAMP(6) WHERE id = 1");
        sql("UPDATE item SET code = 'c2-new' WHERE id = 2");            // a secondary key: old and new evicted
        sql("DELETE FROM item WHERE id = 3");                          // a delete and its tombstone
        transaction("UPDATE item SET price = price + 1 WHERE id = 1",  // two rows in one transaction
                "UPDATE item SET price = price + 1 WHERE id = 4");

        for (InvalidationClient client : List.of(embeddedClient, connectClient)) {
            await().atMost(CONVERGE).untilAsserted(() -> {
                assertThat(keys(client, "items")).as(client.config().topicPrefix()).containsExactlyInAnyOrder(5L, 6L);
                assertThat(keys(client, "itemsByCode")).as(client.config().topicPrefix()).containsExactlyInAnyOrder("c5", "c6");
            });
        }

        sql("TRUNCATE TABLE item");
        for (InvalidationClient client : List.of(embeddedClient, connectClient)) {
            await().atMost(CONVERGE).untilAsserted(() -> {
                assertThat(keys(client, "items")).isEmpty();
                assertThat(keys(client, "itemsByCode")).isEmpty();
            });
        }
        assertThat(count(connectEvents, Operation.TRUNCATE)).isEqualTo(1);

        // The same records: 6 inserts, 4 updates, 1 delete + tombstone, 1 truncate.
        List<ConsumerRecord<String, String>> fromEmbedded = read(EMBEDDED_PREFIX + "." + DB + ".item", 13);
        List<ConsumerRecord<String, String>> fromConnect = read(CONNECT_PREFIX + "." + DB + ".item", 13);
        assertThat(byKey(fromConnect)).isEqualTo(byKey(fromEmbedded));
        assertThat(headerKeys(fromConnect)).isEqualTo(headerKeys(fromEmbedded));
        List<String> deleted = byKey(fromConnect).get("{\"id\":3}");
        assertThat(deleted).as("insert, delete, tombstone").hasSize(3);
        assertThat(deleted.get(2)).as("tombstone").endsWith(" null");

        // Heartbeats: the same envelope. Compare the steady-state one, an update of the connector's row: whether
        // a connector's first heartbeat inserts its row depends on start-up timing (who wrote the row first).
        ConsumerRecord<String, String> embeddedHeartbeat = firstUpdate(EMBEDDED_PREFIX + "." + MariaDbServer.HEARTBEAT_TABLE);
        ConsumerRecord<String, String> connectHeartbeat = firstUpdate(CONNECT_PREFIX + "." + MariaDbServer.HEARTBEAT_TABLE);
        assertThat(shape(JSON.readTree(connectHeartbeat.key()))).isEqualTo(shape(JSON.readTree(embeddedHeartbeat.key())));
        assertThat(shape(JSON.readTree(connectHeartbeat.value()))).isEqualTo(shape(JSON.readTree(embeddedHeartbeat.value())));
        assertThat(headerKeys(List.of(connectHeartbeat))).isEqualTo(headerKeys(List.of(embeddedHeartbeat)));
    }

    @Test
    @Order(2)
    void killingTheWorkerThatRunsTheTaskMovesItToTheOtherWorkerAndNoCommittedChangeIsLost() throws Exception {
        embedded.stop(); // its heartbeat writes would move the binlog; it also frees a core for the failover

        // An idle database: nothing writes. Heartbeats must keep coming through Connect alone.
        List<Long> heartbeats = new ArrayList<>();
        long idleUntil = System.nanoTime() + Duration.ofSeconds(6).toNanos();
        while (System.nanoTime() < idleUntil) {
            StalenessStatus status = connectClient.status();
            assertThat(status.fresh()).as("fresh while the database is idle: %s", status).isTrue();
            if (heartbeats.isEmpty() || heartbeats.get(heartbeats.size() - 1) != status.lastHeartbeatMillis()) {
                heartbeats.add(status.lastHeartbeatMillis());
            }
            Thread.sleep(100);
        }
        assertThat(heartbeats).as("heartbeat rows applied in 6 idle seconds").hasSizeGreaterThanOrEqualTo(3);
        System.out.printf("KafkaConnectIT: idle database, heartbeat rows %d ms apart%n",
                (heartbeats.get(heartbeats.size() - 1) - heartbeats.get(0)) / (heartbeats.size() - 1));

        int rows = 20;
        for (int id = 101; id <= 100 + rows; id++) {
            sql("INSERT INTO item VALUES (" + id + ", 'k" + id + "', 'item " + id + "', 1.00, 0, UTC_TIMESTAMP(6))");
        }
        await().atMost(CONVERGE).until(() -> connectEvents.stream()
                .filter(e -> e.operation() == Operation.CREATE && e.after().path("id").asLong() > 100).count() == rows);
        InvalidatingCache<Long, String> items = connectClient.cache("items");
        for (long id = 101; id <= 100 + rows; id++) {
            items.get(id, KafkaConnectIT::rowById);
        }

        List<KafkaConnectWorker> workers = connect.workers();
        String victimId = taskWorker(workers.get(0));
        KafkaConnectWorker victim = workers.stream().filter(w -> w.workerId().equals(victimId)).findFirst().orElseThrow();
        KafkaConnectWorker survivor = workers.stream().filter(w -> w != victim).findFirst().orElseThrow();

        // A writer commits version after version of every row, before, during and after the failover.
        Map<Long, Integer> committed = new ConcurrentHashMap<>();
        AtomicBoolean writing = new AtomicBoolean(true);
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try (Connection c = mariaDb.adminConnection(DB);
                    PreparedStatement update = c.prepareStatement(
                            "UPDATE item SET version = ?, changed_at = UTC_TIMESTAMP(6) WHERE id = ?")) {
                for (int round = 1; writing.get(); round++) {
                    for (long id = 101; id <= 100 + rows && writing.get(); id++) {
                        update.setInt(1, round);
                        update.setLong(2, id);
                        update.executeUpdate();
                        committed.put(id, round); // autocommit: committed once executeUpdate returned
                        Thread.sleep(10);
                    }
                }
            } catch (SQLException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(CONVERGE).until(() -> committed.size() == rows);
        Thread.sleep(500);

        long killedAt = System.nanoTime();
        victim.kill();
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                .until(() -> survivor.workerId().equals(taskWorker(survivor)));
        long movedMillis = (System.nanoTime() - killedAt) / 1_000_000;
        Thread.sleep(1000); // commits after the move too
        writing.set(false);
        writer.join();
        Map<Long, Integer> last = new TreeMap<>(committed);

        // every committed version reaches the client (at least once; duplicates after the move are harmless)
        await().atMost(CONVERGE).untilAsserted(() -> {
            Map<Long, Set<Integer>> seen = versionsSeen();
            for (Map.Entry<Long, Integer> row : last.entrySet()) {
                assertThat(seen.getOrDefault(row.getKey(), Set.of()))
                        .as("versions of row %d the client received", row.getKey())
                        .containsAll(IntStream.rangeClosed(1, row.getValue()).boxed().toList());
            }
        });
        // heartbeats flow again through the surviving worker, and nothing cached is older than the database
        await().atMost(CONVERGE).until(() -> connectClient.status().fresh());
        for (long id = 101; id <= 100 + rows; id++) {
            var entry = items.caffeine().getIfPresent(id);
            if (entry != null) {
                assertThat(CachedValue.<String>valueOf(entry)).as("cached row %d", id).isEqualTo(rowById(id));
            }
        }
        int total = last.values().stream().mapToInt(Integer::intValue).sum();
        System.out.printf("KafkaConnectIT: task moved from %s to %s %d ms after SIGKILL; %d updates committed, all received%n",
                victimId, survivor.workerId(), movedMillis, total);
    }

    // --- helpers -----------------------------------------------------------------------------------------

    /** The worker running task 0 of the connector as {@code worker} reports it, or null unless it is RUNNING. */
    private static String taskWorker(KafkaConnectWorker worker) {
        KafkaConnectWorker.Response status = worker.get("/connectors/" + CONNECTOR + "/status");
        if (status.status() != 200) {
            return null;
        }
        JsonNode task = JSON.readTree(status.body()).path("tasks").path(0);
        return "RUNNING".equals(task.path("state").asString()) ? task.path("worker_id").asString() : null;
    }

    private static Map<Long, Set<Integer>> versionsSeen() {
        Map<Long, Set<Integer>> seen = new HashMap<>();
        for (ChangeEvent e : connectEvents) {
            if (e.operation() == Operation.UPDATE && e.after().path("id").asLong() > 100) {
                seen.computeIfAbsent(e.after().path("id").asLong(), k -> new TreeSet<>()).add(e.after().path("version").asInt());
            }
        }
        return seen;
    }

    private static long count(List<ChangeEvent> events, Operation op) {
        return events.stream().filter(e -> e.operation() == op).count();
    }

    private static Set<Object> keys(InvalidationClient client, String cache) {
        return new java.util.HashSet<>(client.cache(cache).caffeine().asMap().keySet());
    }

    /**
     * Per key, in log order, the partition and the value without what differs by nature between two
     * connectors reading the same binlog: the processing time ({@code ts_ms}, {@code ts_us}, {@code ts_ns}) and
     * the logical name ({@code source.name} = the topic prefix). Everything else, {@code source}'s binlog file,
     * position, row, commit time and server id included, must be identical.
     */
    private static Map<String, List<String>> byKey(List<ConsumerRecord<String, String>> records) {
        Map<String, List<String>> byKey = new TreeMap<>();
        for (ConsumerRecord<String, String> r : records) {
            String key = String.valueOf(r.key());
            String value = "null";
            if (r.value() != null) {
                ObjectNode node = (ObjectNode) JSON.readTree(r.value());
                node.remove(List.of("ts_ms", "ts_us", "ts_ns"));
                ((ObjectNode) node.path("source")).remove("name");
                value = node.toString();
            }
            // a truncate has no key: its partition is the producer's choice
            byKey.computeIfAbsent(key, k -> new ArrayList<>()).add((r.key() == null ? "" : "p" + r.partition() + " ") + value);
        }
        return byKey;
    }

    /**
     * The header names, without Debezium's own context headers ({@code __debezium.context.*}: connector name,
     * task id, run id), which Debezium adds to its records on Connect and the embedded connector does not
     * forward. Clients read no header but the contract's own.
     */
    private static Set<String> headerKeys(List<ConsumerRecord<String, String>> records) {
        Set<String> keys = new TreeSet<>();
        records.forEach(r -> StreamSupport.stream(r.headers().spliterator(), false).map(Header::key)
                .filter(key -> !key.startsWith("__debezium.context.")).forEach(keys::add));
        return keys;
    }

    /** Field paths of a JSON document with the type of each value: the structure, not the values. */
    private static Set<String> shape(JsonNode node) {
        Set<String> paths = new TreeSet<>();
        shape(node, "", paths);
        return paths;
    }

    private static void shape(JsonNode node, String path, Set<String> paths) {
        if (node.isObject()) {
            node.properties().forEach(e -> shape(e.getValue(), path + "/" + e.getKey(), paths));
        } else {
            paths.add(path + ":" + node.getNodeType());
        }
    }

    /** The first update event ({@code op: "u"}) on {@code topic}, read from the beginning. */
    private static ConsumerRecord<String, String> firstUpdate(String topic) throws Exception {
        // Heartbeats keep coming, so a few more records always hold an update unless heartbeats stopped.
        for (ConsumerRecord<String, String> record : read(topic, 4)) {
            if (record.value() != null && "u".equals(JSON.readTree(record.value()).path("op").asText())) {
                return record;
            }
        }
        throw new AssertionError("no heartbeat update among the first 4 records of " + topic);
    }

    /** The first {@code count} records of every partition of {@code topic}, read from the beginning. */
    private static List<ConsumerRecord<String, String>> read(String topic, int count) {
        Map<String, Object> props = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(topic.substring(0, topic.indexOf('.'))),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(10)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + CONVERGE.toNanos();
            while (records.size() < count && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        assertThat(records).as("records on " + topic).hasSizeGreaterThanOrEqualTo(count);
        return records.subList(0, count);
    }

    private static void sql(String statement) {
        mariaDb.execute(DB, statement);
    }

    private static void transaction(String... statements) throws SQLException {
        try (Connection c = mariaDb.adminConnection(DB)) {
            c.setAutoCommit(false);
            for (String s : statements) {
                c.createStatement().executeUpdate(s);
            }
            c.commit();
        }
    }

    private static String rowById(Long id) {
        return row("id", id);
    }

    private static String rowByCode(String code) {
        return row("code", code);
    }

    /** The row as one string, or null when there is none (the cached value: what a service would load). */
    private static String row(String column, Object key) {
        String sql = "SELECT CONCAT_WS('|', id, code, name, price, version) FROM item WHERE " + column + " = ?";
        try (Connection c = mariaDb.adminConnection(DB); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setObject(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
