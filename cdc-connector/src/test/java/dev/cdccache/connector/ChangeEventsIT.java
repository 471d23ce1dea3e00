package dev.cdccache.connector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdccache.connector.testing.ChangeTopicRecorder;
import dev.cdccache.connector.testing.ChangeTopicRecorder.Change;
import dev.cdccache.connector.testing.InProcessConnector;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.junit.LocalStackExtension;
import dev.cdccache.infra.mariadb.MariaDbServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

/**
 * Every kind of change reaches Kafka as the event contract says: real MariaDB binlog, real Debezium
 * engine, real Kafka broker. One connector serves all tests of the class; each test uses its own rows.
 */
@ExtendWith(LocalStackExtension.class)
class ChangeEventsIT {

    private static final String DB = "events_db";
    private static final String PREFIX = "evt";
    private static final String ITEM_TOPIC = PREFIX + "." + DB + ".item";
    private static final String LOG_TOPIC = PREFIX + "." + DB + ".audit_log";
    private static final String EVOLVING_TOPIC = PREFIX + "." + DB + ".evolving";
    private static final String DOCUMENT_TOPIC = PREFIX + "." + DB + ".document";
    private static final String HEARTBEAT_TOPIC = PREFIX + ".cdc_meta.heartbeat";
    private static final Duration WAIT = Duration.ofSeconds(30);

    private static MariaDbServer db;
    private static LocalStack stack;
    private static InProcessConnector connector;
    private static ChangeTopicRecorder recorder;

    @BeforeAll
    static void startConnector(LocalStack localStack) {
        stack = localStack;
        db = stack.mariaDb();
        db.createDatabase(DB);
        db.execute(DB,
                "CREATE TABLE item (id BIGINT PRIMARY KEY, name VARCHAR(64) NOT NULL, price DECIMAL(10,2), version INT NOT NULL)",
                "CREATE TABLE audit_log (id BIGINT PRIMARY KEY, message VARCHAR(64))",
                "CREATE TABLE evolving (id BIGINT PRIMARY KEY, name VARCHAR(64))",
                "CREATE TABLE document (id BIGINT PRIMARY KEY, title VARCHAR(64) NOT NULL, body LONGTEXT)");
        connector = InProcessConnector.start(InProcessConnector.settings(stack, "events-it", PREFIX,
                List.of(DB + ".item", DB + ".audit_log", DB + ".evolving", DB + ".document")));
        recorder = new ChangeTopicRecorder(stack.kafka().bootstrapServers(),
                List.of(ITEM_TOPIC, LOG_TOPIC, EVOLVING_TOPIC, DOCUMENT_TOPIC, HEARTBEAT_TOPIC));
    }

    @AfterAll
    static void stopConnector() {
        if (recorder != null) {
            recorder.close();
        }
        if (connector != null) {
            connector.close();
        }
    }

    private static boolean key(Change c, long id) {
        return c.keyJson() != null && c.keyJson().path("id").asLong() == id;
    }

    @Test
    void insertProducesCreateEventKeyedByPrimaryKey() {
        db.execute(DB, "INSERT INTO item (id, name, price, version) VALUES (1, 'pen', 9.99, 1)");

        Change change = recorder.await(ITEM_TOPIC, c -> key(c, 1), 1, WAIT).get(0);
        assertThat(change.key()).isEqualTo("{\"id\":1}");
        assertThat(change.op()).isEqualTo("c");
        JsonNode value = change.value();
        assertThat(value.get("before").isNull()).isTrue();
        assertThat(value.path("after").path("name").asString()).isEqualTo("pen");
        assertThat(value.path("after").path("price").isString()).as("DECIMAL as string").isTrue();
        assertThat(value.path("after").path("price").asString()).isEqualTo("9.99");
        assertThat(value.path("source").path("db").asString()).isEqualTo(DB);
        assertThat(value.path("source").path("table").asString()).isEqualTo("item");
        assertThat(value.path("source").path("ts_ms").asLong()).isPositive();
        assertThat(value.has("schema")).as("schemas disabled").isFalse();
    }

    @Test
    void updateOfNonKeyColumnCarriesBeforeAndAfter() {
        db.execute(DB, "INSERT INTO item (id, name, price, version) VALUES (2, 'cup', 3.50, 1)",
                "UPDATE item SET name = 'mug', version = 2 WHERE id = 2");

        Change update = recorder.await(ITEM_TOPIC, c -> key(c, 2) && "u".equals(c.op()), 1, WAIT).get(0);
        assertThat(update.value().path("before").path("name").asString()).isEqualTo("cup");
        assertThat(update.value().path("after").path("name").asString()).isEqualTo("mug");
        assertThat(update.value().path("before").path("price").asString()).isEqualTo("3.50");
    }

