package dev.cdccache.client.parsing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.contract.ChangeTopics;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.connector.ConnectorProcess;
import dev.cdccache.infra.mariadb.MariaDbServer;
import dev.cdccache.systemtests.ConnectorJar;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The streaming {@link EnvelopeParser} against the tree parse it replaced ({@link TreeEnvelopeParser}) on what a
 * real connector publishes: real MariaDB (binlog), the connector process (Debezium's MariaDB connector and the
 * project's publisher), a real Kafka broker. Inserts, updates, deletes (and their tombstones), a multi-row
 * transaction, a TRUNCATE and the heartbeat row, over the coupon table's shape and a table of the other column
 * types (JSON, TEXT with escapes and non-ASCII text, unsigned BIGINT, DOUBLE, TIME, TIMESTAMP, ENUM, BINARY,
 * wide DECIMAL). Every record value read back must parse to the same event with both.
 */
class EnvelopeParsingIT {

    private static final String DB = "parse_db";
    private static final Set<String> COUPON_KEYS = Set.of("id", "code", "place_id");

    private static LocalStack stack;
    private static MariaDbServer mariaDb;
    private static ConnectorProcess connector;

    @BeforeAll
    static void start() {
        stack = LocalStack.shared();
        mariaDb = stack.mariaDb();
        mariaDb.createDatabase(DB);
        mariaDb.execute(DB,
                "CREATE TABLE IF NOT EXISTS coupon (id BIGINT NOT NULL AUTO_INCREMENT, code VARCHAR(64) NOT NULL, "
                        + "place_id BIGINT NOT NULL, name VARCHAR(200) NOT NULL, discount_type VARCHAR(16) NOT NULL, "
                        + "discount_value DECIMAL(12, 2) NOT NULL, minimum_price DECIMAL(12, 2) NOT NULL, "
                        + "valid_from DATE NOT NULL, valid_until DATE NOT NULL, status VARCHAR(16) NOT NULL, "
                        + "issue_limit INT NOT NULL, updated_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) "
                        + "ON UPDATE CURRENT_TIMESTAMP(6), PRIMARY KEY (id), UNIQUE KEY uk_coupon_code (code))",
                "CREATE TABLE IF NOT EXISTS typed (id BIGINT UNSIGNED NOT NULL PRIMARY KEY, doc JSON NULL, "
                        + "body TEXT NULL, ratio DOUBLE NULL, at_time TIME(6) NULL, stamp TIMESTAMP(6) NULL, "
                        + "kind ENUM('a','b') NULL, raw VARBINARY(16) NULL, wide DECIMAL(38, 10) NULL, flag TINYINT(1) NULL)");
        connector = ConnectorProcess.builder(ConnectorJar.path(), stack)
                .tables(List.of(DB + ".coupon", DB + ".typed"))
                .name("envelope-parsing-it")
                .build()
                .start();
    }

    @AfterAll
    static void stop() {
        if (connector != null) {
            connector.stop();
        }
    }

    @Test
    void everyEnvelopeTheConnectorPublishesParsesAsTheTreeParseDid() throws Exception {
        try (Connection c = mariaDb.adminConnection(DB); Statement s = c.createStatement()) {
            s.execute("INSERT INTO coupon (id, code, place_id, name, discount_type, discount_value, minimum_price, "
                    + "valid_from, valid_until, status, issue_limit) VALUES (1, 'SPRING-1', 17, "
                    + "'Frühling \"20%\" \\\\ off 🎉', 'PERCENTAGE', 20.00, 50.00, '2026-03-01', '2026-05-31', "
                    + "'ACTIVE', 1000), (2, 'SUMMER-2', 18, 'Summer', 'FIXED_AMOUNT', 5.50, 0.00, '2026-06-01', "
                    + "'2026-08-31', 'PAUSED', 0)");
            s.execute("UPDATE coupon SET code = 'spring-1b', discount_value = 12.50 WHERE id = 1");
            s.execute("INSERT INTO typed VALUES (18446744073709551615, '{\"a\":{\"b\":[1,2.5,null,\"x\"]},\"u\":\"é\"}', "
                    + "CONCAT('line\\nbreak\\ttab \\\\ \"q\" ', REPEAT('Ω', 20000)), 1.5e300, '-838:59:59.000000', "
                    + "'2026-03-01 10:15:30.041211', 'b', X'00FF10', 12345678901234567890123456.0123456789, 1)");
            s.execute("INSERT INTO typed (id) VALUES (1)");
            s.execute("UPDATE typed SET doc = '[]', ratio = -0.0, kind = 'a', flag = 0 WHERE id = 1");
            c.setAutoCommit(false);
            s.execute("UPDATE coupon SET status = 'ENDED' WHERE id IN (1, 2)");
            s.execute("DELETE FROM typed WHERE id = 1");
            c.commit();
            c.setAutoCommit(true);
            s.execute("DELETE FROM coupon WHERE id = 2");
            s.execute("TRUNCATE TABLE typed");
            s.execute("INSERT INTO coupon (id, code, place_id, name, discount_type, discount_value, minimum_price, "
                    + "valid_from, valid_until, status, issue_limit) VALUES (3, 'LAST-3', 17, 'last', 'PERCENTAGE', "
                    + "1.00, 0.00, '2026-01-01', '2026-01-02', 'ACTIVE', 1)");
        }
        String couponTopic = connector.topic(DB + ".coupon");
        String typedTopic = connector.topic(DB + ".typed");
        String heartbeatTopic = ChangeTopics.heartbeat(ChangeTopics.DEFAULT_PREFIX);
        // 2 inserts, 1 update, 2 updates in the transaction, 1 delete + tombstone, then the last insert.
        List<ConsumerRecord<byte[], byte[]>> coupons = read(couponTopic, 8);
        // 2 inserts, 1 update, 1 delete + tombstone, 1 truncate.
        List<ConsumerRecord<byte[], byte[]>> typed = read(typedTopic, 6);
        List<ConsumerRecord<byte[], byte[]>> heartbeats = read(heartbeatTopic, 2);

        EnvelopeParser parser = new EnvelopeParser();
        TreeEnvelopeParser oracle = new TreeEnvelopeParser();
        EnumSet<Operation> seen = EnumSet.noneOf(Operation.class);
        int tombstones = 0;
        List<ConsumerRecord<byte[], byte[]>> all = new ArrayList<>(coupons);
        all.addAll(typed);
        all.addAll(heartbeats);
        for (ConsumerRecord<byte[], byte[]> record : all) {
            if (record.value() == null) {
                tombstones++; // not parsed: the consumer skips tombstones before parsing
                continue;
            }
            ChangeEvent expected = oracle.parse(record.topic(), record.partition(), record.offset(), record.value());
            ChangeEvent actual = parser.parse(record.topic(), record.partition(), record.offset(), record.value());
            assertThat(actual).as(record.topic() + "@" + record.offset()).isEqualTo(expected);
            RowColumns keys = RowColumns.only(COUPON_KEYS);
            assertThat(parser.parse(record.topic(), record.partition(), record.offset(), record.value(), keys))
                    .isEqualTo(ChangeEvents.keepingOnly(expected, keys));
            seen.add(actual.operation());
        }
        assertThat(seen).contains(Operation.CREATE, Operation.UPDATE, Operation.DELETE, Operation.TRUNCATE);
        assertThat(tombstones).isEqualTo(2);
        // The 20,000-character column, with its escapes, is among what was compared.
        List<String> bodies = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> record : typed) {
            JsonNode after = record.value() == null ? null : oracle.parse(typedTopic, 0, 0, record.value()).after();
            if (after != null && after.path("body").isString()) {
                bodies.add(after.path("body").asString());
            }
        }
        assertThat(bodies).anySatisfy(body -> assertThat(body).startsWith("line\nbreak\ttab \\ \"q\" ")
                .endsWith("Ω".repeat(20_000)));
    }

    /** {@code count} records of {@code topic}, every partition read from the beginning (no order across partitions). */
    private static List<ConsumerRecord<byte[], byte[]>> read(String topic, int count) {
        Map<String, Object> props = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka().bootstrapServers(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            List<TopicPartition> partitions = List.of();
            while (partitions.isEmpty() && System.nanoTime() < deadline) {
                partitions = consumer.listTopics(Duration.ofSeconds(5)).getOrDefault(topic, List.of()).stream()
                        .map(p -> new TopicPartition(topic, p.partition())).toList();
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            while (records.size() < count && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        assertThat(records).as("records on " + topic).hasSizeGreaterThanOrEqualTo(count);
        return records.subList(0, count);
    }
}
