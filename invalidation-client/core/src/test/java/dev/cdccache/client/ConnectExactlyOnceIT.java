package dev.cdccache.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdccache.client.parsing.ChangeEvent;
import dev.cdccache.client.parsing.Operation;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.kafka.KafkaCluster;
import dev.cdccache.infra.kafka.KafkaConnectWorker;
import dev.cdccache.infra.mariadb.MariaDbServer;
import dev.cdccache.infra.process.JavaProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionListing;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Ordering on Kafka Connect (docs/kafka-connect.md, "Ordering"): the exported connector runs with exactly-once source
 * support on two real distributed workers against a real three-broker cluster, and a client never takes a heartbeat
 * for proof of a change it has not received.
 *
 * <p>How a change is held back: the change topic's partition has two replicas, a leader and a follower; the heartbeat
 * topic's partition has two others, without that follower. The follower stalls (SIGSTOP) with the replica lag bound
 * set above the stall, so a change written to the leader is neither acknowledged (acks=all waits for the follower) nor
 * visible to consumers (the high watermark waits too), while the leader itself answers fetches and offset look-ups as
 * usual. A change is committed, then a heartbeat row. Without exactly-once support, Connect's producer sends the
 * heartbeat regardless, it is acknowledged and visible at once, and a client proves the heartbeat's time while the
 * change is still held back (stale while fresh). With it, the heartbeat belongs to a transaction that cannot commit
 * before the change is acknowledged, and the client reads committed records only.
 */
class ConnectExactlyOnceIT {

    private static final String DB = "eos_db";
    private static final String PREFIX = "eos";
    private static final String CONNECTOR = "eos-it";
    private static final String GROUP = "eos-connect";
    private static final String DATA_TOPIC = PREFIX + "." + DB + ".item";
    private static final String BEAT_TOPIC = PREFIX + "." + MariaDbServer.HEARTBEAT_TABLE;
    private static final long ROW = 7;
    private static final Duration STALL = Duration.ofSeconds(6);
    private static final Duration CONVERGE = Duration.ofSeconds(90);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Path CONNECTOR_JAR = Path.of("target", "connector", "cdc-connector-exec.jar");
    private static final Path PLUGIN_PATH = Path.of("target", "connect-plugins");
    private static final Path DIR = Path.of("target", "connect-eos-it");

    private static MariaDbServer mariaDb;
    private static KafkaCluster cluster;
    private static final List<KafkaConnectWorker> workers = new ArrayList<>();
    private static InvalidationClient client;
    private static String exported;
    private static final AtomicBoolean changeApplied = new AtomicBoolean();
    private static int leader;
    private static int follower;
    private static int other;
    private static long started;

    @BeforeAll
    static void start() throws Exception {
        started = System.nanoTime();
        mariaDb = LocalStack.shared().mariaDb();
        mariaDb.createDatabase(DB);
        mariaDb.execute(DB, "CREATE TABLE item (id BIGINT PRIMARY KEY, version INT NOT NULL)",
                "INSERT INTO item VALUES (" + ROW + ", 0)");
        cluster = KafkaCluster.builder(DIR.resolve("cluster-" + ProcessHandle.current().pid())).size(3)
                // the stalled follower must stay in the in-sync replicas (holding acks=all and the high watermark
                // back) and must not be fenced for the whole stall
                .serverProperty("replica.lag.time.max.ms", "30000")
                .serverProperty("broker.session.timeout.ms", "30000")
                .build().start();
        try (Admin admin = cluster.admin()) {
            // the follower to stall is not the active controller (its re-election would only slow everything down)
            int controller = admin.describeMetadataQuorum().quorumInfo().get().leaderId();
            follower = controller == 3 ? 2 : 3;
            leader = follower == 1 ? 2 : 1;
            other = 6 - leader - follower;
            admin.createTopics(List.of(
                    new NewTopic(DATA_TOPIC, Map.of(0, List.of(leader, follower))),
                    new NewTopic(BEAT_TOPIC, Map.of(0, List.of(other, leader))))).all().get(30, TimeUnit.SECONDS);
            await().atMost(CONVERGE).pollInterval(Duration.ofMillis(500)).until(() -> admin
                    .describeTopics(List.of(DATA_TOPIC, BEAT_TOPIC)).allTopicNames().get().values().stream()
                    .flatMap(t -> t.partitions().stream()).allMatch(p -> p.isr().size() == 2));
        }
        exported = exportConnectConfig();
        startWorkers();
        KafkaConnectWorker.Response created = workers.get(0).post("/connectors", exported);
        assertThat(created.status()).as("POST /connectors: %s", created.body()).isEqualTo(201);
        await().atMost(CONVERGE).until(ConnectExactlyOnceIT::taskRunning);

        client = new InvalidationClient(InvalidationClientConfig.builder()
                .bootstrapServers(cluster.bootstrapServers())
                .topicPrefix(PREFIX)
                .clientId("eos-it")
                .maxStaleness(Duration.ofSeconds(5))
                .cache(CacheDefinition.builder("items").table(DB + ".item").keyColumns("id").build())
                .listener(ConnectExactlyOnceIT::noteChange)
                .build());
        client.start();
        assertThat(client.awaitReady(Duration.ofSeconds(30))).isTrue();
        await().atMost(CONVERGE).until(() -> client.status().fresh());
        System.out.printf("ConnectExactlyOnceIT: set-up took %d ms (leader %d, stalled follower %d)%n",
                (System.nanoTime() - started) / 1_000_000, leader, follower);
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        workers.forEach(KafkaConnectWorker::close);
        if (cluster != null) {
            cluster.close();
        }
        System.out.printf("ConnectExactlyOnceIT: %d ms in all%n", (System.nanoTime() - started) / 1_000_000);
    }

