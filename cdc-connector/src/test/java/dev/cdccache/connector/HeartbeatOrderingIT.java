package dev.cdccache.connector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.connector.testing.InProcessConnector;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.junit.LocalStackExtension;
import dev.cdccache.infra.kafka.KafkaCluster;
import dev.cdccache.infra.mariadb.MariaDbServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Ordering (docs/contract.md, "Ordering") on a real three-broker KRaft cluster with replication factor 3: a change and a heartbeat
 * row committed after it (one transaction, so one batch of the engine) go to partitions led by different brokers;
 * the change's leader stalls (SIGSTOP). A client must not see the heartbeat before the change: it would advance its
 * watermark past a change it has not applied.
 */
@ExtendWith(LocalStackExtension.class)
class HeartbeatOrderingIT {

    private static final String NAME = "ordering-it";
    private static final String DB = "ordering_db";
    private static final String DATA_TOPIC = "ord." + DB + ".item";
    private static final String BEAT_TOPIC = "ord." + MariaDbServer.HEARTBEAT_TABLE;
    private static final Duration STALL = Duration.ofSeconds(8);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static KafkaCluster cluster;
    private static InProcessConnector connector;
    private static MariaDbServer db;
    private static long started;

    @BeforeAll
    static void start(LocalStack stack) {
        started = System.nanoTime();
        db = stack.mariaDb();
        db.createDatabase(DB);
        db.execute(DB, "CREATE TABLE item (id BIGINT PRIMARY KEY, version INT NOT NULL)");
        StringBuilder rows = new StringBuilder("INSERT INTO item VALUES (1, 0)");
        for (int id = 2; id <= 60; id++) {
            rows.append(", (").append(id).append(", 0)");
        }
        db.execute(DB, rows.toString());
        cluster = KafkaCluster.builder(Path.of("target", "ordering-cluster-" + ProcessHandle.current().pid())).size(3)
                // the stalled broker must stay leader during the stall (not fenced, no leader moves: a client fetching
                // from a stalled ex-leader would lag behind however the connector orders); on a loaded machine a
                // short session timeout also fenced brokers spuriously and moved leaders under the test
                .serverProperty("broker.session.timeout.ms", "30000")
                .build().start();
        Map<String, String> settings = InProcessConnector.settings(stack, NAME, "ord", List.of(DB + ".item"));
        settings.put("cdc.connector.kafka.bootstrap-servers", cluster.bootstrapServers());
        settings.put("cdc.connector.topic-replication-factor", "3");
        // a change and the heartbeat of its transaction reach the publisher in one batch
        settings.put("cdc.connector.poll-interval", "200ms");
        connector = InProcessConnector.start(settings);
    }

    @AfterAll
    static void stop() {
        if (connector != null) {
            connector.close();
        }
        if (cluster != null) {
            cluster.close();
        }
        System.out.printf("HeartbeatOrderingIT: %d ms in all%n", (System.nanoTime() - started) / 1_000_000);
    }

    @Test
    void noHeartbeatIsVisibleBeforeAChangeCommittedBeforeItWhileThatChangesLeaderStalls() throws Exception {
        Map<String, TopicDescription> topics = stableTopics();
        int controller;
        try (Admin admin = cluster.admin()) {
            controller = admin.describeMetadataQuorum().quorumInfo().get().leaderId();
        }
        List<TopicPartitionInfo> beatPartitions = topics.get(BEAT_TOPIC).partitions();
        int beatLeader = beatPartitions.get(partition("{\"id\":\"" + NAME + "\"}", beatPartitions.size())).leader().id();
        // the stalled broker leads the change's partition, not the heartbeat's (and preferably is not the active
        // controller, whose re-election would only slow the cluster's reaction down)
        TopicPartitionInfo dataPartition = topics.get(DATA_TOPIC).partitions().stream()
                .filter(p -> p.leader().id() != beatLeader)
                .min((a, b) -> Boolean.compare(a.leader().id() == controller, b.leader().id() == controller))
                .orElseThrow(() -> new IllegalStateException("every partition led by broker " + beatLeader));
        int stalled = dataPartition.leader().id();
        long id = 1;
        while (partition("{\"id\":" + id + "}", topics.get(DATA_TOPIC).partitions().size()) != dataPartition.partition()) {
            id++;
        }

        try (KafkaConsumer<byte[], byte[]> consumer = consumer(topics)) {
            cluster.broker(stalled).pause();
            long heartbeatMicros;
            List<String> seen = new ArrayList<>();
            try {
                heartbeatMicros = commitChangeThenHeartbeat(id);
                long until = System.nanoTime() + STALL.toNanos();
                while (System.nanoTime() < until && !seen.contains("change")) {
                    collect(consumer, id, heartbeatMicros, seen);
                }
            } finally {
                cluster.broker(stalled).resume();
            }
            long until = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            while (System.nanoTime() < until && !(seen.contains("change") && seen.contains("heartbeat"))) {
                collect(consumer, id, heartbeatMicros, seen);
            }
            System.out.printf("HeartbeatOrderingIT: broker %d stalled for %d s (leads %s-%d), visible in this order: %s%n",
                    stalled, STALL.toSeconds(), DATA_TOPIC, dataPartition.partition(), seen);
            assertThat(seen).as("the change and the heartbeat committed after it").contains("change", "heartbeat");
            assertThat(seen.indexOf("change")).as("poll in which the change became visible, against the heartbeat's: %s", seen)
                    .isLessThanOrEqualTo(seen.indexOf("heartbeat"));
        }
    }

