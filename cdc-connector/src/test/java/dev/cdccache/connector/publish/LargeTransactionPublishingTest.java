package dev.cdccache.connector.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdccache.connector.heartbeat.HeartbeatRecords;
import dev.cdccache.connector.metrics.PublishMetrics;
import dev.cdccache.connector.oversize.OversizedEvents;
import dev.cdccache.contract.ConnectorHeader;
import io.debezium.engine.RecordChangeEvent;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A transaction that changes more rows of a table than the threshold: its first rows are published, then one
 * table-wide eviction per partition of the topic, then nothing more of that table in that transaction; the
 * suppressed rows are acknowledged to the engine only with Kafka's acknowledgement of the eviction, and a heartbeat
 * after the transaction only after that too.
 */
class LargeTransactionPublishingTest {

    private static final String TOPIC = "cdc.shop.item";
    private static final Schema KEY = SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).build();
    private static final Schema ROW = SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).optional().build();
    private static final Schema SOURCE = SchemaBuilder.struct().field("ts_ms", Schema.INT64_SCHEMA)
            .field("gtid", Schema.OPTIONAL_STRING_SCHEMA).build();
    private static final Schema VALUE = SchemaBuilder.struct().field("before", ROW).field("after", ROW)
            .field("source", SOURCE).field("op", Schema.STRING_SCHEMA).build();
    private static final Schema BEAT_KEY = SchemaBuilder.struct().field("id", Schema.STRING_SCHEMA).build();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final PublishMetrics metrics = new PublishMetrics(registry, () -> 2);

    private static Cluster cluster() {
        Node node = new Node(0, "localhost", 9092);
        List<PartitionInfo> partitions = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            partitions.add(new PartitionInfo(TOPIC, p, node, new Node[] {node}, new Node[] {node}));
        }
        return new Cluster("test", List.of(node), partitions, java.util.Set.of(), java.util.Set.of());
    }

    /** A row of the transaction starting at binlog position {@code txPos}, GTID {@code 0-1-<txPos>}. */
    private static RecordChangeEvent<SourceRecord> update(long txPos, int row, long id) {
        Struct value = new Struct(VALUE)
                .put("before", new Struct(ROW).put("id", id))
                .put("after", new Struct(ROW).put("id", id))
                .put("source", new Struct(SOURCE).put("ts_ms", 1_000L).put("gtid", "0-1-" + txPos))
                .put("op", "u");
        SourceRecord record = new SourceRecord(Map.of("server", "cdc"),
                Map.of("file", "bin.000001", "pos", txPos, "event", 2, "row", row), TOPIC, null, KEY,
                new Struct(KEY).put("id", id), VALUE, value);
        return () -> record;
    }

    private static RecordChangeEvent<SourceRecord> heartbeat(long txPos) {
        SourceRecord record = new SourceRecord(Map.of("server", "cdc"), Map.of("file", "bin.000001", "pos", txPos),
                "cdc.cdc_meta.heartbeat", null, BEAT_KEY, new Struct(BEAT_KEY).put("id", "test-connector"), null, null);
        return () -> record;
    }

    private KafkaChangePublisher publisher(MockProducer<byte[], byte[]> producer, int threshold) {
        return new KafkaChangePublisher(() -> producer, new ChangeEventSerializer("test-connector"), metrics, "cdc",
                Clock.systemUTC(), new HeartbeatRecords("cdc.cdc_meta.heartbeat", "test-connector"),
                new OversizedEvents(1024 * 1024, registry), new TransactionCoalescer(threshold, Map.of()),
                new TableEvictions(() -> "eviction-1"));
    }

    private static List<RecordChangeEvent<SourceRecord>> transaction(long txPos, int rows) {
        List<RecordChangeEvent<SourceRecord>> records = new ArrayList<>();
        for (int i = 1; i <= rows; i++) {
            records.add(update(txPos, i, txPos * 1000 + i));
        }
        return records;
    }

    private static JsonNode value(ProducerRecord<byte[], byte[]> record) {
        return JSON.readTree(record.value());
    }

    @Test
    void aTransactionOverTheThresholdPublishesItsFirstRowsThenOneEvictionPerPartitionAndNothingMoreOfIt()
            throws Exception {
        MockProducer<byte[], byte[]> producer = new MockProducer<>(cluster(), true, null, new ByteArraySerializer(),
                new ByteArraySerializer());
        List<RecordChangeEvent<SourceRecord>> batch = new ArrayList<>(transaction(100, 6));
        batch.add(update(200, 1, 7)); // the next transaction: published as usual
        KafkaChangePublisherTest.RecordingCommitter committer = new KafkaChangePublisherTest.RecordingCommitter();
        publisher(producer, 2).handleBatch(batch, committer);

        List<ProducerRecord<byte[], byte[]>> sent = producer.history();
        assertThat(sent).hasSize(2 + 3 + 1);
        assertThat(value(sent.get(0)).path("after").path("id").asLong()).isEqualTo(100_001);
        assertThat(value(sent.get(1)).path("after").path("id").asLong()).isEqualTo(100_002);
        List<Integer> partitions = new ArrayList<>();
        for (ProducerRecord<byte[], byte[]> eviction : sent.subList(2, 5)) {
            partitions.add(eviction.partition());
            assertThat(eviction.topic()).isEqualTo(TOPIC);
            assertThat(eviction.key()).isNull();
            assertThat(new String(eviction.headers().lastHeader(ConnectorHeader.NAME).value(), StandardCharsets.UTF_8))
                    .isEqualTo("test-connector");
            JsonNode value = value(eviction);
            assertThat(value.path("before").isNull()).isTrue();
            assertThat(value.path("after").isNull()).isTrue();
            assertThat(value.path("op").asString()).isEqualTo("u");
            assertThat(value.path("source").path("gtid").asString()).isEqualTo("0-1-100");
            assertThat(value.path("truncated_columns").toString()).as("old clients evict every cache").isEqualTo("[\"*\"]");
            assertThat(value.path("coalesced").path("transaction").asString()).isEqualTo("0-1-100");
            assertThat(value.path("coalesced").path("eviction").asString()).isEqualTo("eviction-1");
            assertThat(value.path("coalesced").path("rows_published").asInt()).isEqualTo(2);
            assertThat(value.path("coalesced").path("partitions").asInt()).isEqualTo(3);
        }
        assertThat(partitions).as("one copy on every partition").containsExactly(0, 1, 2);
        assertThat(value(sent.get(5)).path("after").path("id").asLong()).isEqualTo(7);
        assertThat(committer.calls).containsExactly("processed:cdc.shop.item:7", "batchFinished");
        assertThat(registry.get("cdc.connector.transactions.coalesced").tag("table", "shop.item").counter().count())
                .isEqualTo(1);
        assertThat(registry.get("cdc.connector.events.suppressed").tag("table", "shop.item").counter().count())
                .isEqualTo(4);
    }

    @Test
    void aTransactionSpreadOverBatchesIsCountedAcrossThemAndStaysSuppressed() throws Exception {
        MockProducer<byte[], byte[]> producer = new MockProducer<>(cluster(), true, null, new ByteArraySerializer(),
                new ByteArraySerializer());
        KafkaChangePublisher publisher = publisher(producer, 3);
        List<RecordChangeEvent<SourceRecord>> rows = transaction(100, 8);
        publisher.handleBatch(rows.subList(0, 2), new KafkaChangePublisherTest.RecordingCommitter());
        publisher.handleBatch(rows.subList(2, 5), new KafkaChangePublisherTest.RecordingCommitter());
        publisher.handleBatch(rows.subList(5, 8), new KafkaChangePublisherTest.RecordingCommitter());
        assertThat(producer.history()).hasSize(3 + 3);
        assertThat(producer.history().subList(3, 6)).allSatisfy(r -> assertThat(r.key()).isNull());
    }

    @Test
    void suppressedRowsAndTheHeartbeatAfterThemWaitForKafkasAcknowledgementOfTheEviction() throws Exception {
        MockProducer<byte[], byte[]> producer = new MockProducer<>(cluster(), false, null, new ByteArraySerializer(),
                new ByteArraySerializer()) {
            @Override
            public synchronized void flush() {
            }
        };
        KafkaChangePublisher publisher = publisher(producer, 1);
        KafkaChangePublisherTest.RecordingCommitter committer = new KafkaChangePublisherTest.RecordingCommitter();
        List<RecordChangeEvent<SourceRecord>> batch = new ArrayList<>(transaction(100, 4));
        batch.add(heartbeat(300));
        CompletableFuture<Void> handled = CompletableFuture.runAsync(() -> {
            try {
                publisher.handleBatch(batch, committer);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> producer.history().size() == 4); // one row, three copies
        assertThat(producer.completeNext()).isTrue();
        assertThat(producer.completeNext()).isTrue();
        assertThat(producer.completeNext()).isTrue();
        Thread.sleep(200); // give a wrong implementation the time to go on
        assertThat(producer.history()).as("the copy on partition 2 not acknowledged: no heartbeat").hasSize(4);
        assertThat(committer.calls).as("nothing marked, the suppressed rows neither").isEmpty();

        assertThat(producer.completeNext()).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> producer.history().size() == 5);
        assertThat(producer.history().get(4).topic()).isEqualTo("cdc.cdc_meta.heartbeat");
        assertThat(producer.completeNext()).isTrue();
        handled.get();
        assertThat(committer.calls).as("the heartbeat, last of the batch")
                .containsExactly("processed:cdc.cdc_meta.heartbeat:test-connector", "batchFinished");
    }

    @Test
    void withoutAThresholdEveryRowIsPublished() throws Exception {
        MockProducer<byte[], byte[]> producer = new MockProducer<>(cluster(), true, null, new ByteArraySerializer(),
                new ByteArraySerializer());
        publisher(producer, 0).handleBatch(transaction(100, 50), new KafkaChangePublisherTest.RecordingCommitter());
        assertThat(producer.history()).hasSize(50).allSatisfy(r -> assertThat(r.key()).isNotNull());
    }
}