    @Test
    void deleteIsFollowedByATombstoneOnTheSamePartition() {
        db.execute(DB, "INSERT INTO item (id, name, price, version) VALUES (3, 'box', 1.00, 1)",
                "DELETE FROM item WHERE id = 3");

        List<Change> changes = recorder.await(ITEM_TOPIC, c -> key(c, 3), 3, WAIT);
        assertThat(changes).extracting(Change::op).containsExactly("c", "d", null);
        Change delete = changes.get(1);
        Change tombstone = changes.get(2);
        assertThat(delete.value().path("before").path("name").asString()).isEqualTo("box");
        assertThat(delete.value().get("after").isNull()).isTrue();
        assertThat(tombstone.isTombstone()).isTrue();
        assertThat(tombstone.key()).isEqualTo("{\"id\":3}");
        assertThat(tombstone.partition()).isEqualTo(delete.partition());
        assertThat(tombstone.offset()).isEqualTo(delete.offset() + 1);
    }

    @Test
    void truncateIsEmitted() {
        db.execute(DB, "INSERT INTO audit_log (id, message) VALUES (1, 'a'), (2, 'b')", "TRUNCATE TABLE audit_log");

        Change truncate = recorder.await(LOG_TOPIC, c -> "t".equals(c.op()), 1, WAIT).get(0);
        assertThat(truncate.key()).as("a truncate concerns no single row").isNull();
        assertThat(truncate.value().get("before").isNull()).isTrue();
        assertThat(truncate.value().get("after").isNull()).isTrue();
        assertThat(truncate.value().path("source").path("table").asString()).isEqualTo("audit_log");
    }

    @Test
    void multiRowTransactionProducesOneEventPerRowWithItsKey() throws Exception {
        try (Connection connection = db.adminConnection(DB); Statement statement = connection.createStatement()) {
            connection.setAutoCommit(false);
            statement.executeUpdate("INSERT INTO item (id, name, price, version) VALUES (10, 'a', 1, 1), (11, 'b', 2, 1)");
            statement.executeUpdate("UPDATE item SET version = 2 WHERE id IN (10, 11)");
            statement.executeUpdate("INSERT INTO item (id, name, price, version) VALUES (12, 'c', 3, 1)");
            connection.commit();
        }

        List<Change> changes = recorder.await(ITEM_TOPIC, c -> key(c, 10) || key(c, 11) || key(c, 12), 5, WAIT);
        assertThat(changes).hasSize(5);
        Map<Long, List<String>> opsByKey = changes.stream().collect(Collectors.groupingBy(
                c -> c.keyJson().path("id").asLong(), Collectors.mapping(Change::op, Collectors.toList())));
        assertThat(opsByKey).containsEntry(10L, List.of("c", "u")).containsEntry(11L, List.of("c", "u"))
                .containsEntry(12L, List.of("c"));
    }

    @Test
    void rolledBackTransactionProducesNothing() throws Exception {
        try (Connection connection = db.adminConnection(DB); Statement statement = connection.createStatement()) {
            connection.setAutoCommit(false);
            statement.executeUpdate("INSERT INTO item (id, name, price, version) VALUES (20, 'ghost', 1, 1)");
            statement.executeUpdate("UPDATE item SET name = 'ghost2' WHERE id = 20");
            connection.rollback();
            // the marker is committed after the rollback: once it is in Kafka, anything of the rolled-back
            // transaction would be too (binlog order, and every batch is acknowledged before the next)
            statement.executeUpdate("INSERT INTO item (id, name, price, version) VALUES (21, 'marker', 1, 1)");
            connection.commit();
        }

        recorder.await(ITEM_TOPIC, c -> key(c, 21), 1, WAIT);
        recorder.awaitCaughtUp(WAIT);
        assertThat(recorder.changes(ITEM_TOPIC)).noneMatch(c -> key(c, 20));
    }

    @Test
    void addColumnFollowedByUpdatesKeepsFlowing() {
        db.execute(DB, "INSERT INTO evolving (id, name) VALUES (1, 'before-ddl')",
                "ALTER TABLE evolving ADD COLUMN note VARCHAR(64) NULL",
                "UPDATE evolving SET note = 'after-ddl' WHERE id = 1",
                "INSERT INTO evolving (id, name, note) VALUES (2, 'new', 'with-note')");

        Change update = recorder.await(EVOLVING_TOPIC, c -> key(c, 1) && "u".equals(c.op()), 1, WAIT).get(0);
        assertThat(update.value().path("after").path("note").asString()).isEqualTo("after-ddl");
        assertThat(update.value().path("before").path("note").isNull()).isTrue();
        Change insert = recorder.await(EVOLVING_TOPIC, c -> key(c, 2), 1, WAIT).get(0);
        assertThat(insert.value().path("after").path("note").asString()).isEqualTo("with-note");
    }