    /** The topics once every partition has all three replicas in sync (leaders settled after start-up). */
    private static Map<String, TopicDescription> stableTopics() throws Exception {
        try (Admin admin = cluster.admin()) {
            java.util.concurrent.atomic.AtomicReference<Map<String, TopicDescription>> described = new java.util.concurrent.atomic.AtomicReference<>();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() -> {
                described.set(admin.describeTopics(List.of(DATA_TOPIC, BEAT_TOPIC)).allTopicNames().get());
                return described.get().values().stream().flatMap(t -> t.partitions().stream()).allMatch(p -> p.isr().size() == 3);
            });
            return described.get();
        }
    }

    /** One transaction: the change, then this connector's heartbeat row; returns the row's ts in microseconds. */
    private static long commitChangeThenHeartbeat(long id) throws Exception {
        try (Connection c = db.adminConnection(null); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.executeUpdate("UPDATE " + DB + ".item SET version = version + 1 WHERE id = " + id);
            try (PreparedStatement beat = c.prepareStatement("UPDATE " + MariaDbServer.HEARTBEAT_TABLE
                    + " SET ts = UTC_TIMESTAMP(6) WHERE id = ?")) {
                beat.setString(1, NAME);
                assertThat(beat.executeUpdate()).isEqualTo(1);
            }
            long micros;
            try (ResultSet rs = s.executeQuery("SELECT ROUND(UNIX_TIMESTAMP(ts) * 1000000) FROM "
                    + MariaDbServer.HEARTBEAT_TABLE + " WHERE id = '" + NAME + "'")) {
                rs.next();
                micros = rs.getLong(1);
            }
            c.commit();
            return micros;
        }
    }

    /** One poll; appends "change" / "heartbeat" (once each, per poll) for what became visible in it. */
    private static void collect(KafkaConsumer<byte[], byte[]> consumer, long id, long heartbeatMicros, List<String> seen) {
        List<String> inThisPoll = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
            if (r.value() == null) {
                continue;
            }
            JsonNode value = JSON.readTree(r.value());
            if (r.topic().equals(DATA_TOPIC) && value.path("after").path("id").asLong() == id && "u".equals(value.path("op").asString())) {
                inThisPoll.add("change");
            } else if (r.topic().equals(BEAT_TOPIC) && value.path("after").path("ts").asLong() >= heartbeatMicros) {
                inThisPoll.add("heartbeat"); // the row of the transaction, or a later one of the connector's timer
            }
        }
        if (!inThisPoll.isEmpty()) {
            seen.add(inThisPoll.contains("change") ? "change" : "heartbeat");
            if (inThisPoll.contains("change") && inThisPoll.contains("heartbeat")) {
                seen.add("heartbeat"); // visible together: the change is not behind
            }
        }
    }

    private static KafkaConsumer<byte[], byte[]> consumer(Map<String, TopicDescription> topics) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "50");
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> partitions = new ArrayList<>();
        topics.values().forEach(t -> t.partitions().forEach(p -> partitions.add(new TopicPartition(t.name(), p.partition()))));
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position); // resolve the end offsets now, before anything is committed
        return consumer;
    }

    /** The producer's default partition for a key. */
    private static int partition(String key, int partitions) {
        return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
    }
}