    @Test
    void theExportRequiresExactlyOnceDeliveryAndTheTaskWritesTransactions() throws Exception {
        JsonNode config = JSON.readTree(exported).path("config");
        assertThat(config.path("exactly.once.support").asString()).isEqualTo("required");
        assertThat(config.path("transaction.boundary").asString()).isEqualTo("poll");
        try (Admin admin = cluster.admin()) {
            Collection<TransactionListing> transactions = admin.listTransactions().all().get(30, TimeUnit.SECONDS);
            assertThat(transactions).as("the task's transactional producer (<group>-<connector>-<task>)")
                    .anyMatch(t -> t.transactionalId().equals(GROUP + "-" + CONNECTOR + "-0"));
        }
    }

    @Test
    void aClientNeverProvesAHeartbeatWhileAChangeCommittedBeforeItIsHeldBack() throws Exception {
        List<String> violations = new ArrayList<>();
        long afterCommit;
        cluster.broker(follower).pause();
        try {
            afterCommit = commitChangeThenHeartbeat();
            long until = System.nanoTime() + STALL.toNanos();
            while (System.nanoTime() < until) {
                // the watermark first: once it covers the change, the change must already have been applied
                long watermark = client.status().watermarkMillis();
                boolean applied = changeApplied.get();
                if (watermark >= afterCommit && !applied) {
                    violations.add("watermark " + watermark + " >= commit " + afterCommit + " without the change");
                }
                Thread.sleep(20);
            }
        } finally {
            cluster.broker(follower).resume();
        }
        System.out.printf("ConnectExactlyOnceIT: follower %d stalled %d s; change applied meanwhile: %s; "
                + "violations: %d %s%n", follower, STALL.toSeconds(), changeApplied.get(), violations.size(),
                violations.stream().limit(3).toList());
        assertThat(violations).as("times the client's watermark proved the held-back change without it").isEmpty();
        assertThat(changeApplied.get()).as("the change while its replication was stalled").isFalse();
        // afterwards the transaction commits: the change arrives and the heartbeat proves it
        await().atMost(CONVERGE).until(() -> changeApplied.get() && client.status().watermarkMillis() >= afterCommit);
    }

    // --- helpers -----------------------------------------------------------------------------------------

    /** An update of {@link #ROW}, committed; then, in a transaction of its own, the connector's heartbeat row. */
    private static long commitChangeThenHeartbeat() throws Exception {
        long afterCommit;
        try (Connection c = mariaDb.adminConnection(DB); Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE item SET version = version + 1 WHERE id = " + ROW);
            afterCommit = System.currentTimeMillis();
            Thread.sleep(100); // the heartbeat's ts clearly after the change's commit
            int rows = s.executeUpdate("UPDATE " + MariaDbServer.HEARTBEAT_TABLE + " SET ts = UTC_TIMESTAMP(6) WHERE id = '"
                    + CONNECTOR + "'");
            assertThat(rows).as("the connector's heartbeat row").isEqualTo(1);
        }
        return afterCommit;
    }

    private static void noteChange(ChangeEvent event) {
        if (event.topic().equals(DATA_TOPIC) && event.operation() == Operation.UPDATE
                && event.after() != null && event.after().path("id").asLong() == ROW) {
            changeApplied.set(true);
        }
    }

    private static void startWorkers() {
        for (int i = 1; i <= 2; i++) {
            workers.add(KafkaConnectWorker.builder(DIR.resolve("worker-" + i), cluster.bootstrapServers())
                    .groupId(GROUP)
                    .pluginPath(PLUGIN_PATH)
                    .env("CDC_CONNECTOR_DATABASE_PASSWORD", mariaDb.connectorPassword())
                    .workerProperty("exactly.once.source.support", "enabled")
                    .workerProperty("config.storage.replication.factor", "3")
                    .workerProperty("offset.storage.replication.factor", "3")
                    .workerProperty("status.storage.replication.factor", "3")
                    // a stalled broker may be the group's coordinator: no worker is dropped from the group meanwhile
                    .workerProperty("session.timeout.ms", "30000")
                    .workerProperty("heartbeat.interval.ms", "3000")
                    .build());
        }
        workers.parallelStream().forEach(KafkaConnectWorker::start);
    }

    private static boolean taskRunning() {
        KafkaConnectWorker.Response status = workers.get(0).get("/connectors/" + CONNECTOR + "/status");
        return status.status() == 200
                && "RUNNING".equals(JSON.readTree(status.body()).path("tasks").path(0).path("state").asString());
    }

    /** What a user runs: the runnable connector with the export flag; stdout is the JSON. */
    private static String exportConnectConfig() throws Exception {
        Path output = DIR.resolve("connector.json");
        Files.createDirectories(DIR);
        Files.deleteIfExists(output);
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
                .arg("--cdc.connector.topic-prefix=" + PREFIX)
                .arg("--cdc.connector.topic-replication-factor=2")
                .arg("--cdc.connector.kafka.bootstrap-servers=" + cluster.bootstrapServers())
                .start();
        assertThat(export.waitFor(Duration.ofSeconds(90))).as(export.tail(30)).isZero();
        return Files.readString(export.logFile());
    }
}
