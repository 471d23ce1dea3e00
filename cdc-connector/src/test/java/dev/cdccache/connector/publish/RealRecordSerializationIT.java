package dev.cdccache.connector.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdccache.connector.config.ConnectorProperties;
import dev.cdccache.connector.config.DebeziumSettings;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.junit.LocalStackExtension;
import dev.cdccache.infra.mariadb.MariaDbServer;
import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Records captured from a real MariaDB binlog by the real Debezium engine, with the connector's own Debezium
 * settings (and with the settings users may override that change the column types Debezium emits), serialize to
 * the bytes Kafka's JsonConverter writes for them: a coupon-like table with every MariaDB column type, inserts,
 * updates, deletes and their tombstones.
 */
@ExtendWith(LocalStackExtension.class)
class RealRecordSerializationIT {

    private static final String DB = "serde_db";
    private static MariaDbServer db;
    private static LocalStack stack;

    @BeforeAll
    static void createTable(LocalStack localStack) {
        stack = localStack;
        db = stack.mariaDb();
        db.createDatabase(DB);
        db.execute(DB, "DROP TABLE IF EXISTS every_type",
                "CREATE TABLE every_type ("
                        + " id BIGINT NOT NULL AUTO_INCREMENT,"
                        + " code VARCHAR(64) NOT NULL,"
                        + " place_id BIGINT NOT NULL,"
                        + " name VARCHAR(200) NOT NULL,"
                        + " discount_type VARCHAR(16) NOT NULL DEFAULT 'FIXED_AMOUNT',"
                        + " discount_value DECIMAL(12, 2) NOT NULL,"
                        + " minimum_price DECIMAL(12, 2) NOT NULL DEFAULT 0.00,"
                        + " valid_from DATE NOT NULL,"
                        + " valid_until DATE,"
                        + " status VARCHAR(16) NOT NULL DEFAULT 'ACTIVE',"
                        + " issue_limit INT NOT NULL,"
                        + " updated_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),"
                        + " t_tiny TINYINT, t_tiny_u TINYINT UNSIGNED, t_bool BOOLEAN, t_small SMALLINT DEFAULT -7,"
                        + " t_medium MEDIUMINT, t_int_u INT UNSIGNED, t_big_u BIGINT UNSIGNED,"
                        + " t_float FLOAT, t_double DOUBLE, t_dec0 DECIMAL(30, 0), t_dec_neg DECIMAL(8, 5),"
                        + " t_bit1 BIT(1), t_bit10 BIT(10), t_char CHAR(3), t_text TEXT, t_blob BLOB,"
                        + " t_binary BINARY(4), t_varbinary VARBINARY(16),"
                        + " t_time TIME, t_time6 TIME(6), t_dt DATETIME, t_dt3 DATETIME(3),"
                        + " t_ts TIMESTAMP NULL, t_ts6 TIMESTAMP(6) NULL, t_year YEAR,"
                        + " t_enum ENUM('a', 'b', 'c') DEFAULT 'b', t_set SET('x', 'y', 'z'), t_json JSON,"
                        + " PRIMARY KEY (id))");
    }

    @Test
    void recordsWithTheConnectorsSettingsSerializeToTheConvertersBytes() throws Exception {
        assertRecordsSerializeLikeTheConverter("serde-default", Map.of());
    }

    @Test
    void recordsWithPreciseDecimalsAndConnectTimesSerializeToTheConvertersBytes() throws Exception {
        // Kafka Connect's logical types (Decimal as base64, Date, Time, Timestamp) instead of Debezium's
        assertRecordsSerializeLikeTheConverter("serde-precise",
                Map.of("decimal.handling.mode", "precise", "time.precision.mode", "connect",
                        "bigint.unsigned.handling.mode", "precise"));
    }

    @Test
    void recordsWithDoubleDecimalsAndBase64BinarySerializeToTheConvertersBytes() throws Exception {
        assertRecordsSerializeLikeTheConverter("serde-double",
                Map.of("decimal.handling.mode", "double", "binary.handling.mode", "base64"));
    }

    private void assertRecordsSerializeLikeTheConverter(String name, Map<String, String> overrides) throws Exception {
        List<SourceRecord> captured = capture(name, overrides);

        JsonConverter keyOracle = converter(true);
        JsonConverter valueOracle = converter(false);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ChangeEventSerializer serializer = new ChangeEventSerializer(name, registry);
        int tombstones = 0;
        for (SourceRecord record : captured) {
            ProducerRecord<byte[], byte[]> produced = serializer.toProducerRecord(record);
            byte[] key = keyOracle.fromConnectData(record.topic(), record.keySchema(), record.key());
            byte[] value = record.value() == null ? null
                    : valueOracle.fromConnectData(record.topic(), record.valueSchema(), record.value());
            assertThat(text(produced.key())).isEqualTo(text(key));
            assertThat(text(produced.value())).isEqualTo(text(value));
            assertThat(produced.key()).isEqualTo(key);
            assertThat(produced.value()).isEqualTo(value);
            tombstones += value == null ? 1 : 0;
        }
        assertThat(captured.stream().filter(r -> !isMarker(r)).count())
                .as("records of the script: 4 inserts/updates, a delete, its tombstone").isEqualTo(6);
        assertThat(tombstones).isEqualTo(1);
        assertThat(registry.get(ChangeEventSerializer.FALLBACKS_METER).counter().count())
                .as("every real record written without the converter").isZero();
    }

