package dev.cdccache.connector.check;

import dev.cdccache.connector.config.ConnectorProperties;
import dev.cdccache.connector.heartbeat.HeartbeatRow;
import dev.cdccache.connector.startup.DatabaseCheck;
import dev.cdccache.contract.ConnectorHeader;
import dev.cdccache.contract.HeartbeatTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * One heartbeat through the whole pipeline: sets the {@code ts} of the connector's own heartbeat row to now and
 * waits for the record that carries it (or a later one) on the heartbeat topic. Only {@code ts} changes, in one
 * statement, so the row's epoch and tables stay what the running connector wrote: to a client the probe is one more
 * heartbeat of that connector. It needs a running connector; before the first start there is no row to touch.
 */
final class HeartbeatProbe {

    /** What the probe saw. */
    sealed interface Outcome {
        /** The heartbeat came back after {@code elapsed}. */
        record Arrived(Duration elapsed, String topic) implements Outcome {
        }

        /** Nothing to probe yet: the connector has never written its row. */
        record NotStartedYet(String reason) implements Outcome {
        }

        /** The probe could not complete: the pipeline (or reading the topic) does not work. */
        record Failed(String problem, String fix) implements Outcome {
        }
    }

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final ConnectorProperties properties;
    private final HeartbeatRow row;
    private final Duration timeout;

    HeartbeatProbe(ConnectorProperties properties, HeartbeatRow row, Duration timeout) {
        this.properties = properties;
        this.row = row;
        this.timeout = timeout;
    }

    Outcome run() {
        String topic = row.table().topic(properties.getTopicPrefix());
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, properties.getKafka().getBootstrapServers());
        config.putAll(properties.getKafka().clientProperties());
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, properties.getName() + "-check");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false); // no group: assigned partitions only
        config.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false); // looking must not create it
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config);
                Connection connection = DatabaseCheck.connect(properties.getDatabase())) {
            var partitions = consumer.partitionsFor(topic, Duration.ofSeconds(10));
            if (partitions == null || partitions.isEmpty()) {
                return new Outcome.NotStartedYet("topic " + topic + " does not exist yet");
            }
            List<TopicPartition> assigned = partitions.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(assigned);
            consumer.seekToEnd(assigned);
            assigned.forEach(consumer::position); // the end, before the write

            Instant committed = Instant.now();
            Optional<Instant> written = touch(connection);
            if (written.isEmpty()) {
                return new Outcome.NotStartedYet("no row with id '" + row.connectorId() + "' in " + row.table().qualifiedName());
            }
            long writtenMicros = ChronoUnit.MICROS.between(Instant.EPOCH, written.get());
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                    if (isOurs(record, writtenMicros)) {
                        return new Outcome.Arrived(Duration.between(committed, Instant.now()), topic);
                    }
                }
            }
            return new Outcome.Failed("the heartbeat written at " + written.get() + " did not reach " + topic + " within "
                    + (timeout.toMillis() % 1000 == 0 ? timeout.toSeconds() + " s" : timeout.toMillis() + " ms"),
                    "start the connector (java -jar cdc-connector-exec.jar --spring.config.additional-location=file:<your.yml>)"
                            + " and look at its /actuator/health; a connector that runs but publishes nothing logs why");
        } catch (org.apache.kafka.common.errors.AuthorizationException e) {
            return new Outcome.Failed("cannot read " + topic + ": " + e.getMessage(),
                    "the probe reads the heartbeat topic as the connector's principal: grant it READ and DESCRIBE on "
                            + topic + " (no consumer group is used), or skip the probe with --no-probe");
        } catch (SQLException e) {
            return new Outcome.Failed("could not write the heartbeat row: " + e.getMessage(),
                    "the connector user needs UPDATE on " + row.table().qualifiedName());
        } catch (RuntimeException e) {
            return new Outcome.Failed("the probe failed: " + e, "check the database and Kafka settings above");
        }
    }

    /** Sets the row's ts to now; returns the written ts, or empty when the row does not exist. */
    private Optional<Instant> touch(Connection connection) throws SQLException {
        String table = row.table().qualifiedName();
        connection.setAutoCommit(true);
        try (PreparedStatement update = connection.prepareStatement("UPDATE " + table + " SET " + HeartbeatTable.TS
                + " = UTC_TIMESTAMP(6) WHERE " + HeartbeatTable.ID + " = ?")) {
            update.setString(1, row.connectorId());
            if (update.executeUpdate() == 0) {
                return Optional.empty();
            }
        }
        try (PreparedStatement select = connection.prepareStatement("SELECT " + HeartbeatTable.TS + " FROM " + table
                + " WHERE " + HeartbeatTable.ID + " = ?")) {
            select.setString(1, row.connectorId());
            try (ResultSet rs = select.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                // DATETIME(6) in UTC (UTC_TIMESTAMP), read as a wall-clock value
                Timestamp ts = rs.getTimestamp(1);
                return Optional.of(ts.toLocalDateTime().toInstant(ZoneOffset.UTC));
            }
        }
    }

    /** A heartbeat of this connector, at or after the probe's write. */
    private boolean isOurs(ConsumerRecord<byte[], byte[]> record, long writtenMicros) {
        Header header = record.headers().lastHeader(ConnectorHeader.NAME);
        if (header == null || !row.connectorId().equals(ConnectorHeader.connectorName(header.value())) || record.value() == null) {
            return false;
        }
        JsonNode after = JSON.readTree(record.value()).path("after");
        if (after.isMissingNode() || after.isNull()) {
            return false;
        }
        return row.connectorId().equals(after.path(HeartbeatTable.ID).asString())
                && after.path(HeartbeatTable.TS).asLong() >= writtenMicros;
    }
}
