package dev.cdccache.connector.continuity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdccache.connector.config.ConnectorProperties;
import dev.cdccache.connector.engine.EngineOffsetStores;
import dev.cdccache.connector.engine.FileOffsetStore;
import io.debezium.embedded.EmbeddedWorkerConfig;
import io.debezium.embedded.KafkaConnectUtil;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.OffsetStorageWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The origin record next to the engine's offsets, on the real file store the engine uses. */
class StoredOffsetsTest {

    private static final String NAME = "offsets-test";
    private static final String PREFIX = "shop";
    private static final OffsetsOrigin.Instance INSTANCE = new OffsetsOrigin.Instance("host-a", 42,
            Instant.parse("2026-12-06T10:00:00Z"), 7);

    @TempDir
    Path dir;

    private Properties engineProperties() {
        Properties p = new Properties();
        p.put("name", NAME);
        p.put("bootstrap.servers", "127.0.0.1:1");
        p.put("offset.storage", FileOffsetStore.class.getName());
        p.put("offset.storage.file.filename", dir.resolve("offsets.dat").toString());
        return p;
    }

    private StoredOffsets storedOffsets() {
        return new StoredOffsets(ConnectorProperties.OffsetStore.FILE, engineProperties(), NAME, PREFIX);
    }

    private static OffsetsOrigin origin(String epoch) {
        return new OffsetsOrigin(new ServerIdentity(1, ""), "shop.item", epoch, INSTANCE);
    }

    /** The store as the engine instantiates it through offset.storage: registered while it runs. */
    private FileOffsetStore engineStore() {
        Map<String, String> config = new HashMap<>();
        engineProperties().forEach((k, v) -> config.put(k.toString(), v.toString()));
        FileOffsetStore store = new FileOffsetStore();
        store.configure(new EmbeddedWorkerConfig(config));
        store.start();
        return store;
    }

    /** What the engine does at each offset commit: writes its own partition's position and flushes. */
    private static void engineCommits(FileOffsetStore store, long position) throws Exception {
        Converter converter = KafkaConnectUtil.converterForOffsetStore();
        OffsetStorageWriter writer = new OffsetStorageWriter(store, NAME, converter, converter);
        writer.offset(Map.of("server", PREFIX), Map.of("file", "mariadb-bin.000001", "pos", position));
        writer.beginFlush();
        writer.doFlush((error, result) -> { }).get(10, TimeUnit.SECONDS);
    }

    @Test
    void anEpochRenewedWhileTheEngineRunsSurvivesTheEnginesLaterCommits() throws Exception {
        StoredOffsets offsets = storedOffsets();
        offsets.write(origin("epoch-a"), false); // the start-up check, before the engine starts
        FileOffsetStore engine = engineStore();
        try {
            engineCommits(engine, 100);
            offsets.recordRenewedEpoch("epoch-a+0123456789ab");
            // the file store rewrites the whole file at each commit, from what its instance holds
            engineCommits(engine, 200);
        } finally {
            engine.stop();
        }

        StoredOffsets.Stored stored = offsets.read();
        assertThat(stored.origin()).hasValueSatisfying(o -> {
            assertThat(o.epoch()).isEqualTo("epoch-a+0123456789ab");
            assertThat(o.instance()).isEqualTo(INSTANCE);
            assertThat(o.tables()).isEqualTo("shop.item");
        });
        assertThat(stored.offset()).hasValueSatisfying(o -> assertThat(o).containsEntry("pos", 200L));
    }

    @Test
    void anEpochRenewedWhileNoEngineRunsIsWrittenToTheStoreDirectly() {
        StoredOffsets offsets = storedOffsets();
        offsets.write(origin("epoch-b"), false);
        assertThat(EngineOffsetStores.running(EngineOffsetStores.location(Map.of("offset.storage",
                FileOffsetStore.class.getName(), "offset.storage.file.filename", dir.resolve("offsets.dat").toString()))))
                .isEmpty();

        offsets.recordRenewedEpoch("epoch-b+0123456789ab");

        assertThat(offsets.read().origin()).hasValueSatisfying(o -> assertThat(o.epoch())
                .isEqualTo("epoch-b+0123456789ab"));
    }

    @Test
    void aStoreTheEngineStoppedIsNoLongerWrittenThrough() throws Exception {
        StoredOffsets offsets = storedOffsets();
        offsets.write(origin("epoch-c"), false);
        FileOffsetStore engine = engineStore();
        engineCommits(engine, 100);
        engine.stop();

        offsets.recordRenewedEpoch("epoch-c+0123456789ab");

        assertThat(offsets.read().origin()).hasValueSatisfying(o -> assertThat(o.epoch())
                .isEqualTo("epoch-c+0123456789ab"));
    }

    @Test
    void aRenewalWithoutAnOriginFromStartUpIsRefused() {
        assertThatThrownBy(() -> storedOffsets().recordRenewedEpoch("epoch-d+0123456789ab"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("at start-up");
    }
}
