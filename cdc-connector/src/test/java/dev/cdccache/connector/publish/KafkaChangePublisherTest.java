package dev.cdccache.connector.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdccache.connector.metrics.PublishMetrics;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

/**
 * The at-least-once step: a batch's positions reach the engine's committer only after Kafka
 * acknowledged every event of the batch, and never when an event was rejected.
 */
class KafkaChangePublisherTest {

    private static final Schema KEY = SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).build();
    private static final Schema SOURCE = SchemaBuilder.struct().field("ts_ms", Schema.INT64_SCHEMA).build();
    private static final Schema VALUE = SchemaBuilder.struct()
            .field("after", SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).optional().build())
            .field("source", SOURCE).field("op", Schema.STRING_SCHEMA).build();

    /** A producer whose sends complete only when the test says so (flush does not force them). */
    private static final class ManualProducer extends MockProducer<byte[], byte[]> {
        ManualProducer() {
            super(false, null, new ByteArraySerializer(), new ByteArraySerializer());
        }

        @Override
        public synchronized void flush() {
        }
    }

    static class RecordingCommitter implements DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> {
        final List<String> calls = new CopyOnWriteArrayList<>();

        @Override
        public void markProcessed(RecordChangeEvent<SourceRecord> record) {
            calls.add("processed:" + record.record().topic() + ":" + ((Struct) record.record().key()).get("id"));
        }

        @Override
        public void markBatchFinished() {
            calls.add("batchFinished");
        }

        @Override
        public void markProcessed(RecordChangeEvent<SourceRecord> record, DebeziumEngine.Offsets offsets) {
            markProcessed(record);
        }

        @Override
        public DebeziumEngine.Offsets buildOffsets() {
            throw new UnsupportedOperationException();
        }
    }

    private static RecordChangeEvent<SourceRecord> insert(long id) {
        Struct value = new Struct(VALUE)
                .put("after", new Struct(VALUE.field("after").schema()).put("id", id))
                .put("source", new Struct(SOURCE).put("ts_ms", 1_000L))
                .put("op", "c");
        SourceRecord record = new SourceRecord(Map.of("server", "cdc"), Map.of("pos", id), "cdc.shop.item", null,
                KEY, new Struct(KEY).put("id", id), VALUE, value);
        return () -> record;
    }

    private static final Schema BEAT_KEY = SchemaBuilder.struct().field("id", Schema.STRING_SCHEMA).build();

    private static RecordChangeEvent<SourceRecord> heartbeat(String connector) {
        SourceRecord record = new SourceRecord(Map.of("server", "cdc"), Map.of("pos", 99), "cdc.cdc_meta.heartbeat", null,
                BEAT_KEY, new Struct(BEAT_KEY).put("id", connector), null, null);
        return () -> record;
    }

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final PublishMetrics metrics = new PublishMetrics(registry, () -> 2);

    @Test
    void batchIsMarkedProcessedOnlyAfterKafkaAcknowledgedEveryEvent() throws Exception {
        ManualProducer producer = new ManualProducer();
        KafkaChangePublisher publisher = new KafkaChangePublisher(() -> producer, new ChangeEventSerializer("test-connector"), metrics,
                "cdc", Clock.systemUTC());
        RecordingCommitter committer = new RecordingCommitter();

        CompletableFuture<Void> batch = CompletableFuture.runAsync(() -> {
            try {
                publisher.handleBatch(List.of(insert(1), insert(2)), committer);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> producer.history().size() == 2);
        assertThat(producer.completeNext()).isTrue();
        // one event acknowledged, one pending: nothing may be marked yet
        assertThat(batch).isNotDone();
        assertThat(committer.calls).isEmpty();

        assertThat(producer.completeNext()).isTrue();
        batch.get();
        // the last record's position stands for the whole batch (one source partition)
        assertThat(committer.calls).containsExactly("processed:cdc.shop.item:2", "batchFinished");
        assertThat(registry.get("cdc.connector.events.published").tag("table", "shop.item").counter().count()).isEqualTo(2);
    }

    @Test
    void heartbeatIsHandedToKafkaOnlyAfterEveryEarlierChangeOfTheBatchIsAcknowledged() throws Exception {
        ManualProducer producer = new ManualProducer();
        KafkaChangePublisher publisher = new KafkaChangePublisher(() -> producer, new ChangeEventSerializer("test-connector"),
                metrics, "cdc", Clock.systemUTC(),
                new dev.cdccache.connector.heartbeat.HeartbeatRecords("cdc.cdc_meta.heartbeat", "test-connector"),
                new dev.cdccache.connector.oversize.OversizedEvents(1024 * 1024, registry));
        RecordingCommitter committer = new RecordingCommitter();

        CompletableFuture<Void> batch = CompletableFuture.runAsync(() -> {
            try {
                publisher.handleBatch(List.of(insert(1), insert(2), heartbeat("test-connector"), insert(3)), committer);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> producer.history().size() == 2);
        assertThat(producer.completeNext()).isTrue();
        Thread.sleep(200); // give a wrong implementation the time to send the heartbeat anyway
        assertThat(producer.history()).as("change 2 not acknowledged yet: no heartbeat").hasSize(2);

        assertThat(producer.completeNext()).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> producer.history().size() == 4);
        assertThat(producer.history().get(2).topic()).isEqualTo("cdc.cdc_meta.heartbeat");
        producer.completeNext();
        producer.completeNext();
        batch.get();
        // one source partition: the last record's position stands for the batch
        assertThat(committer.calls).containsExactly("processed:cdc.shop.item:3", "batchFinished");
    }

    @Test
    void otherConnectorsHeartbeatRowsAreMarkedButNotPublished() throws Exception {
        MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        KafkaChangePublisher publisher = new KafkaChangePublisher(() -> producer, new ChangeEventSerializer("test-connector"),
                metrics, "cdc", Clock.systemUTC(),
                new dev.cdccache.connector.heartbeat.HeartbeatRecords("cdc.cdc_meta.heartbeat", "test-connector"),
                new dev.cdccache.connector.oversize.OversizedEvents(1024 * 1024, registry));
        RecordingCommitter committer = new RecordingCommitter();

        publisher.handleBatch(List.of(heartbeat("other-connector"), heartbeat("test-connector")), committer);

        assertThat(producer.history()).hasSize(1);
        assertThat(new String(producer.history().get(0).key(), StandardCharsets.UTF_8)).isEqualTo("{\"id\":\"test-connector\"}");
        assertThat(new String(producer.history().get(0).headers().lastHeader("cdc-connector").value(), StandardCharsets.UTF_8))
                .isEqualTo("test-connector");
        assertThat(committer.calls).containsExactly("processed:cdc.cdc_meta.heartbeat:test-connector", "batchFinished");
    }

    @Test
    void nothingIsMarkedProcessedOnceTheEngineWasStoppedAtAnEvent() throws Exception {
        MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        java.util.concurrent.atomic.AtomicBoolean halted = new java.util.concurrent.atomic.AtomicBoolean();
        KafkaChangePublisher publisher = new KafkaChangePublisher(() -> producer, new ChangeEventSerializer("test-connector"),
                metrics, "cdc", Clock.systemUTC(),
                new dev.cdccache.connector.heartbeat.HeartbeatRecords("cdc.cdc_meta.heartbeat", "test-connector"),
                new dev.cdccache.connector.oversize.OversizedEvents(1024 * 1024, registry),
                dev.cdccache.connector.publish.TransactionCoalescer.never(), halted::get);
        RecordingCommitter committer = new RecordingCommitter();
        publisher.handleBatch(List.of(insert(1)), committer);
        assertThat(committer.calls).containsExactly("processed:cdc.shop.item:1", "batchFinished");

        // the binlog thread stopped at an event; what Debezium still hands over carries positions past it
        halted.set(true);
        committer.calls.clear();
        publisher.handleBatch(List.of(insert(2), heartbeat("test-connector")), committer);

        assertThat(committer.calls).as("no position past the event may be stored").isEmpty();
    }

    private static final Schema BEAT_ROW = SchemaBuilder.struct().optional().field("id", Schema.STRING_SCHEMA)
            .field("epoch", Schema.STRING_SCHEMA).build();
    private static final Schema BEAT_ENVELOPE = SchemaBuilder.struct().field("after", BEAT_ROW).build();

    private static RecordChangeEvent<SourceRecord> heartbeat(String connector, String epoch) {
        SourceRecord record = new SourceRecord(Map.of("server", "cdc"), Map.of("pos", 99), "cdc.cdc_meta.heartbeat", null,
                BEAT_KEY, new Struct(BEAT_KEY).put("id", connector), BEAT_ENVELOPE,
                new Struct(BEAT_ENVELOPE).put("after", new Struct(BEAT_ROW).put("id", connector).put("epoch", epoch)));
        return () -> record;
    }

    @Test
    void ownHeartbeatRowsOfAReplacedEpochAreMarkedButNotPublished() throws Exception {
        MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        java.util.concurrent.atomic.AtomicReference<String> epoch = new java.util.concurrent.atomic.AtomicReference<>("e2");
        KafkaChangePublisher publisher = new KafkaChangePublisher(() -> producer, new ChangeEventSerializer("test-connector"),
                metrics, "cdc", Clock.systemUTC(),
                new dev.cdccache.connector.heartbeat.HeartbeatRecords("cdc.cdc_meta.heartbeat", "test-connector", epoch::get),
                new dev.cdccache.connector.oversize.OversizedEvents(1024 * 1024, registry));
        RecordingCommitter committer = new RecordingCommitter();

        // written before the epoch was replaced, read from the binlog after: it would prove times under the old epoch
        publisher.handleBatch(List.of(heartbeat("test-connector", "e1"), heartbeat("test-connector", "e2"),
                heartbeat("other-connector", "x")), committer);

        assertThat(producer.history()).hasSize(1);
        assertThat(new String(producer.history().get(0).value(), StandardCharsets.UTF_8)).contains("\"epoch\":\"e2\"");
        assertThat(committer.calls).last().isEqualTo("batchFinished");
    }

    @Test
    void rejectedEventLeavesTheWholeBatchUnmarked() throws Exception {
        ManualProducer producer = new ManualProducer();
        KafkaChangePublisher publisher = new KafkaChangePublisher(() -> producer, new ChangeEventSerializer("test-connector"), metrics,
                "cdc", Clock.systemUTC());
        RecordingCommitter committer = new RecordingCommitter();

        CompletableFuture<Void> batch = CompletableFuture.runAsync(() -> {
            try {
                publisher.handleBatch(List.of(insert(1), insert(2)), committer);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> producer.history().size() == 2);
        producer.completeNext();
        producer.errorNext(new NotEnoughReplicasException("min.insync.replicas not met"));

        await().atMost(Duration.ofSeconds(5)).until(batch::isDone);
        assertThat(batch).isCompletedExceptionally();
        assertThat(committer.calls).isEmpty();
        assertThat(registry.get("cdc.connector.publish.failures").counter().count()).isEqualTo(1);
    }

    @Test
    void keyIsThePrimaryKeyAsJsonAndTheTopicIsTheRecordsTopic() throws Exception {
        MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        KafkaChangePublisher publisher = new KafkaChangePublisher(() -> producer, new ChangeEventSerializer("test-connector"), metrics,
                "cdc", Clock.systemUTC());
        publisher.handleBatch(List.of(insert(42)), new RecordingCommitter());

        var sent = producer.history().get(0);
        assertThat(sent.topic()).isEqualTo("cdc.shop.item");
        assertThat(sent.partition()).isNull(); // the default partitioner hashes the key
        assertThat(new String(sent.key(), StandardCharsets.UTF_8)).isEqualTo("{\"id\":42}");
        assertThat(new String(sent.value(), StandardCharsets.UTF_8))
                .isEqualTo("{\"after\":{\"id\":42},\"source\":{\"ts_ms\":1000},\"op\":\"c\"}");
    }

    @Test
    void tombstoneTravelsAsANullValue() throws Exception {
        MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        KafkaChangePublisher publisher = new KafkaChangePublisher(() -> producer, new ChangeEventSerializer("test-connector"), metrics,
                "cdc", Clock.systemUTC());
        SourceRecord tombstone = new SourceRecord(Map.of(), Map.of("pos", 9), "cdc.shop.item", null,
                KEY, new Struct(KEY).put("id", 7L), null, null);
        publisher.handleBatch(List.of(() -> tombstone), new RecordingCommitter());

        assertThat(new String(producer.history().get(0).key(), StandardCharsets.UTF_8)).isEqualTo("{\"id\":7}");
        assertThat(producer.history().get(0).value()).isNull();
    }

    @Test
    void debeziumHeartbeatRecordsAreMarkedButNotPublished() throws Exception {
        MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        KafkaChangePublisher publisher = new KafkaChangePublisher(() -> producer, new ChangeEventSerializer("test-connector"), metrics,
                "cdc", Clock.systemUTC());
        SourceRecord heartbeat = new SourceRecord(Map.of(), Map.of("pos", 10), "__debezium-heartbeat.cdc", null,
                KEY, new Struct(KEY).put("id", 0L), null, null);
        RecordingCommitter committer = new RecordingCommitter();
        publisher.handleBatch(List.of(() -> heartbeat), committer);

        assertThat(producer.history()).isEmpty();
        assertThat(committer.calls).containsExactly("processed:__debezium-heartbeat.cdc:0", "batchFinished");
    }

    /** Like the engine's committer: the latest offset marked per source partition is what gets stored. */
    private static final class OffsetKeepingCommitter extends RecordingCommitter {
        final Map<Map<String, ?>, Map<String, ?>> offsets = new java.util.HashMap<>();

        @Override
        public void markProcessed(RecordChangeEvent<SourceRecord> record) {
            super.markProcessed(record);
            offsets.put(record.record().sourcePartition(), record.record().sourceOffset());
        }
    }

    private static RecordChangeEvent<SourceRecord> change(String server, long position) {
        SourceRecord record = new SourceRecord(Map.of("server", server), Map.of("pos", position), "cdc.shop.item", null,
                KEY, new Struct(KEY).put("id", position), VALUE, new Struct(VALUE)
                        .put("after", new Struct(VALUE.field("after").schema()).put("id", position))
                        .put("source", new Struct(SOURCE).put("ts_ms", 1_000L)).put("op", "u"));
        return () -> record;
    }

    @Test
    void markingTheEndOfEachPartitionRunStoresTheSameOffsetsAsMarkingEveryRecord() throws Exception {
        // interleaved source partitions (the binlog connectors have one; the rule must not depend on that)
        List<RecordChangeEvent<SourceRecord>> batch = List.of(change("a", 1), change("a", 2), change("b", 3),
                change("a", 4), change("a", 5), change("b", 6), change("b", 7));
        OffsetKeepingCommitter everyRecord = new OffsetKeepingCommitter();
        for (RecordChangeEvent<SourceRecord> record : batch) {
            everyRecord.markProcessed(record);
        }
        OffsetKeepingCommitter publisherMarks = new OffsetKeepingCommitter();
        MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        new KafkaChangePublisher(() -> producer, new ChangeEventSerializer("test-connector"), metrics, "cdc", Clock.systemUTC())
                .handleBatch(batch, publisherMarks);

        assertThat(publisherMarks.offsets).isEqualTo(everyRecord.offsets)
                .isEqualTo(Map.of(Map.of("server", "a"), Map.of("pos", 5L), Map.of("server", "b"), Map.of("pos", 7L)));
        // in binlog order, and only where a partition's run ends
        assertThat(publisherMarks.calls).containsExactly("processed:cdc.shop.item:2", "processed:cdc.shop.item:3",
                "processed:cdc.shop.item:5", "processed:cdc.shop.item:7", "batchFinished");
        assertThat(producer.history()).hasSize(batch.size());
    }

    private static RecordChangeEvent<SourceRecord> change(String topic, long id, long commitMillis) {
        Struct value = new Struct(VALUE)
                .put("after", new Struct(VALUE.field("after").schema()).put("id", id))
                .put("source", new Struct(SOURCE).put("ts_ms", commitMillis))
                .put("op", "c");
        SourceRecord record = new SourceRecord(Map.of("server", "cdc"), Map.of("pos", id), topic, null,
                KEY, new Struct(KEY).put("id", id), VALUE, value);
        return () -> record;
    }

    @Test
    void metersCountEveryEventOfABatchRecordedPerRunOfTableAndCommitTime() throws Exception {
        // two tables interleaved, three commit seconds, a tombstone (no commit time): the meters must say what
        // recording every event on its own said
        Clock clock = Clock.fixed(java.time.Instant.ofEpochMilli(10_000), java.time.ZoneOffset.UTC);
        RecordChangeEvent<SourceRecord> tombstone = () -> new SourceRecord(Map.of("server", "cdc"), Map.of("pos", 9L),
                "cdc.shop.item", null, KEY, new Struct(KEY).put("id", 9L), null, null);
        List<RecordChangeEvent<SourceRecord>> batch = List.of(change("cdc.shop.item", 1, 7_000),
                change("cdc.shop.item", 2, 7_000), change("cdc.shop.order", 3, 7_000), change("cdc.shop.order", 4, 8_000),
                change("cdc.shop.item", 5, 8_000), tombstone, change("cdc.shop.item", 6, 9_000));
        MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());

        new KafkaChangePublisher(() -> producer, new ChangeEventSerializer("test-connector"), metrics, "cdc", clock)
                .handleBatch(batch, new RecordingCommitter());

        assertThat(registry.get("cdc.connector.events.published").tag("table", "shop.item").counter().count()).isEqualTo(5);
        assertThat(registry.get("cdc.connector.events.published").tag("table", "shop.order").counter().count()).isEqualTo(2);
        io.micrometer.core.instrument.Timer lag = registry.get("cdc.connector.commit.to.publish.lag").timer();
        assertThat(lag.count()).as("one sample per event with a commit time").isEqualTo(6);
        assertThat(lag.totalTime(java.util.concurrent.TimeUnit.MILLISECONDS)).isEqualTo(3 * 3_000 + 2 * 2_000 + 1_000);
        assertThat(lag.max(java.util.concurrent.TimeUnit.MILLISECONDS)).isEqualTo(3_000);
        assertThat(metrics.lastEventEpochMillis()).isEqualTo(10_000);
    }
}
