package dev.cdccache.client.consuming;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.parsing.ChangeEvent;
import dev.cdccache.client.parsing.EnvelopeParser;
import dev.cdccache.client.parsing.MalformedEventException;
import dev.cdccache.client.parsing.Operation;
import dev.cdccache.client.parsing.TreeEnvelopeParser;
import dev.cdccache.client.staleness.HeartbeatCoverage;
import dev.cdccache.connector.heartbeat.HeartbeatRecords;
import dev.cdccache.connector.metrics.PublishMetrics;
import dev.cdccache.connector.oversize.OversizedEvents;
import dev.cdccache.connector.publish.ChangeEventSerializer;
import dev.cdccache.connector.publish.KafkaChangePublisher;
import dev.cdccache.contract.ChangeTopics;
import dev.cdccache.contract.ConnectorHeader;
import dev.cdccache.contract.HeartbeatTable;
import io.debezium.data.Envelope;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.time.MicroTimestamp;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The event contract end to end without processes: change records shaped as Debezium's MariaDB connector emits
 * them (its own {@link Envelope} builder) go through the connector's real publish path ({@link KafkaChangePublisher}
 * with its {@link ChangeEventSerializer}, heartbeat recognition and oversized-event reduction) into a mock
 * producer; what it recorded is read back by the client's {@link EnvelopeParser}, {@link HeartbeatReader} and
 * {@link RecordApplier#connectorHeader} and must mean the same: topic, table, key columns, op, GTID, commit time,
 * heartbeat id/ts/epoch/tables, the connector header and the oversized marker.
 *
 * <p>In the client's package, beside the package-private reader of heartbeat rows it exercises.
 */
class ContractRoundTripTest {

    private static final String PREFIX = ChangeTopics.DEFAULT_PREFIX;
    private static final String CONNECTOR = "shop-connector";
    private static final String ITEM_TOPIC = ChangeTopics.of(PREFIX, "shop", "item");
    private static final String HEARTBEAT_TOPIC = ChangeTopics.heartbeat(PREFIX);

    private static final Schema ITEM_KEY = SchemaBuilder.struct().name(ITEM_TOPIC + ".Key")
            .field("id", Schema.INT64_SCHEMA).build();
    private static final Schema ITEM_ROW = SchemaBuilder.struct().name(ITEM_TOPIC + ".Value")
            .field("id", Schema.INT64_SCHEMA)
            .field("code", Schema.STRING_SCHEMA)
            .field("note", Schema.OPTIONAL_STRING_SCHEMA).optional().build();
    /** The fields of the MariaDB connector's {@code source} block that the contract names, and a few around them. */
    private static final Schema SOURCE = SchemaBuilder.struct().name("io.debezium.connector.mariadb.Source")
            .field("connector", Schema.STRING_SCHEMA)
            .field("name", Schema.STRING_SCHEMA)
            .field("ts_ms", Schema.INT64_SCHEMA)
            .field("db", Schema.STRING_SCHEMA)
            .field("table", Schema.OPTIONAL_STRING_SCHEMA)
            .field("server_id", Schema.INT64_SCHEMA)
            .field("gtid", Schema.OPTIONAL_STRING_SCHEMA)
            .field("file", Schema.STRING_SCHEMA)
            .field("pos", Schema.INT64_SCHEMA)
            .field("row", Schema.INT32_SCHEMA).build();
    private static final Envelope ITEM_ENVELOPE = Envelope.defineSchema().withName(ITEM_TOPIC + ".Envelope")
            .withRecord(ITEM_ROW).withSource(SOURCE).build();

    private static final Schema BEAT_KEY = SchemaBuilder.struct().name(HEARTBEAT_TOPIC + ".Key")
            .field(HeartbeatTable.ID, Schema.STRING_SCHEMA).build();
    /** {@code ts DATETIME(6)} arrives as Debezium's default {@code adaptive_time_microseconds}. */
    private static final Schema BEAT_ROW = SchemaBuilder.struct().name(HEARTBEAT_TOPIC + ".Value")
            .field(HeartbeatTable.ID, Schema.STRING_SCHEMA)
            .field(HeartbeatTable.TS, MicroTimestamp.builder().build())
            .field(HeartbeatTable.EPOCH, Schema.OPTIONAL_STRING_SCHEMA)
            .field(HeartbeatTable.TABLES, Schema.OPTIONAL_STRING_SCHEMA).optional().build();
    private static final Envelope BEAT_ENVELOPE = Envelope.defineSchema().withName(HEARTBEAT_TOPIC + ".Envelope")
            .withRecord(BEAT_ROW).withSource(SOURCE).build();

    private static final Instant COMMIT = Instant.parse("2026-03-01T10:15:30Z");
    private static final Instant PROCESSED = COMMIT.plusMillis(40);

    private final JsonMapper json = JsonMapper.builder().build();
    private final EnvelopeParser parser = new EnvelopeParser();
    private final TreeEnvelopeParser oracle = new TreeEnvelopeParser();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MockProducer<byte[], byte[]> producer =
            new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
    private long position = 4;

    /** The connector's publisher as the application wires it, with a producer limit of {@code maxRequestSize}. */
    private KafkaChangePublisher publisher(int maxRequestSize) {
        return new KafkaChangePublisher(() -> producer, new ChangeEventSerializer(CONNECTOR),
                new PublishMetrics(registry, () -> 2), PREFIX, Clock.systemUTC(),
                new HeartbeatRecords(HEARTBEAT_TOPIC, CONNECTOR), new OversizedEvents(maxRequestSize, registry));
    }

    private List<ProducerRecord<byte[], byte[]>> publish(List<SourceRecord> records) throws InterruptedException {
        return publish(1024 * 1024, records);
    }

    private List<ProducerRecord<byte[], byte[]>> publish(int maxRequestSize, List<SourceRecord> records)
            throws InterruptedException {
        List<RecordChangeEvent<SourceRecord>> batch = new ArrayList<>();
        records.forEach(r -> batch.add(() -> r));
        publisher(maxRequestSize).handleBatch(batch, new DebeziumEngine.RecordCommitter<>() {
            @Override
            public void markProcessed(RecordChangeEvent<SourceRecord> record) {
            }

            @Override
            public void markBatchFinished() {
            }

            @Override
            public void markProcessed(RecordChangeEvent<SourceRecord> record, DebeziumEngine.Offsets offsets) {
            }

            @Override
            public DebeziumEngine.Offsets buildOffsets() {
                return null;
            }
        });
        return producer.history();
    }

    private Struct source(String table, String gtid) {
        return new Struct(SOURCE).put("connector", "mariadb").put("name", PREFIX).put("ts_ms", COMMIT.toEpochMilli())
                .put("db", "shop").put("table", table).put("server_id", 1L).put("gtid", gtid)
                .put("file", "mariadb-bin.000003").put("pos", position++).put("row", 0);
    }

    private static Struct item(long id, String code, String note) {
        return new Struct(ITEM_ROW).put("id", id).put("code", code).put("note", note);
    }

    private SourceRecord itemRecord(long id, Struct value) {
        return new SourceRecord(Map.of("server", PREFIX), Map.of("pos", position), ITEM_TOPIC, null,
                ITEM_KEY, new Struct(ITEM_KEY).put("id", id), value == null ? null : ITEM_ENVELOPE.schema(), value);
    }

    private SourceRecord heartbeat(String connector, Instant ts, String epoch, String tables) {
        Struct row = new Struct(BEAT_ROW).put(HeartbeatTable.ID, connector)
                .put(HeartbeatTable.TS, ts.getEpochSecond() * 1_000_000 + ts.getNano() / 1_000)
                .put(HeartbeatTable.EPOCH, epoch).put(HeartbeatTable.TABLES, tables);
        Struct value = BEAT_ENVELOPE.update(row, row, source("heartbeat", "0-1-900"), PROCESSED);
        value.getStruct("source").put("db", "cdc_meta");
        return new SourceRecord(Map.of("server", PREFIX), Map.of("pos", position), HEARTBEAT_TOPIC, null,
                BEAT_KEY, new Struct(BEAT_KEY).put(HeartbeatTable.ID, connector), BEAT_ENVELOPE.schema(), value);
    }

    /** What the client's consumer parses out of a record the connector produced. */
    /** The event the client reads from {@code record}; the tree parse it replaced must read the very same. */
    private ChangeEvent read(ProducerRecord<byte[], byte[]> record) {
        try {
            ChangeEvent event = parser.parse(record.topic(), 0, 0, record.value());
            assertThat(event).isEqualTo(oracle.parse(record.topic(), 0, 0, record.value()));
            return event;
        } catch (MalformedEventException e) {
            throw new AssertionError("the client refused what the connector published: " + e.getMessage(), e);
        }
    }

    private JsonNode key(ProducerRecord<byte[], byte[]> record) {
        return json.readTree(record.key());
    }

    private static String connectorHeader(ProducerRecord<byte[], byte[]> record) {
        ConsumerRecord<byte[], byte[]> received = new ConsumerRecord<>(record.topic(), 0, 0, record.key(), record.value());
        record.headers().forEach(h -> received.headers().add(h));
        return RecordApplier.connectorHeader(received);
    }

    @Test
    void anUpdateReadsBackWithItsTableKeyImagesOpGtidAndCommitTime() throws Exception {
        Struct value = ITEM_ENVELOPE.update(item(7, "OLD-7", "a"), item(7, "NEW-7", "b"), source("item", "0-1-451"),
                PROCESSED);

        ProducerRecord<byte[], byte[]> published = publish(List.of(itemRecord(7, value))).get(0);
        ChangeEvent event = read(published);

        assertThat(published.topic()).isEqualTo(ITEM_TOPIC);
        assertThat(key(published)).isEqualTo(json.readTree("{\"id\":7}"));
        assertThat(connectorHeader(published)).isEqualTo(CONNECTOR);
        assertThat(event.operation()).isEqualTo(Operation.UPDATE);
        assertThat(event.database()).isEqualTo("shop");
        assertThat(event.table()).isEqualTo("item");
        assertThat(event.before().get("id").asLong()).isEqualTo(7);
        assertThat(event.before().get("code").asString()).isEqualTo("OLD-7");
        assertThat(event.after().get("id").asLong()).isEqualTo(7);
        assertThat(event.after().get("code").asString()).isEqualTo("NEW-7");
        assertThat(event.gtid()).isEqualTo("0-1-451");
        assertThat(event.sourceTimestampMillis()).isEqualTo(COMMIT.toEpochMilli());
        assertThat(event.eventTimestampMillis()).isEqualTo(PROCESSED.toEpochMilli());
        assertThat(event.truncated()).isFalse();
    }

    @Test
    void insertSnapshotReadDeleteTombstoneAndTruncateKeepTheirMeaning() throws Exception {
        List<ProducerRecord<byte[], byte[]>> published = publish(List.of(
                itemRecord(1, ITEM_ENVELOPE.create(item(1, "C-1", null), source("item", "0-1-10"), PROCESSED)),
                itemRecord(2, ITEM_ENVELOPE.read(item(2, "R-2", null), source("item", null), PROCESSED)),
                itemRecord(3, ITEM_ENVELOPE.delete(item(3, "D-3", "x"), source("item", "0-1-11"), PROCESSED)),
                itemRecord(3, null),
                new SourceRecord(Map.of("server", PREFIX), Map.of("pos", position), ITEM_TOPIC, null, null, null,
                        ITEM_ENVELOPE.schema(), ITEM_ENVELOPE.truncate(source("item", "0-1-12"), PROCESSED))));

        assertThat(published).hasSize(5);
        ChangeEvent insert = read(published.get(0));
        assertThat(insert.operation()).isEqualTo(Operation.CREATE);
        assertThat(insert.before()).isNull();
        assertThat(insert.after().get("code").asString()).isEqualTo("C-1");
        assertThat(insert.gtid()).isEqualTo("0-1-10");

        ChangeEvent snapshot = read(published.get(1));
        assertThat(snapshot.operation()).isEqualTo(Operation.READ);
        assertThat(snapshot.after().get("id").asLong()).isEqualTo(2);
        assertThat(snapshot.gtid()).isNull();

        ChangeEvent delete = read(published.get(2));
        assertThat(delete.operation()).isEqualTo(Operation.DELETE);
        assertThat(delete.before().get("code").asString()).isEqualTo("D-3");
        assertThat(delete.after()).isNull();

        ProducerRecord<byte[], byte[]> tombstone = published.get(3);
        assertThat(tombstone.value()).as("a delete's tombstone has no value").isNull();
        assertThat(key(tombstone)).isEqualTo(key(published.get(2)));
        assertThat(connectorHeader(tombstone)).isEqualTo(CONNECTOR);

        ChangeEvent truncate = read(published.get(4));
        assertThat(truncate.operation()).isEqualTo(Operation.TRUNCATE);
        assertThat(truncate.table()).isEqualTo("item");
        assertThat(truncate.before()).isNull();
        assertThat(truncate.after()).isNull();
        assertThat(published.get(4).key()).isNull();
    }

    @Test
    void theConnectorsHeartbeatRowReadsBackWithItsIdTsEpochAndTables() throws Exception {
        Instant written = Instant.parse("2026-03-01T10:15:31.123456Z");
        // The tables column as the connector writes it into its row (lower-case, comma-separated).
        String tablesColumn = HeartbeatTable.tablesColumn(List.of("Shop.Item", "shop.place"));
        List<ProducerRecord<byte[], byte[]>> published = publish(List.of(
                heartbeat(CONNECTOR, written, "e-42", tablesColumn),
                heartbeat("another-connector", written, "e-7", "shop.other")));

        assertThat(published).as("another connector's row is that connector's to publish").hasSize(1);
        ProducerRecord<byte[], byte[]> beat = published.get(0);
        assertThat(beat.topic()).isEqualTo(HEARTBEAT_TOPIC);
        assertThat(key(beat)).isEqualTo(json.readTree("{\"id\":\"" + CONNECTOR + "\"}"));
        assertThat(connectorHeader(beat)).isEqualTo(CONNECTOR);
        HeartbeatCoverage.Heartbeat heartbeat = HeartbeatReader.read(read(beat).after());
        assertThat(heartbeat).isNotNull();
        assertThat(heartbeat.id()).isEqualTo(CONNECTOR);
        assertThat(heartbeat.numericId()).isFalse();
        assertThat(heartbeat.tsMillis()).isEqualTo(written.toEpochMilli());
        assertThat(heartbeat.epoch()).isEqualTo("e-42");
        assertThat(heartbeat.tables()).containsExactly("shop.item", "shop.place")
                .isEqualTo(HeartbeatTable.tablesOf(tablesColumn));
    }

    @Test
    void anOversizedEventReadsBackKeyOnlyWithTheRemovedColumnsNamed() throws Exception {
        String large = "x".repeat(8_000);
        Struct value = ITEM_ENVELOPE.update(item(9, "OLD-9", large), item(9, "NEW-9", large), source("item", "0-1-77"),
                PROCESSED);

        ProducerRecord<byte[], byte[]> published = publish(4_096, List.of(itemRecord(9, value))).get(0);
        ChangeEvent event = read(published);

        assertThat(published.value().length).isLessThan(4_096);
        assertThat(new String(published.value(), StandardCharsets.UTF_8)).doesNotContain(large);
        assertThat(key(published)).isEqualTo(json.readTree("{\"id\":9}"));
        assertThat(connectorHeader(published)).isEqualTo(CONNECTOR);
        assertThat(event.truncated()).isTrue();
        assertThat(event.truncatedColumns()).isEqualTo(Set.of("code", "note"));
        assertThat(event.operation()).isEqualTo(Operation.UPDATE);
        assertThat(event.table()).isEqualTo("item");
        assertThat(event.gtid()).isEqualTo("0-1-77");
        assertThat(event.before().get("id").asLong()).isEqualTo(9);
        assertThat(event.after().get("id").asLong()).isEqualTo(9);
        assertThat(event.after().has("code")).isFalse();
    }

    @Test
    void theConnectorHeaderNamesTheConnectorInTheContractsEncoding() throws Exception {
        ProducerRecord<byte[], byte[]> published = publish(List.of(itemRecord(5,
                ITEM_ENVELOPE.create(item(5, "C-5", null), source("item", "0-1-5"), PROCESSED)))).get(0);

        assertThat(ConnectorHeader.connectorName(published.headers().lastHeader(ConnectorHeader.NAME).value()))
                .isEqualTo(CONNECTOR);
        assertThat(connectorHeader(published)).isEqualTo(CONNECTOR);
    }
}
