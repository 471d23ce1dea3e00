package dev.cdccache.connector.engine;

import io.debezium.embedded.KafkaConnectUtil;
import org.apache.kafka.connect.runtime.WorkerConfig;
import org.apache.kafka.connect.storage.FileOffsetBackingStore;

/**
 * Kafka Connect's {@link FileOffsetBackingStore} (binlog positions in a local file), named in {@code offset.storage}
 * so that the engine's instance is known while it runs ({@link EngineOffsetStores}): the connector's own records in
 * the same file must be written through it, or its next flush would overwrite them. Otherwise the same store, with
 * the same converter the engine gives the stock class.
 */
public class FileOffsetStore extends FileOffsetBackingStore {

    private final boolean engines;
    private String location;

    /** Instantiated by the engine through {@code offset.storage}: registered while it runs. */
    public FileOffsetStore() {
        this(true);
    }

    private FileOffsetStore(boolean engines) {
        super(KafkaConnectUtil.converterForOffsetStore());
        this.engines = engines;
    }

    /** A store the connector opens for itself (before the engine starts): never registered. */
    public static FileOffsetStore ownedByTheConnector() {
        return new FileOffsetStore(false);
    }

    @Override
    public void configure(WorkerConfig config) {
        super.configure(config);
        location = EngineOffsetStores.location(config.originals());
    }

    @Override
    public synchronized void start() {
        super.start();
        if (engines) {
            EngineOffsetStores.started(location, this);
        }
    }

    @Override
    public synchronized void stop() {
        try {
            super.stop();
        } finally {
            // only now: a record written through this store while it still saves must not go to another one
            if (engines) {
                EngineOffsetStores.stopped(location, this);
            }
        }
    }
}
