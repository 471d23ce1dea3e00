package dev.cdccache.connector.continuity;

import dev.cdccache.connector.config.ConnectorProperties;
import dev.cdccache.connector.engine.EngineOffsetStores;
import dev.cdccache.connector.engine.FileOffsetStore;
import dev.cdccache.connector.engine.KafkaTopicOffsetStore;
import io.debezium.embedded.EmbeddedWorkerConfig;
import io.debezium.embedded.KafkaConnectUtil;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.OffsetBackingStore;
import org.apache.kafka.connect.storage.OffsetStorageReaderImpl;
import org.apache.kafka.connect.storage.OffsetStorageWriter;

/**
 * The binlog position the engine would resume from, read (and, after a gap, cleared) before the engine starts,
 * through the same offset store class, settings and converters the engine uses, so both see the same thing.
 *
 * <p>The binlog connectors store one offset per connector under the source partition
 * {@code {"server": <topic-prefix>}} in the engine's namespace (its name). Next to it, under the partition
 * {@code {"cdc-connector": "origin"}} of the same namespace, the connector keeps its {@link OffsetsOrigin}: what
 * those offsets were written under. Debezium reads only its own partition and leaves the other alone.
 *
 * <p>While the engine runs, the origin is written through the engine's own store ({@link EngineOffsetStores}): a
 * second store on the same file would be overwritten by the engine's next flush.
 */
public class StoredOffsets {

    private static final long TIMEOUT_SECONDS = 30;
    private static final Map<String, String> ORIGIN_PARTITION = Map.of("cdc-connector", "origin");

    private final ConnectorProperties.OffsetStore kind;
    private final Properties engineProperties;
    private final String engineName;
    private final Map<String, String> partition;
    private final String location;
    private volatile OffsetsOrigin written;
    /**
     * Set by {@link #markUnresumable}: a renewal recorded after it would make an epoch resumable again. Volatile and set
     * without the lock, so that marking never waits for a write in progress.
     */
    private volatile boolean unresumable;

    /**
     * @param engineProperties the engine's properties ({@code DebeziumSettings#engineProperties()})
     */
    public StoredOffsets(ConnectorProperties.OffsetStore kind, Properties engineProperties, String engineName,
            String topicPrefix) {
        this.kind = kind;
        this.engineProperties = engineProperties;
        this.engineName = engineName;
        this.partition = Map.of("server", topicPrefix);
        Map<String, Object> settings = new HashMap<>();
        engineProperties.forEach((k, v) -> settings.put(k.toString(), v));
        this.location = EngineOffsetStores.location(settings);
    }

    /**
     * Where a connector's stored offsets are, with the command that deletes them, for messages that tell an operator
     * to: {@code the topic <name>.offsets: kafka-topics.sh ... --delete ...}, or {@code the file <path>}.
     */
    public static String howToDelete(ConnectorProperties properties) {
        String topic = properties.getName() + ".offsets";
        return properties.getOffsets().getStore() == ConnectorProperties.OffsetStore.KAFKA
                ? "the topic " + topic + ": kafka-topics.sh --bootstrap-server "
                        + properties.getKafka().getBootstrapServers() + " --delete --topic " + topic
                : "the file " + properties.getOffsets().getFile();
    }

    /** What the store holds: Debezium's offset and the record of what it was written under, each maybe absent. */
    public record Stored(Optional<Map<String, Object>> offset, Optional<OffsetsOrigin> origin) {
    }

    /** Reads Debezium's offset ({@code file}, {@code pos}, {@code gtids}, ...) and the origin record. */
    public Stored read() {
        OffsetBackingStore store = open();
        try {
            Converter converter = KafkaConnectUtil.converterForOffsetStore();
            try (OffsetStorageReaderImpl reader = new OffsetStorageReaderImpl(store, engineName, converter, converter)) {
                Map<Map<String, String>, Map<String, Object>> offsets = reader.offsets(List.of(partition, ORIGIN_PARTITION));
                Map<String, Object> offset = offsets.get(partition);
                Map<String, Object> origin = offsets.get(ORIGIN_PARTITION);
                return new Stored(offset == null || offset.isEmpty() ? Optional.empty() : Optional.of(new HashMap<>(offset)),
                        origin == null ? Optional.empty() : Optional.ofNullable(OffsetsOrigin.fromMap(origin)));
            }
        } finally {
            store.stop();
        }
    }

