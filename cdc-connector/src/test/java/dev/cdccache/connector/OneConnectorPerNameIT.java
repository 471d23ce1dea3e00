package dev.cdccache.connector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.connector.testing.ChangeTopicRecorder;
import dev.cdccache.connector.testing.ChangeTopicRecorder.Change;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.connector.ConnectorProcess;
import dev.cdccache.infra.junit.LocalStackExtension;
import dev.cdccache.infra.mariadb.MariaDbServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * One connector per name, with real connector processes on the shared stack (docs/connector.md, "One process per
 * connector name"): a second process with a running connector's name, or with its replication server id, refuses to
 * start and names it, while the running one goes on streaming; a connector killed with SIGKILL gets its lease back at
 * once; offsets written under another table list are never resumed from under the same epoch.
 */
@ExtendWith(LocalStackExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OneConnectorPerNameIT {

    private static final String DB = "lease_db";
    private static final String PREFIX = "lease";
    private static final String NAME = "lease-orders";
    private static final String ORDERS_TOPIC = PREFIX + "." + DB + ".orders";
    private static final String BEAT_TOPIC = PREFIX + "." + MariaDbServer.HEARTBEAT_TABLE;
    private static final String SERVER_ID = "777001";
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static LocalStack stack;
    private static ConnectorProcess original;
    private static ChangeTopicRecorder recorder;
    private static int version;

    @BeforeAll
    static void start(LocalStack localStack) {
        stack = localStack;
        stack.mariaDb().createDatabase(DB);
        stack.mariaDb().execute(DB, "CREATE TABLE orders (id BIGINT PRIMARY KEY, version INT NOT NULL)",
                "CREATE TABLE stock (sku VARCHAR(32) PRIMARY KEY, quantity INT)", "INSERT INTO orders VALUES (1, 0)");
        original = connector(NAME, DB + ".orders", "original").property("cdc.connector.database.server-id", SERVER_ID)
                .build().start();
        recorder = new ChangeTopicRecorder(stack.kafka().bootstrapServers(), List.of(ORDERS_TOPIC, BEAT_TOPIC));
    }

    @AfterAll
    static void stop() {
        if (recorder != null) {
            recorder.close();
        }
        if (original != null) {
            original.stop();
        }
    }

    private static ConnectorProcess.Builder connector(String name, String table, String logName) {
        return ConnectorProcess.builder(ExecJar.path(), stack).name(name).topicPrefix(PREFIX).tables(List.of(table))
                .logFile(Path.of("target", "one-connector-per-name-" + logName + ".log"));
    }

    @Test
    @Order(1)
    void aSecondProcessWithTheSameNameRefusesToStartNamingTheRunningOneAndNoUpdateIsLost() throws Exception {
        update(7);
        ConnectorProcess duplicate = connector(NAME, DB + ".stock", "duplicate").build().launch();
        update(7); // committed while the duplicate tries to start: before the fix it took the binlog connection

        assertThat(duplicate.awaitExit(WAIT)).as("exit code of the duplicate").isEqualTo(1);
        String refusal = Files.readString(duplicate.logFile());
        assertThat(refusal).contains("Connector '" + NAME + "' is already running against")
                .contains("pid " + original.pid() + " on host").contains("running since");
        assertThat(original.isAlive()).isTrue();
        original.awaitHealthy(Duration.ofSeconds(5));

        original.restart();

        JsonNode continuity = continuityHealth(original);
        assertThat(continuity.path("details").path("verdict").asString()).isEqualTo("RESUMED");
        assertThat(continuity.path("details").path("lease").asString()).startsWith("held by this process");
        update(0);
        recorder.await(ORDERS_TOPIC, c -> versionOf(c) == version, 1, WAIT);
        assertThat(publishedVersions()).as("an event for every update").containsAll(
                LongStream.rangeClosed(1, 14).boxed().collect(Collectors.toSet()));
        Set<String> tables = recorder.changes(BEAT_TOPIC).stream().filter(c -> isRowOf(c, NAME))
                .map(c -> c.value().path("after").path("tables").asString()).collect(Collectors.toSet());
        assertThat(tables).as("the tables of the heartbeat row never flip").containsExactly(DB + ".orders");
    }

    @Test
    @Order(2)
    void aConnectorWithAnotherNameButTheSameServerIdRefusesToStartNamingTheOne() throws Exception {
        ConnectorProcess other = connector("lease-stock", DB + ".stock", "same-server-id")
                .property("cdc.connector.database.server-id", SERVER_ID).build().launch();

        assertThat(other.awaitExit(WAIT)).as("exit code").isEqualTo(1);
        assertThat(Files.readString(other.logFile()))
                .contains("Replication server id " + SERVER_ID + " is in use on")
                .contains("by connector '" + NAME + "'")
                .contains("cdc.connector.database.server-id");
        original.awaitHealthy(Duration.ofSeconds(5));
    }

    @Test
    @Order(3)
    void aConnectorKilledWithSigkillGetsItsLeaseBackAtOnce() throws Exception {
        update(1);
        original.kill();
        update(1); // while it is down

        original.restart();

        assertThat(continuityHealth(original).path("details").path("verdict").asString()).isEqualTo("RESUMED");
        assertThat(Files.readString(original.logFile())).doesNotContain("is already running");
        recorder.await(ORDERS_TOPIC, c -> versionOf(c) == version, 1, WAIT);
        assertThat(publishedVersions()).as("an event for every update").containsAll(
                LongStream.rangeClosed(1, version).boxed().collect(Collectors.toSet()));
    }

    @Test
    @Order(4)
    void offsetsWrittenUnderAnotherTableListAreNotResumedUnderTheSameEpoch() throws Exception {
        String epoch = continuityHealth(original).path("details").path("epoch").asString();
        original.stop();
        ConnectorProcess other = connector(NAME, DB + ".stock", "other-tables").build().start();
        try {
            JsonNode details = continuityHealth(other).path("details");
            assertThat(details.path("verdict").asString()).isEqualTo("CONFIGURATION_CHANGED");
            assertThat(details.path("gap").asBoolean()).isTrue();
            assertThat(details.path("epoch").asString()).isNotEqualTo(epoch);
            assertThat(details.path("message").asString()).contains("[" + DB + ".orders]", "[" + DB + ".stock]");
        } finally {
            other.stop();
        }

        original.start();

        JsonNode details = continuityHealth(original).path("details");
        assertThat(details.path("verdict").asString()).isEqualTo("CONFIGURATION_CHANGED");
        assertThat(details.path("epoch").asString()).isNotEqualTo(epoch);
    }

    /** Commits {@code count} updates of order 1, each with the next version. */
    private static void update(int count) {
        for (int i = 0; i < count; i++) {
            version++;
            stack.mariaDb().execute(DB, "UPDATE orders SET version = " + version + " WHERE id = 1");
        }
    }

    private static long versionOf(Change c) {
        return c.value() == null || c.value().path("after").isNull() ? -1 : c.value().path("after").path("version").asLong();
    }

    private static Set<Long> publishedVersions() {
        return recorder.changes(ORDERS_TOPIC).stream().map(OneConnectorPerNameIT::versionOf).filter(v -> v > 0)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static boolean isRowOf(Change c, String name) {
        return c.value() != null && name.equals(c.value().path("after").path("id").asString())
                && name.equals(c.headers().get("cdc-connector"));
    }

    private static JsonNode continuityHealth(ConnectorProcess connector) throws Exception {
        HttpResponse<String> health = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(connector.healthUrl())).build(),
                HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(health.body()).path("components").path("continuity");
    }
}
