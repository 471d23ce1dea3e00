package dev.cdccache.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.kafka.ConnectCluster;
import dev.cdccache.infra.kafka.KafkaCluster;
import dev.cdccache.infra.kafka.KafkaConnectWorker;
import dev.cdccache.infra.mariadb.MariaDbServer;
import dev.cdccache.infra.process.JavaProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Ordering on Kafka Connect (docs/kafka-connect.md, "Ordering"): the exported connector runs with exactly-once source
 * support on two real distributed workers against a real three-broker cluster, and a reader with the client's own
 * consumer properties ({@code read_committed}) never proves a heartbeat before it has read a change committed before
 * that heartbeat.
 *
 * <p>How a change is held back: the change topic's partition has two replicas, a leader and a follower; the heartbeat
 * topic's partition has two others, without that follower. The follower stalls (SIGSTOP) with the replica lag bound
 * set above the stall, so a change written to the leader is neither acknowledged (acks=all waits for the follower) nor
 * visible to consumers (the high watermark waits too), while the leader itself answers fetches and offset look-ups as
 * usual. A change is committed, then a heartbeat row. Without exactly-once support, Connect's producer sends the
 * heartbeat regardless, it is acknowledged and visible at once, and the change topic's log end does not yet contain the
 * change: a client would prove the heartbeat's time without it (this test then fails within a second). With it, the
 * heartbeat belongs to a transaction that commits only after the change is acknowledged.
 *
 * <p>The brokers and workers are the JVM's {@link ConnectCluster#shared() shared Connect cluster}; the connector, its
 * topics and table are this class's own, and the connector is removed when the class ends.
 *
 * <p>The reader is a plain consumer rather than a running client: a client also sends metadata requests to every
 * broker, and one sent to the stalled broker holds its checks up until the request times out, which keeps it from
 * proving anything during the stall either way (safe, but it would hide the ordering this test is about).
 */
class ConnectExactlyOnceIT {

    private static final String DB = "eos_db";
    private static final String PREFIX = "eos";
    private static final String CONNECTOR = "eos-it";
    private static final String DATA_TOPIC = PREFIX + "." + DB + ".item";
    private static final String BEAT_TOPIC = PREFIX + "." + MariaDbServer.HEARTBEAT_TABLE;
    private static final long ROW = 7;
    private static final Duration STALL = Duration.ofSeconds(6);
    private static final Duration CONVERGE = Duration.ofSeconds(90);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Path CONNECTOR_JAR = dev.cdccache.systemtests.ConnectorJar.path();
    private static final Path DIR = Path.of("target", "connect-eos-it");

    private static MariaDbServer mariaDb;
    private static ConnectCluster connect;
    private static KafkaCluster cluster;
    /** Reads as the client does (its own consumer properties), proves as the client does (see the test). */
    private static KafkaConsumer<byte[], byte[]> reader;
    private static String exported;
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
        // Three brokers whose settings keep a stalled follower in the in-sync replicas (holding acks=all and the high
        // watermark back) and unfenced for the whole stall; two workers with exactly-once source support.
        connect = ConnectCluster.shared();
        cluster = connect.kafka();
        try (Admin admin = cluster.admin()) {
            // The follower to stall is neither the active controller (its re-election would only slow everything
            // down) nor the workers' group coordinator (the workers would leave the group during the stall, and the
            // task would restart elsewhere).
            int controller = admin.describeMetadataQuorum().quorumInfo().get().leaderId();
            int coordinator = connect.groupCoordinator();
            follower = IntStream.of(3, 2, 1).filter(id -> id != controller && id != coordinator).findFirst().getAsInt();
            leader = follower == 1 ? 2 : 1;
            other = 6 - leader - follower;
            admin.createTopics(List.of(
                    new NewTopic(DATA_TOPIC, Map.of(0, List.of(leader, follower))),
                    new NewTopic(BEAT_TOPIC, Map.of(0, List.of(other, leader))))).all().get(30, TimeUnit.SECONDS);
            // ignoreExceptions: a broker may answer before the new topics' metadata reached it (UnknownTopicOrPartition)
            await().atMost(CONVERGE).pollInterval(Duration.ofMillis(500)).ignoreExceptions().until(() -> admin
                    .describeTopics(List.of(DATA_TOPIC, BEAT_TOPIC)).allTopicNames().get().values().stream()
                    .flatMap(t -> t.partitions().stream()).allMatch(p -> p.isr().size() == 2));
        }
        exported = exportConnectConfig();
        KafkaConnectWorker.Response created = connect.runningWorker().post("/connectors", exported);
        assertThat(created.status()).as("POST /connectors: %s", created.body()).isEqualTo(201);
        await().atMost(CONVERGE).until(ConnectExactlyOnceIT::taskRunning);

