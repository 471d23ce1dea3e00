package dev.cdccache.connector.continuity;

import dev.cdccache.connector.config.ConnectorProperties;
import dev.cdccache.connector.engine.KafkaTopicOffsetStore;
import io.debezium.embedded.EmbeddedWorkerConfig;
import io.debezium.embedded.KafkaConnectUtil;
import java.util.HashMap;
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
 * {@code {"server": <topic-prefix>}} in the engine's namespace (its name).
 */
public class StoredOffsets {

    private static final long TIMEOUT_SECONDS = 30;

    private final ConnectorProperties.OffsetStore kind;
    private final Properties engineProperties;
    private final String engineName;
    private final Map<String, String> partition;

    /**
     * @param engineProperties the engine's properties ({@code DebeziumSettings#engineProperties()})
     */
    public StoredOffsets(ConnectorProperties.OffsetStore kind, Properties engineProperties, String engineName,
            String topicPrefix) {
        this.kind = kind;
        this.engineProperties = engineProperties;
        this.engineName = engineName;
        this.partition = Map.of("server", topicPrefix);
    }

    /** The stored offset ({@code file}, {@code pos}, {@code gtids}, ...), empty when none is stored. */
    public Optional<Map<String, Object>> read() {
        OffsetBackingStore store = open();
        try {
            Converter converter = KafkaConnectUtil.converterForOffsetStore();
            try (OffsetStorageReaderImpl reader = new OffsetStorageReaderImpl(store, engineName, converter, converter)) {
                Map<String, Object> offset = reader.offset(partition);
                return offset == null || offset.isEmpty() ? Optional.empty() : Optional.of(new HashMap<>(offset));
            }
        } finally {
            store.stop();
        }
    }

    /**
     * Removes the stored offset (a tombstone in the offsets topic), so that the engine starts as on its first run:
     * at the current binlog position, with a schema-only snapshot.
     */
    public void clear() {
        OffsetBackingStore store = open();
        try {
            Converter converter = KafkaConnectUtil.converterForOffsetStore();
            OffsetStorageWriter writer = new OffsetStorageWriter(store, engineName, converter, converter);
            writer.offset(partition, null);
            writer.beginFlush();
            writer.doFlush((error, result) -> { }).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while clearing the stored offsets", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not clear the stored offsets of " + engineName + ": " + e, e);
        } finally {
            store.stop();
        }
    }

    private OffsetBackingStore open() {
        Map<String, String> config = new HashMap<>();
        engineProperties.forEach((k, v) -> config.put(k.toString(), v.toString()));
        OffsetBackingStore store = kind == ConnectorProperties.OffsetStore.KAFKA
                ? new KafkaTopicOffsetStore()
                : KafkaConnectUtil.fileOffsetBackingStore();
        store.configure(new EmbeddedWorkerConfig(config));
        store.start();
        return store;
    }
}
