package dev.cdccache.connector.engine;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.connect.storage.OffsetBackingStore;

/**
 * The offset stores running engines use, by where they store. A record the connector keeps next to the engine's
 * offsets while the engine runs (see {@code StoredOffsets#recordRenewedEpoch}) must go through the engine's own store:
 * a file store holds every key in memory and rewrites the whole file at each of its flushes, so a record written
 * through a second store into the same file would be overwritten by the engine's next flush.
 *
 * <p>Only stores the engine instantiates through {@code offset.storage} register here; the ones the connector opens
 * for itself before the engine starts do not.
 */
public final class EngineOffsetStores {

    private static final Map<String, OffsetBackingStore> RUNNING = new ConcurrentHashMap<>();

    private EngineOffsetStores() {
    }

    /**
     * Where a store with these settings keeps its offsets: the file, or the topic on its Kafka cluster. The same
     * settings give the same place, whoever reads them.
     */
    public static String location(Map<String, ?> settings) {
        Object file = settings.get("offset.storage.file.filename");
        if (file != null && String.valueOf(settings.get("offset.storage")).equals(FileOffsetStore.class.getName())) {
            return "file " + Path.of(file.toString()).toAbsolutePath().normalize();
        }
        return "topic " + settings.get("offset.storage.topic") + " on " + settings.get("bootstrap.servers");
    }

    static void started(String location, OffsetBackingStore store) {
        RUNNING.put(location, store);
    }

    static void stopped(String location, OffsetBackingStore store) {
        RUNNING.remove(location, store);
    }

    /** The store an engine runs with at {@code location}, if one runs there now. */
    public static Optional<OffsetBackingStore> running(String location) {
        return Optional.ofNullable(RUNNING.get(location));
    }
}
