package dev.cdccache.connector.engine;

import io.debezium.embedded.KafkaConnectUtil;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.connect.runtime.WorkerConfig;
import org.apache.kafka.connect.storage.KafkaOffsetBackingStore;
import org.apache.kafka.connect.util.SharedTopicAdmin;
import org.apache.kafka.connect.util.TopicAdmin;

/**
 * Kafka Connect's {@link KafkaOffsetBackingStore} (binlog positions in a compacted topic) that closes
 * the admin client it creates the topic with when the engine stops. The store Debezium 3.5 builds
 * for {@code offset.storage=...KafkaOffsetBackingStore} never closes its admin client, which then
 * keeps reconnecting for the rest of the JVM's life; this class is named in {@code offset.storage}
 * instead and is otherwise the same store, reading the same {@code offset.storage.*} settings. The engine's
 * instance is known while it runs ({@link EngineOffsetStores}).
 */
public class KafkaTopicOffsetStore extends KafkaOffsetBackingStore {

    private final AdminHolder admin;
    private final boolean engines;
    private String location;

    /** Instantiated by the engine through {@code offset.storage}: registered while it runs. */
    public KafkaTopicOffsetStore() {
        this(new AdminHolder(), true);
    }

    private KafkaTopicOffsetStore(AdminHolder admin, boolean engines) {
        super(admin, () -> "cdc-connector-", KafkaConnectUtil.converterForOffsetStore());
        this.admin = admin;
        this.engines = engines;
    }

    /** A store the connector opens for itself (before the engine starts): never registered. */
    public static KafkaTopicOffsetStore ownedByTheConnector() {
        return new KafkaTopicOffsetStore(new AdminHolder(), false);
    }

    @Override
    public void configure(WorkerConfig config) {
        Map<String, Object> adminConfig = new HashMap<>();
        config.originals().forEach((key, value) -> {
            if (AdminClientConfig.configNames().contains(key)) {
                adminConfig.put(key, value); // bootstrap.servers and the user's security settings, nothing else
            }
        });
        adminConfig.put(AdminClientConfig.CLIENT_ID_CONFIG, "cdc-connector-offsets-admin");
        admin.configure(adminConfig);
        super.configure(config);
        location = EngineOffsetStores.location(config.originals());
    }

    @Override
    public void start() {
        super.start();
        if (engines) {
            EngineOffsetStores.started(location, this);
        }
    }

    @Override
    public void stop() {
        try {
            super.stop();
        } finally {
            if (engines) {
                EngineOffsetStores.stopped(location, this);
            }
            admin.close();
        }
    }

    /** Creates the admin client on first use and closes it with the store. */
    private static final class AdminHolder implements Supplier<TopicAdmin> {
        private Map<String, Object> config;
        private SharedTopicAdmin shared;

        synchronized void configure(Map<String, Object> config) {
            this.config = config;
        }

        @Override
        public synchronized TopicAdmin get() {
            if (shared == null) {
                shared = new SharedTopicAdmin(config);
            }
            return shared.topicAdmin();
        }

        synchronized void close() {
            if (shared != null) {
                shared.close(Duration.ofSeconds(5));
                shared = null;
            }
        }
    }
}
