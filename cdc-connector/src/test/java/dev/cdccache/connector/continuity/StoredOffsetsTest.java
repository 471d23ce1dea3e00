package dev.cdccache.connector.continuity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.cdccache.connector.config.ConnectorProperties;
import dev.cdccache.connector.engine.EngineOffsetStores;
import dev.cdccache.connector.engine.FileOffsetStore;
import io.debezium.embedded.Connect;
import io.debezium.embedded.EmbeddedWorkerConfig;
import io.debezium.embedded.KafkaConnectUtil;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.source.SourceConnector;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
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
    void anEpochRenewedWhileNoEngineRunsIsRefusedAndLeavesTheStoreAlone() {
        StoredOffsets offsets = storedOffsets();
        offsets.write(origin("epoch-b"), false);

        assertThatThrownBy(() -> offsets.recordRenewedEpoch("epoch-b+0123456789ab"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("is not running");
        assertThat(offsets.read().origin()).hasValueSatisfying(o -> assertThat(o.epoch()).isEqualTo("epoch-b"));
    }

    @Test
    void anEpochRenewedOnceTheEnginesStoreStoppedIsRefused() throws Exception {
        StoredOffsets offsets = storedOffsets();
        offsets.write(origin("epoch-c"), false);
        FileOffsetStore engine = engineStore();
        engineCommits(engine, 100);
        engine.stop();

        // a second store on the file could lose the engine's last save, or have it overwrite the record
        assertThatThrownBy(() -> offsets.recordRenewedEpoch("epoch-c+0123456789ab"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("is not running");
        StoredOffsets.Stored stored = offsets.read();
        assertThat(stored.origin()).hasValueSatisfying(o -> assertThat(o.epoch()).isEqualTo("epoch-c"));
        assertThat(stored.offset()).hasValueSatisfying(o -> assertThat(o).containsEntry("pos", 100L));
    }

    /**
     * The real Debezium engine, named {@link FileOffsetStore} in {@code offset.storage} as the connector names it,
     * with a source that only counts: its store is the one a renewal is recorded through, and the record survives
     * the engine's own commits after it.
     */
    @Test
    void anEpochRenewedWhileTheRealEngineRunsSurvivesItsCommits() throws Exception {
        StoredOffsets offsets = storedOffsets();
        offsets.write(origin("epoch-e"), false);
        Properties properties = engineProperties();
        properties.put("connector.class", CountingSource.class.getName());
        properties.put("offset.flush.interval.ms", "10");
        String location = EngineOffsetStores.location(Map.of("offset.storage", FileOffsetStore.class.getName(),
                "offset.storage.file.filename", properties.getProperty("offset.storage.file.filename")));
        AtomicLong lastCommitted = new AtomicLong();
        ExecutorService runner = Executors.newSingleThreadExecutor();
        DebeziumEngine<RecordChangeEvent<SourceRecord>> engine = DebeziumEngine
                .create(ChangeEventFormat.of(Connect.class)).using(properties)
                .notifying((records, committer) -> {
                    for (RecordChangeEvent<SourceRecord> record : records) {
                        committer.markProcessed(record);
                        lastCommitted.set((Long) record.record().sourceOffset().get("pos"));
                    }
                    committer.markBatchFinished();
                }).build();
        try {
            runner.submit(engine);
            await().atMost(Duration.ofSeconds(30)).until(() -> EngineOffsetStores.running(location).isPresent()
                    && lastCommitted.get() > 0);

            offsets.recordRenewedEpoch("epoch-e+0123456789ab");
            long after = lastCommitted.get();
            await().atMost(Duration.ofSeconds(30)).until(() -> lastCommitted.get() > after + 20);
        } finally {
            engine.close();
            runner.shutdown();
            assertThat(runner.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }

        assertThat(EngineOffsetStores.running(location)).as("unregistered once stopped").isEmpty();
        StoredOffsets.Stored stored = offsets.read();
        assertThat(stored.origin()).hasValueSatisfying(o -> assertThat(o.epoch()).isEqualTo("epoch-e+0123456789ab"));
        assertThat(stored.offset()).hasValueSatisfying(o -> assertThat(((Number) o.get("pos")).longValue())
                .isGreaterThan(20));
    }

    /** A source connector whose one task emits a record every millisecond, its offset a count under this test's partition. */
    public static class CountingSource extends SourceConnector {

        private Map<String, String> config;

        @Override
        public void start(Map<String, String> props) {
            config = props;
        }

        @Override
        public Class<? extends Task> taskClass() {
            return CountingTask.class;
        }

        @Override
        public List<Map<String, String>> taskConfigs(int maxTasks) {
            return List.of(config);
        }

        @Override
        public void stop() {
        }

        @Override
        public ConfigDef config() {
            return new ConfigDef();
        }

        @Override
        public String version() {
            return "test";
        }
    }

    /** Emits one record per poll, its offset {@code pos} counting up from where the store says it stopped. */
    public static class CountingTask extends SourceTask {

        private long pos;

        @Override
        public void start(Map<String, String> props) {
            Map<String, Object> stored = context.offsetStorageReader().offset(Map.of("server", PREFIX));
            pos = stored == null ? 0 : ((Number) stored.get("pos")).longValue();
        }

        @Override
        public List<SourceRecord> poll() throws InterruptedException {
            Thread.sleep(1);
            pos++;
            return List.of(new SourceRecord(Map.of("server", PREFIX), Map.of("file", "mariadb-bin.000001", "pos", pos),
                    "counting", Schema.INT64_SCHEMA, pos));
        }

        @Override
        public void stop() {
        }

        @Override
        public String version() {
            return "test";
        }
    }

    @Test
    void aRenewalWithoutAnOriginFromStartUpIsRefused() {
        assertThatThrownBy(() -> storedOffsets().recordRenewedEpoch("epoch-d+0123456789ab"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("at start-up");
    }
}