    @Test
    void changeTopicsAreCreatedUpFrontWithTheConfiguredPartitions() throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka().bootstrapServers()))) {
            Map<String, TopicDescription> topics = admin.describeTopics(
                    Set.of(ITEM_TOPIC, LOG_TOPIC, EVOLVING_TOPIC, HEARTBEAT_TOPIC)).allTopicNames().get();
            assertThat(topics.values()).allSatisfy(t -> assertThat(t.partitions()).hasSize(3));
            assertThat(admin.listTopics().names().get()).contains("events-it.offsets", "events-it.schema-history");
        }
    }

    @Test
    void heartbeatRowIsTheConnectorsOwnWithWriteTimeEpochAndCoveredTables() {
        long before = System.currentTimeMillis() * 1000;
        Change heartbeat = recorder.await(HEARTBEAT_TOPIC,
                c -> c.value() != null && c.value().path("after").path("ts").asLong() >= before - 2_000_000, 1, WAIT).get(0);
        // docs/contract.md, "Heartbeats": one row per connector, id = the connector's name
        assertThat(heartbeat.key()).isEqualTo("{\"id\":\"events-it\"}");
        JsonNode after = heartbeat.value().path("after");
        assertThat(after.path("id").asString()).isEqualTo("events-it");
        assertThat(after.path("ts").asLong()).isLessThan((System.currentTimeMillis() + 5_000) * 1000);
        assertThat(after.path("epoch").asString()).isNotBlank();
        assertThat(after.path("tables").asString()).isEqualTo("events_db.item,events_db.audit_log,events_db.evolving,events_db.document");
        assertThat(heartbeat.headers()).containsEntry("cdc-connector", "events-it");
    }

    @Test
    void everyRecordCarriesTheConnectorHeaderChangeEventsTombstonesAndHeartbeats() {
        db.execute(DB, "INSERT INTO item (id, name, price, version) VALUES (40, 'tagged', 1, 1)",
                "DELETE FROM item WHERE id = 40");

        List<Change> changes = recorder.await(ITEM_TOPIC, c -> key(c, 40), 3, WAIT);
        assertThat(changes).extracting(Change::op).containsExactly("c", "d", null);
        assertThat(changes).allSatisfy(c -> assertThat(c.headers()).containsEntry("cdc-connector", "events-it"));
        recorder.await(HEARTBEAT_TOPIC, c -> c.value() != null, 1, WAIT);
        assertThat(recorder.changes(HEARTBEAT_TOPIC)).allSatisfy(c -> assertThat(c.headers()).containsEntry("cdc-connector", "events-it"));
    }

    @Test
    void oversizedRowIsPublishedReducedToItsKeyColumnsCountedAndTheConnectorGoesOn() throws Exception {
        // 2 MB of text: over the producer's default max.request.size (1 MiB), which used to stop the engine on
        // every restart at the same event (a crash loop)
        String body = "x".repeat(2 * 1024 * 1024);
        try (Connection connection = db.adminConnection(DB);
                java.sql.PreparedStatement insert = connection.prepareStatement("INSERT INTO document VALUES (1, 'big', ?)")) {
            insert.setString(1, body);
            insert.executeUpdate();
        }
        db.execute(DB, "UPDATE document SET title = 'bigger' WHERE id = 1",
                "INSERT INTO document VALUES (2, 'small', 'fits')");

        List<Change> big = recorder.await(DOCUMENT_TOPIC, c -> key(c, 1), 2, WAIT);
        Change insert = big.get(0);
        assertThat(insert.op()).isEqualTo("c");
        assertThat(insert.key()).isEqualTo("{\"id\":1}");
        assertThat(insert.value().path("after").properties()).extracting(java.util.Map.Entry::getKey).containsExactly("id");
        assertThat(insert.value().path("truncated_columns").toString()).isEqualTo("[\"title\",\"body\"]");
        assertThat(insert.value().path("source").path("table").asString()).isEqualTo("document");
        Change update = big.get(1);
        assertThat(update.op()).isEqualTo("u");
        assertThat(update.value().path("before").path("id").asLong()).isEqualTo(1);
        assertThat(update.value().path("before").has("body")).isFalse();
        assertThat(update.value().path("after").has("title")).isFalse();
        assertThat(update.headers()).containsEntry("cdc-connector", "events-it");

        Change small = recorder.await(DOCUMENT_TOPIC, c -> key(c, 2), 1, WAIT).get(0);
        assertThat(small.value().path("after").path("body").asString()).isEqualTo("fits");
        assertThat(small.value().has("truncated_columns")).isFalse();
        assertThat(connector.engine().state()).isEqualTo(dev.cdccache.connector.engine.EngineState.STREAMING);
        assertThat(connector.context().getBean(io.micrometer.core.instrument.MeterRegistry.class)
                .get("cdc.connector.events.oversized").tag("table", DB + ".document").counter().count()).isEqualTo(2);
    }

    @Test
    void heartbeatsArriveEveryIntervalOnAnIdleDatabase() {
        // Nothing else writes to the database now: the heartbeat rows must come from the connector's own
        // timer (interval 1 s), not from other traffic moving the binlog.
        long from = System.currentTimeMillis() * 1000;
        List<Change> beats = recorder.await(HEARTBEAT_TOPIC,
                c -> c.value() != null && c.value().path("after").path("ts").asLong() >= from, 4, WAIT);
        long fourthWrittenAfterMicros = beats.stream().mapToLong(c -> c.value().path("after").path("ts").asLong())
                .sorted().skip(3).findFirst().orElseThrow() - from;
        assertThat(fourthWrittenAfterMicros).as("4 heartbeats at a 1 s interval").isLessThan(6_000_000);
    }

    @Test
    void aLostBinlogConnectionIsCountedAndStreamingGoesOn() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        db.execute(DB, "INSERT INTO item (id, name, price, version) VALUES (40, 'before-cut', 1, 1)");
        recorder.await(ITEM_TOPIC, c -> key(c, 40), 1, WAIT);
        double before = binlogDisconnects(http);

        // Cut the binlog connection from the server's side, as a network cut or a killed session would.
        int killed = 0;
        try (Connection admin = db.adminConnection(DB); Statement statement = admin.createStatement()) {
            List<Long> dumps = new java.util.ArrayList<>();
            try (var rows = statement.executeQuery(
                    "SELECT ID FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'")) {
                while (rows.next()) {
                    dumps.add(rows.getLong(1));
                }
            }
            for (long id : dumps) {
                statement.execute("KILL CONNECTION " + id);
                killed++;
            }
        }
        assertThat(killed).as("binlog dump connections on the server").isPositive();

        await().atMost(WAIT).untilAsserted(() -> assertThat(binlogDisconnects(http)).isGreaterThan(before));
        db.execute(DB, "INSERT INTO item (id, name, price, version) VALUES (41, 'after-cut', 1, 1)");
        assertThat(recorder.await(ITEM_TOPIC, c -> key(c, 41), 1, WAIT)).hasSize(1);
    }

    /** {@code cdc_connector_binlog_disconnects_total} as the connector exports it. */
    private static double binlogDisconnects(HttpClient http) throws Exception {
        String metrics = http.send(HttpRequest.newBuilder(URI.create(connector.baseUrl() + "/actuator/prometheus")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        return metrics.lines().filter(l -> l.startsWith("cdc_connector_binlog_disconnects_total "))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.indexOf(' ') + 1))).findFirst()
                .orElseThrow(() -> new AssertionError("no cdc_connector_binlog_disconnects_total in\n" + metrics));
    }

    @Test
    void healthIsUpWithEngineDatabaseAndKafkaAndMetricsArePublishedForPrometheus() throws Exception {
        db.execute(DB, "INSERT INTO item (id, name, price, version) VALUES (30, 'metric', 1, 1)");
        recorder.await(ITEM_TOPIC, c -> key(c, 30), 1, WAIT);

        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create(connector.baseUrl() + "/actuator/health")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).contains("\"engine\"", "\"database\"", "\"kafka\"", "STREAMING");

        await().atMost(WAIT).untilAsserted(() -> {
            String metrics = http.send(HttpRequest.newBuilder(URI.create(connector.baseUrl() + "/actuator/prometheus")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertThat(metrics).contains("cdc_connector_events_published_total{table=\"events_db.item\"}",
                    "cdc_connector_publish_failures_total", "cdc_connector_commit_to_publish_lag_seconds_bucket",
                    "cdc_connector_last_event_time_seconds", "cdc_connector_engine_state 2.0");
        });
    }
}