    /**
     * Records what the offsets stored from now on are written under and, with {@code clearOffset}, removes
     * Debezium's offset (a tombstone in the offsets topic) so that the engine starts as on its first run: at the
     * current binlog position, with a schema-only snapshot. Both in one flush.
     */
    public void write(OffsetsOrigin origin, boolean clearOffset) {
        OffsetBackingStore store = open();
        try {
            flush(store, origin, clearOffset);
        } finally {
            store.stop();
        }
    }

    /**
     * Records that the offsets the engine stores from now on are written under {@code epoch}, renewed while
     * streaming, before the engine can store a position past the event the epoch was renewed for (the caller is on
     * the thread that reads the binlog, ahead of that position). Where the heartbeat row lives on another server
     * than the binlog it could be lost there in a failover; the next start then finds this record and the row
     * disagree and does not resume the lost epoch's predecessor.
     *
     * <p>Only through the engine's running store: renewals happen while it streams, and a store of its own opened
     * while the engine's still saves (the engine stopping) could leave the file with either write lost.
     *
     * @throws IllegalStateException if no origin was written at start-up, the engine's store is not running, or it
     *     could not be written; the caller stops the engine at the event then, before a position past it is stored
     */
    public synchronized void recordRenewedEpoch(String epoch) {
        if (unresumable) {
            return; // no epoch of this process may be resumed (recordUnresumable)
        }
        record(epoch);
    }

    /**
     * Records, through the engine's running store, an epoch no heartbeat row ever carries, and keeps it over every later
     * renewal of this process: the next start then resumes no epoch ({@code EPOCH_UNKNOWN}), whatever the row says. For
     * a filter found while streaming: the changes it kept out of the binlog are in none, so no epoch this process
     * published may be proven again after a restart, even where the heartbeat row could not be written, or lost its
     * latest writes in a failover.
     *
     * <p>Renewals are no longer recorded once {@link #markUnresumable} ran, also when this write fails: the record
     * then keeps an epoch the heartbeat row no longer carries either.
     *
     * @param resync whether the replica the connector reads skipped changes: the next start is then refused until
     *     the stored offsets are deleted (after a re-sync of the replica)
     * @throws IllegalStateException as {@link #recordRenewedEpoch}; the caller tries again
     */
    public synchronized void recordUnresumable(boolean resync) {
        markUnresumable();
        record(EpochLineage.unresumable(resync));
    }

    /**
     * Stops recording renewals, at once and without writing anything: called before the epoch that must not be resumed
     * is set, so that no renewal of it can be recorded before {@link #recordUnresumable(boolean)} writes the record.
     */
    public void markUnresumable() {
        unresumable = true;
    }

    private void record(String epoch) {
        OffsetsOrigin origin = written;
        if (origin == null) {
            throw new IllegalStateException("no offsets origin was recorded at start-up to renew the epoch of");
        }
        OffsetBackingStore running = EngineOffsetStores.running(location).orElseThrow(() -> new IllegalStateException(
                "the engine's offset store (" + location + ") is not running, so the renewed epoch " + epoch
                        + " cannot be recorded with the offsets"));
        flush(running, new OffsetsOrigin(origin.server(), origin.tables(), epoch, origin.instance()), false);
    }

    private void flush(OffsetBackingStore store, OffsetsOrigin origin, boolean clearOffset) {
        try {
            Converter converter = KafkaConnectUtil.converterForOffsetStore();
            OffsetStorageWriter writer = new OffsetStorageWriter(store, engineName, converter, converter);
            if (clearOffset) {
                writer.offset(partition, null);
            }
            writer.offset(ORIGIN_PARTITION, origin.toMap());
            writer.beginFlush();
            writer.doFlush((error, result) -> { }).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            written = origin;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while writing the stored offsets", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not write the stored offsets of " + engineName + " (" + location
                    + "): " + e, e);
        }
    }

    private OffsetBackingStore open() {
        Map<String, String> config = new HashMap<>();
        engineProperties.forEach((k, v) -> config.put(k.toString(), v.toString()));
        OffsetBackingStore store = kind == ConnectorProperties.OffsetStore.KAFKA
                ? KafkaTopicOffsetStore.ownedByTheConnector()
                : FileOffsetStore.ownedByTheConnector();
        store.configure(new EmbeddedWorkerConfig(config));
        store.start();
        return store;
    }
}