        reader = clientConsumer();
        // heartbeats flow, and a first change has been sent to the change topic (Connect looks a topic up with an
        // admin request on its first record, which a stalled broker would hold up along with everything after it)
        await().atMost(CONVERGE).until(() -> read(reader).heartbeatMicros() > 0);
        mariaDb.execute(DB, "UPDATE item SET version = 1 WHERE id = " + ROW);
        await().atMost(CONVERGE).until(() -> read(reader).version() == 1);
        System.out.printf("ConnectExactlyOnceIT: set-up took %d ms (leader %d, stalled follower %d)%n",
                (System.nanoTime() - started) / 1_000_000, leader, follower);
    }

    @AfterAll
    static void stop() {
        if (reader != null) {
            reader.close();
        }
        if (connect != null) {
            connect.removeConnector(CONNECTOR); // the shared cluster runs on for the next test class
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
                    .anyMatch(t -> t.transactionalId().equals(ConnectCluster.GROUP_ID + "-" + CONNECTOR + "-0"));
        }
    }

    /**
     * The client's proof, step by step: a heartbeat it has read proves its {@code ts} once the positions reach the log
     * end offsets looked up after it. The reader looks the change topic's end up as soon as it sees a heartbeat written
     * after the change's commit, reads up to it, and the change must be among what it read.
     */
    @Test
    void aClientNeverProvesAHeartbeatWhileAChangeCommittedBeforeItIsHeldBack() throws Exception {
        long afterCommit;
        boolean changeVisibleDuringStall = false;
        String proof = null;
        cluster.broker(follower).pause();
        try {
            afterCommit = commitChangeThenHeartbeat();
            long until = System.nanoTime() + STALL.toNanos();
            while (System.nanoTime() < until && proof == null) {
                proof = proveHeartbeatAfter(afterCommit);
                changeVisibleDuringStall |= seenVersion >= 2;
            }
        } finally {
            cluster.broker(follower).resume();
        }
        long until = System.nanoTime() + CONVERGE.toNanos();
        while (System.nanoTime() < until && proof == null) {
            proof = proveHeartbeatAfter(afterCommit);
        }
        System.out.printf("ConnectExactlyOnceIT: follower %d stalled %d s; change visible during the stall: %s; %s%n",
                follower, STALL.toSeconds(), changeVisibleDuringStall, proof);
        assertThat(changeVisibleDuringStall).as("the change while its replication was stalled").isFalse();
        assertThat(proof).as("a heartbeat written after the change, read and proven").isNotNull()
                .startsWith("the change was read before the heartbeat was proven");
    }

    /**
     * One poll; if it brought a heartbeat written at or after {@code millis}, proves it as the client does and says
     * whether the change (version 2) was read by then; otherwise {@code null}.
     */
    private static String proveHeartbeatAfter(long millis) {
        Seen seen = read(reader);
        if (seen.heartbeatMicros() / 1000 < millis) {
            return null;
        }
        TopicPartition data = new TopicPartition(DATA_TOPIC, 0);
        long end = reader.endOffsets(List.of(data), Duration.ofSeconds(10)).get(data);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (reader.position(data) < end && System.nanoTime() < deadline) {
            read(reader);
        }
        return (seenVersion >= 2 ? "the change was read before the heartbeat was proven"
                : "HEARTBEAT PROVEN WITHOUT THE CHANGE") + " (change topic end " + end + ", position "
                + reader.position(data) + ")";
    }

    // --- helpers -----------------------------------------------------------------------------------------

    /** Version 2 of {@link #ROW}, committed; then, in a transaction of its own, the connector's heartbeat row. */
    private static long commitChangeThenHeartbeat() throws Exception {
        long afterCommit;
        try (Connection c = mariaDb.adminConnection(DB); Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE item SET version = 2 WHERE id = " + ROW);
            afterCommit = System.currentTimeMillis();
            Thread.sleep(100); // the heartbeat's ts clearly after the change's commit
            int rows = s.executeUpdate("UPDATE " + MariaDbServer.HEARTBEAT_TABLE + " SET ts = UTC_TIMESTAMP(6) WHERE id = '"
                    + CONNECTOR + "'");
            assertThat(rows).as("the connector's heartbeat row").isEqualTo(1);
        }
        return afterCommit;
    }

    /** What one poll brought: the latest version of {@link #ROW} read so far, the newest heartbeat of the poll. */
    private record Seen(int version, long heartbeatMicros) {
    }

    private static volatile int seenVersion;

    private static Seen read(KafkaConsumer<byte[], byte[]> consumer) {
        long heartbeat = 0;
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(50))) {
            if (r.value() == null) {
                continue;
            }
            JsonNode after = JSON.readTree(r.value()).path("after");
            if (r.topic().equals(DATA_TOPIC) && after.path("id").asLong() == ROW) {
                seenVersion = Math.max(seenVersion, after.path("version").asInt());
            } else if (r.topic().equals(BEAT_TOPIC) && CONNECTOR.equals(after.path("id").asString())) {
                heartbeat = Math.max(heartbeat, after.path("ts").asLong());
            }
        }
        return new Seen(seenVersion, heartbeat);
    }

    /** A consumer with exactly the properties the client gives its own (read_committed among them). */
    private static KafkaConsumer<byte[], byte[]> clientConsumer() {
        AtomicReference<Map<String, Object>> properties = new AtomicReference<>();
        try (InvalidationClient client = new InvalidationClient(InvalidationClientConfig.builder()
                .bootstrapServers(cluster.bootstrapServers()).topicPrefix(PREFIX).clientId("eos-it")
                .awaitReady(Duration.ZERO).build(), props -> {
                    properties.set(Map.copyOf(props));
                    return new MockKafkaTopics();
                })) {
            client.start();
        }
        assertThat(properties.get()).containsEntry(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(properties.get());
        List<TopicPartition> partitions = List.of(new TopicPartition(DATA_TOPIC, 0), new TopicPartition(BEAT_TOPIC, 0));
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position);
        return consumer;
    }

    private static boolean taskRunning() {
        KafkaConnectWorker.Response status = connect.runningWorker().get("/connectors/" + CONNECTOR + "/status");
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
