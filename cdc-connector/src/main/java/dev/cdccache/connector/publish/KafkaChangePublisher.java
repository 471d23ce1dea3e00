package dev.cdccache.connector.publish;

import dev.cdccache.connector.config.DebeziumSettings;
import dev.cdccache.connector.metrics.PublishMetrics;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
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

    /**
     * @param producer supplies the (idempotent, {@code acks=all}) producer on first use, so that no
     *     Kafka connection is opened before the start-up checks passed
     */
    public KafkaChangePublisher(Supplier<Producer<byte[], byte[]>> producer, ChangeEventSerializer serializer,
            PublishMetrics metrics, String topicPrefix, Clock clock) {
        this.producer = producer;
        this.serializer = serializer;
        this.metrics = metrics;
        this.topicPrefix = topicPrefix;
        this.clock = clock;
    }

    @Override
    public void handleBatch(List<RecordChangeEvent<SourceRecord>> records,
            DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
            throws InterruptedException {
        List<PendingSend> sends = send(records);
        awaitKafkaAcknowledgement(sends);
        acknowledgeToEngine(records, committer);
    }

    /** Step 1: hands every change record of the batch to the producer (asynchronously). */
    List<PendingSend> send(List<RecordChangeEvent<SourceRecord>> records) {
        List<PendingSend> sends = new ArrayList<>(records.size());
        try {
            for (RecordChangeEvent<SourceRecord> event : records) {
                SourceRecord record = event.record();
                if (isDebeziumHeartbeat(record)) {
                    continue; // carries only a binlog position; it is still marked processed below
                }
                ProducerRecord<byte[], byte[]> producerRecord = serializer.toProducerRecord(record);
                sends.add(new PendingSend(record, producer.get().send(producerRecord)));
            }
        } catch (RuntimeException e) {
            metrics.publishFailed();
            throw new PublishFailedException("Could not hand a change event to the Kafka producer", e);
        }
        return sends;
    }

    /**
     * Step 2: blocks until Kafka acknowledged every send of the batch ({@code acks=all}); fails on
     * the first send Kafka rejected.
     */
    void awaitKafkaAcknowledgement(List<PendingSend> sends) throws InterruptedException {
        producer.get().flush();
        long now = clock.millis();
        for (PendingSend send : sends) {
            try {
                send.result().get();
            } catch (ExecutionException e) {
                metrics.publishFailed();
                throw new PublishFailedException("Kafka did not acknowledge the event for topic "
                        + send.record().topic() + "; the batch is not marked processed and will be re-read on restart",
                        e.getCause());
            }
        }
        for (PendingSend send : sends) {
            metrics.published(tableOf(send.record().topic()), sourceCommitMillis(send.record()), now);
        }
    }

    /** Step 3: only now the binlog positions of the batch may become the resume offset. */
    void acknowledgeToEngine(List<RecordChangeEvent<SourceRecord>> records,
            DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer) throws InterruptedException {
        for (RecordChangeEvent<SourceRecord> record : records) {
            committer.markProcessed(record);
        }
        committer.markBatchFinished();
        if (log.isTraceEnabled()) {
            log.trace("Acknowledged {} records to the engine", records.size());
        }
    }

    private static boolean isDebeziumHeartbeat(SourceRecord record) {
        return record.topic() != null && record.topic().startsWith(DebeziumSettings.HEARTBEAT_TOPIC_PREFIX);
    }

    private String tableOf(String topic) {
        return topic.startsWith(topicPrefix + ".") ? topic.substring(topicPrefix.length() + 1) : topic;
    }

    /** {@code source.ts_ms}: the commit time in the binlog (one-second resolution on MariaDB); 0 if absent. */
    static long sourceCommitMillis(SourceRecord record) {
        if (record.value() instanceof Struct value && value.schema().field("source") != null) {
            Struct source = value.getStruct("source");
            if (source != null && source.schema().field("ts_ms") != null) {
                Long ts = source.getInt64("ts_ms");
                return ts == null ? 0 : ts;
            }
        }
        return 0;
    }

    /** A send handed to the producer and its pending acknowledgement. */
    record PendingSend(SourceRecord record, Future<RecordMetadata> result) {
    }
}