    /** A warm-up insert that raced with the start of the script. */
    private static boolean isMarker(SourceRecord record) {
        return record.value() instanceof org.apache.kafka.connect.data.Struct envelope
                && envelope.getStruct("after") != null && "marker".equals(envelope.getStruct("after").getString("name"));
    }

    private static String text(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    private static JsonConverter converter(boolean key) {
        JsonConverter c = new JsonConverter();
        c.configure(Map.of("schemas.enable", "false", "converter.type", key ? "key" : "value"), key);
        return c;
    }

    /** Runs the engine with the connector's settings until the script's last change (a delete) arrived. */
    private static List<SourceRecord> capture(String name, Map<String, String> overrides) throws Exception {
        Path dir = Files.createTempDirectory(name);
        ConnectorProperties p = new ConnectorProperties();
        p.setName(name);
        p.getDatabase().setHost(db.host());
        p.getDatabase().setPort(db.port());
        p.getDatabase().setUser(db.connectorUser());
        p.getDatabase().setPassword(db.connectorPassword());
        p.getKafka().setBootstrapServers(stack.kafka().bootstrapServers());
        p.setTables(List.of(DB + ".every_type"));
        p.setTopicPrefix(name.replace("-", ""));
        p.getHeartbeat().setInterval(Duration.ZERO);
        p.getOffsets().setStore(ConnectorProperties.OffsetStore.FILE);
        p.getOffsets().setFile(dir.resolve("offsets.dat"));
        p.setDebezium(overrides);
        List<SourceRecord> records = new CopyOnWriteArrayList<>();
        DebeziumEngine<RecordChangeEvent<SourceRecord>> engine = DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
                .using(new DebeziumSettings(p).engineProperties())
                .notifying((batch, committer) -> {
                    for (RecordChangeEvent<SourceRecord> event : batch) {
                        if (event.record().topic().endsWith(".every_type")) {
                            records.add(event.record());
                        }
                        committer.markProcessed(event);
                    }
                    committer.markBatchFinished();
                })
                .build();
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try {
            executor.execute(engine);
            String marker = name + "-marker";
            // the engine connects to the binlog a second or two after start: insert until the first change arrives
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(300)).until(() -> {
                db.execute(DB, "INSERT INTO every_type (code, place_id, name, discount_value, valid_from, issue_limit)"
                        + " VALUES ('" + marker + "-" + System.nanoTime() + "', 1, 'marker', 1.00, '2026-01-01', 1)");
                return !records.isEmpty();
            });
            records.clear();
            String last = name + "-last";
            db.execute(DB,
                    "INSERT INTO every_type (code, place_id, name, discount_value, valid_from, issue_limit) VALUES"
                            + " ('" + name + "-defaults', 2, 'only required columns', 0.01, '1970-01-01', 0)",
                    "INSERT INTO every_type (code, place_id, name, discount_type, discount_value, minimum_price, valid_from,"
                            + " valid_until, status, issue_limit, updated_at, t_tiny, t_tiny_u, t_bool, t_small, t_medium,"
                            + " t_int_u, t_big_u, t_float, t_double, t_dec0, t_dec_neg, t_bit1, t_bit10, t_char, t_text,"
                            + " t_blob, t_binary, t_varbinary, t_time, t_time6, t_dt, t_dt3, t_ts, t_ts6, t_year, t_enum,"
                            + " t_set, t_json) VALUES ('" + name + "-full', 3, 'Ünïcödé \"quoted\" \\\\ tab\\t 漢字 😀',"
                            + " 'PERCENTAGE', 9999999999.99, 12.50, '2026-11-26', '9999-12-31', 'PAUSED', 2147483647,"
                            + " '2026-11-26 08:00:00.123456', -128, 255, TRUE, -32768, 8388607, 4294967295,"
                            + " 18446744073709551615, 3.14159, -2.718281828459045e-300, 123456789012345678901234567890,"
                            + " -123.00001, b'1', b'1010101010', 'ab', REPEAT('long text ', 200), X'00FF10AB',"
                            + " X'DEADBEEF', X'', '-838:59:59', '12:34:56.789012', '1000-01-01 00:00:00',"
                            + " '2038-01-19 03:14:07.999', '2026-11-26 08:00:00', '1970-01-01 00:00:01.000001', 2155, 'c',"
                            + " 'x,z', '{\"a\": [1, 2.5, null], \"b\": {\"c\": \"d\"}}')",
                    "UPDATE every_type SET status = 'ENDED', t_float = NULL, t_json = NULL, minimum_price = 0.10"
                            + " WHERE code = '" + name + "-full'",
                    "INSERT INTO every_type (code, place_id, name, discount_value, valid_from, issue_limit, t_dec_neg)"
                            + " VALUES ('" + last + "', 4, 'deleted', 5.00, '2000-02-29', 5, 0.00000)",
                    "DELETE FROM every_type WHERE code = '" + last + "'");
            await().atMost(Duration.ofSeconds(60)).until(() -> records.stream().anyMatch(r -> r.value() == null));
            return List.copyOf(records);
        } finally {
            engine.close();
            executor.shutdown();
            executor.awaitTermination(30, TimeUnit.SECONDS);
        }
    }
}
