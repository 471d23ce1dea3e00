package dev.cdccache.connector.publish;

import dev.cdccache.connector.config.DebeziumSettings;
import dev.cdccache.connector.heartbeat.HeartbeatRecords;
import dev.cdccache.connector.oversize.OversizedEvents;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import dev.cdccache.connector.metrics.PublishMetrics;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's batch handler: publishes each batch to Kafka and only then tells the engine the
 * batch is processed.
 *
 * <p>The order of the three steps in {@link #handleBatch} is the connector's at-least-once
 * guarantee: a binlog position is marked processed (and later stored as the resume offset) only
 * after Kafka acknowledged every event of the batch. If any send fails, nothing of the batch is
 * marked, the engine stops, and a restart resumes at the last acknowledged position (duplicates
 * possible, losses not).
 *
 * <p>Called by the engine's single polling thread; not meant for concurrent batches.
 */
public final class KafkaChangePublisher implements DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> {

    private static final Logger log = LoggerFactory.getLogger(KafkaChangePublisher.class);

    private final Supplier<Producer<byte[], byte[]>> producer;
    private final ChangeEventSerializer serializer;
    private final PublishMetrics metrics;
    private final String topicPrefix;
    private final Clock clock;
    private final HeartbeatRecords heartbeats;
    private final OversizedEvents oversized;
    private final CommitTimes commitTimes = new CommitTimes();
    private final TransactionCoalescer coalescer;
    private final TableEvictions evictions;
    private final BooleanSupplier halted;

    /** A publisher for a connector without a heartbeat table, with the producer's default max.request.size. */
    public KafkaChangePublisher(Supplier<Producer<byte[], byte[]>> producer, ChangeEventSerializer serializer,
            PublishMetrics metrics, String topicPrefix, Clock clock) {
        this(producer, serializer, metrics, topicPrefix, clock, HeartbeatRecords.none(),
                new OversizedEvents(1024 * 1024, new SimpleMeterRegistry()));
    }

    /** A publisher that never coalesces large transactions. */
    public KafkaChangePublisher(Supplier<Producer<byte[], byte[]>> producer, ChangeEventSerializer serializer,
            PublishMetrics metrics, String topicPrefix, Clock clock, HeartbeatRecords heartbeats,
            OversizedEvents oversized) {
        this(producer, serializer, metrics, topicPrefix, clock, heartbeats, oversized, TransactionCoalescer.never());
    }

    /**
     * @param producer supplies the (idempotent, {@code acks=all}) producer on first use, so that no
     *     Kafka connection is opened before the start-up checks passed
     * @param heartbeats recognises heartbeat-table records: other connectors' rows are not published
     * @param oversized reduces events the producer would refuse as too large
     * @param coalescer decides which row events of large transactions a table-wide eviction replaces
     */
    public KafkaChangePublisher(Supplier<Producer<byte[], byte[]>> producer, ChangeEventSerializer serializer,
            PublishMetrics metrics, String topicPrefix, Clock clock, HeartbeatRecords heartbeats,
            OversizedEvents oversized, TransactionCoalescer coalescer) {
        this(producer, serializer, metrics, topicPrefix, clock, heartbeats, oversized, coalescer, () -> false);
    }

    /**
     * @param halted whether the engine was stopped at a binlog event (by the connector's continuity handling): from
     *     then on no record is acknowledged to the engine, so that no position past that event is stored, whatever
     *     Debezium still hands over before it stops (its own heartbeats carry positions past the event)
     */
    public KafkaChangePublisher(Supplier<Producer<byte[], byte[]>> producer, ChangeEventSerializer serializer,
            PublishMetrics metrics, String topicPrefix, Clock clock, HeartbeatRecords heartbeats,
            OversizedEvents oversized, TransactionCoalescer coalescer, BooleanSupplier halted) {
        this(producer, serializer, metrics, topicPrefix, clock, heartbeats, oversized, coalescer, new TableEvictions(),
                halted);
    }

    KafkaChangePublisher(Supplier<Producer<byte[], byte[]>> producer, ChangeEventSerializer serializer,
            PublishMetrics metrics, String topicPrefix, Clock clock, HeartbeatRecords heartbeats,
            OversizedEvents oversized, TransactionCoalescer coalescer, TableEvictions evictions) {
        this(producer, serializer, metrics, topicPrefix, clock, heartbeats, oversized, coalescer, evictions, () -> false);
    }

    KafkaChangePublisher(Supplier<Producer<byte[], byte[]>> producer, ChangeEventSerializer serializer,
            PublishMetrics metrics, String topicPrefix, Clock clock, HeartbeatRecords heartbeats,
            OversizedEvents oversized, TransactionCoalescer coalescer, TableEvictions evictions, BooleanSupplier halted) {
        this.halted = halted;
        this.coalescer = coalescer;
        this.evictions = evictions;
        this.producer = producer;
        this.serializer = serializer;
        this.metrics = metrics;
        this.topicPrefix = topicPrefix;
        this.clock = clock;
        this.heartbeats = heartbeats;
        this.oversized = oversized;
    }

    @Override
    public void handleBatch(List<RecordChangeEvent<SourceRecord>> records,
            DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
            throws InterruptedException {
        List<PendingSend> sends = send(records);
        awaitKafkaAcknowledgement(sends);
        acknowledgeToEngine(records, committer);
    }

    /**
     * Step 1: hands every change record of the batch to the producer (asynchronously). This connector's heartbeat
     * row is handed over only after Kafka acknowledged every change before it in the batch (docs/contract.md,
     * "Ordering"): records on different partitions become visible independently (retries, a slow leader or
     * follower), and a client that saw the heartbeat would take every change committed before its ts for
     * visible.
     */
    List<PendingSend> send(List<RecordChangeEvent<SourceRecord>> records) throws InterruptedException {
        List<PendingSend> sends = new ArrayList<>(records.size());
        boolean coalescing = coalescer.enabled();
        int acknowledged = 0;
        try {
            for (RecordChangeEvent<SourceRecord> event : records) {
                SourceRecord record = event.record();
                if (coalescing) {
                    coalescer.transaction(transactionKey(record));
                }
                if (isDebeziumHeartbeat(record)) {
                    continue; // carries only a binlog position; it is still marked processed below
                }
                if (heartbeats.isForeign(record)) {
                    continue; // another connector's heartbeat row in the shared table: that connector publishes it
                }
                if (heartbeats.isOfAnotherEpoch(record)) {
                    continue; // written before the epoch was replaced, read after the point the new one stands for
                }
                if (heartbeats.isHeartbeat(record) && acknowledged < sends.size()) {
                    producer.get().flush();
                    awaitAll(sends.subList(acknowledged, sends.size()));
                    acknowledged = sends.size();
                }
                if (coalescing && !heartbeats.isHeartbeat(record)) {
                    String table = tableOf(record.topic());
                    TransactionCoalescer.Decision decision = coalescer.decide(table, record.value() == null);
                    if (decision == TransactionCoalescer.Decision.SUPPRESS) {
                        continue; // covered by the table-wide eviction sent before it; still marked processed below
                    }
                    if (decision == TransactionCoalescer.Decision.EVICT_TABLE) {
                        sendTableEviction(record, table, sends);
                        continue;
                    }
                }
                ProducerRecord<byte[], byte[]> producerRecord = serializer.toProducerRecord(record);
                if (oversized.tooLarge(producerRecord)) {
                    // the producer would refuse it, the batch would never be acknowledged: a crash loop
                    producerRecord = oversized.reduce(record, producerRecord, tableOf(record.topic()));
                }
                sends.add(new PendingSend(record, producer.get().send(producerRecord)));
            }
        } catch (RuntimeException e) {
            metrics.publishFailed();
            throw new PublishFailedException("Could not hand a change event to the Kafka producer", e);
        } finally {
            coalescer.drainSuppressed(metrics::rowsSuppressed);
        }
        return sends;
    }

    /**
     * Hands the table-wide eviction that replaces {@code firstSuppressed} and the table's later rows of its
     * transaction to the producer: a copy on every partition of the topic (see {@link TableEvictions}). The
     * suppressed records are marked processed only with their batch, after Kafka acknowledged these copies, so a
     * stored offset never passes a suppressed row whose eviction Kafka does not hold.
     */
    private void sendTableEviction(SourceRecord firstSuppressed, String table, List<PendingSend> sends) {
        String topic = firstSuppressed.topic();
        List<Integer> partitions = producer.get().partitionsFor(topic).stream().map(PartitionInfo::partition).sorted()
                .toList();
        String transaction = transactionName(firstSuppressed);
        coalescer.nameTransaction(transaction);
        int published = coalescer.published(table);
        for (ProducerRecord<byte[], byte[]> copy : evictions.of(serializer.toProducerRecord(firstSuppressed),
                transaction, published, partitions)) {
            sends.add(new PendingSend(firstSuppressed, producer.get().send(copy), true));
        }
        metrics.transactionCoalesced(table);
        log.info("Transaction {} changed more than {} rows of {}: published a table-wide eviction to the {} partitions"
                + " of {} instead of its remaining row events of the table", transaction, coalescer.threshold(table),
                table, partitions.size(), topic);
    }

    /**
     * The key the records of one transaction share: the binlog connectors' resume offset names the file and the
     * position of the transaction's start for every row of it ({@code event}/{@code row} count the rows within).
     * {@code null} without one: such a record is a transaction of its own.
     */
    static Object transactionKey(SourceRecord record) {
        Map<String, ?> offset = record.sourceOffset();
        if (offset == null) {
            return null;
        }
        Object file = offset.get("file");
        Object pos = offset.get("pos");
        return file == null || pos == null ? null : file + ":" + pos;
    }

    /** The transaction's GTID ({@code source.gtid}) where the server has one, else {@code file:pos} of its start. */
    static String transactionName(SourceRecord record) {
        if (record.value() instanceof Struct value && value.schema().field("source") != null
                && value.get("source") instanceof Struct source && source.schema().field("gtid") != null
                && source.get("gtid") instanceof String gtid) {
            return gtid;
        }
        Object key = transactionKey(record);
        return key == null ? "(unknown)" : key.toString();
    }

    /**
     * Step 2: blocks until Kafka acknowledged every send of the batch ({@code acks=all}); fails on
     * the first send Kafka rejected.
     */
    void awaitKafkaAcknowledgement(List<PendingSend> sends) throws InterruptedException {
        producer.get().flush();
        awaitAll(sends);
        recordPublished(sends, clock.millis());
    }

    /**
     * The meters of an acknowledged batch, per run instead of per event: a batch is mostly one table and, with
     * MariaDB's one-second {@code source.ts_ms}, one or two commit seconds, so the counter is incremented once per
     * run of a table's events and the lag computed once per run of equal commit times (one sample per event still).
     */
    private void recordPublished(List<PendingSend> sends, long now) {
        String topic = null;
        int topicRun = 0;
        long commit = 0;
        int commitRun = 0;
        for (PendingSend send : sends) {
            SourceRecord record = send.record();
            if (!record.topic().equals(topic)) {
                if (topic != null) {
                    metrics.published(tableOf(topic), topicRun, now);
                }
                topic = record.topic();
                topicRun = 0;
            }
            topicRun++;
            long recordCommit = commitTimes.of(record);
            if (recordCommit != commit) {
                metrics.lag(commit, commitRun, now);
                commit = recordCommit;
                commitRun = 0;
            }
            commitRun++;
        }
        if (topic != null) {
            metrics.published(tableOf(topic), topicRun, now);
        }
        metrics.lag(commit, commitRun, now);
    }

    /** Waits for every send; an event the broker refused as too large is replaced by its reduced form (in place). */
    private void awaitAll(List<PendingSend> sends) throws InterruptedException {
        for (int i = 0; i < sends.size(); i++) {
            PendingSend send = sends.get(i);
            try {
                try {
                    send.result().get();
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof RecordTooLargeException) || send.tableEviction()) {
                        throw e; // an eviction has no smaller form: its row is not what it stands for
                    }
                    // The broker refused it (topic max.message.bytes below the producer's limit): send the reduced
                    // event. It may arrive after later changes of the same row; eviction does not depend on order.
                    SourceRecord record = send.record();
                    RecordMetadata metadata = producer.get()
                            .send(oversized.reduce(record, serializer.toProducerRecord(record), tableOf(record.topic()))).get();
                    sends.set(i, new PendingSend(record, java.util.concurrent.CompletableFuture.completedFuture(metadata)));
                }
            } catch (ExecutionException e) {
                metrics.publishFailed();
                throw new PublishFailedException("Kafka did not acknowledge the event for topic "
                        + send.record().topic() + "; the batch is not marked processed and will be re-read on restart",
                        e.getCause());
            }
        }
    }

    /**
     * Step 3: only now the binlog positions of the batch may become the resume offset.
     *
     * <p>The engine keeps one offset per source partition, the latest marked, and records arrive in
     * binlog order; so marking the last record of each run of records with the same source partition
     * (for the binlog connectors: the last record of the batch) stores exactly the offsets that marking
     * every record would. Marking every record cost two map updates per record on the polling thread
     * (about 9% of it during a bulk UPDATE).
     */
    void acknowledgeToEngine(List<RecordChangeEvent<SourceRecord>> records,
            DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer) throws InterruptedException {
        if (halted.getAsBoolean()) {
            // stopped at an event: what follows it must be read again at the next start, not skipped
            log.warn("Not acknowledging {} records to the engine: it was stopped at a binlog event", records.size());
            return;
        }
        for (int i = 0; i < records.size(); i++) {
            if (i == records.size() - 1 || !samePartition(records.get(i), records.get(i + 1))) {
                committer.markProcessed(records.get(i));
            }
        }
        committer.markBatchFinished();
        if (log.isTraceEnabled()) {
            log.trace("Acknowledged {} records to the engine", records.size());
        }
    }

    private static boolean samePartition(RecordChangeEvent<SourceRecord> a, RecordChangeEvent<SourceRecord> b) {
        Map<String, ?> pa = a.record().sourcePartition();
        Map<String, ?> pb = b.record().sourcePartition();
        return pa == pb || (pa != null && pa.equals(pb));
    }

    private static boolean isDebeziumHeartbeat(SourceRecord record) {
        return record.topic() != null && record.topic().startsWith(DebeziumSettings.HEARTBEAT_TOPIC_PREFIX);
    }

    private String tableOf(String topic) {
        return topic.startsWith(topicPrefix + ".") ? topic.substring(topicPrefix.length() + 1) : topic;
    }

    /**
     * Reads {@code source.ts_ms} (the commit time in the binlog, one-second resolution on MariaDB; 0 if absent) through the fields of the last envelope schema seen: the records of a batch share
     * their table's schema, so the field lookups by name are done once per schema instead of once per record.
     * Used by the polling thread only.
     */
    static final class CommitTimes {
        private Schema envelope;
        private Field source;
        private Schema sourceSchema;
        private Field ts;

        long of(SourceRecord record) {
            if (!(record.value() instanceof Struct value)) {
                return 0; // a tombstone
            }
            if (value.schema() != envelope) {
                envelope = value.schema();
                source = envelope.type() == Schema.Type.STRUCT ? envelope.field("source") : null;
                sourceSchema = null;
            }
            if (source == null || !(value.get(source) instanceof Struct sourceValue)) {
                return 0;
            }
            if (sourceValue.schema() != sourceSchema) {
                sourceSchema = sourceValue.schema();
                ts = sourceSchema.field("ts_ms");
            }
            return ts != null && sourceValue.get(ts) instanceof Long millis ? millis : 0;
        }
    }

    /**
     * A send handed to the producer and its pending acknowledgement.
     *
     * @param tableEviction a copy of a table-wide eviction (not {@code record}'s own event)
     */
    record PendingSend(SourceRecord record, Future<RecordMetadata> result, boolean tableEviction) {
        PendingSend(SourceRecord record, Future<RecordMetadata> result) {
            this(record, result, false);
        }
    }
}
