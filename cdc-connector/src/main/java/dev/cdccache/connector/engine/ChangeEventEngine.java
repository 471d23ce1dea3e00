package dev.cdccache.connector.engine;

import dev.cdccache.connector.config.DebeziumSettings;
import dev.cdccache.connector.continuity.ContinuityCheck;
import dev.cdccache.connector.continuity.LostPositionFailure;
import dev.cdccache.connector.lease.ConnectorLease;
import dev.cdccache.connector.startup.DatabaseCheck;
import dev.cdccache.connector.startup.KafkaClusterCheck;
import dev.cdccache.connector.startup.TopicProvisioner;
import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Runs the Debezium embedded engine for the application's lifetime.
 *
 * <p>{@link #start()} first runs the start-up checks (Kafka reachable, database reachable with
 * binlog ROW/FULL, privileges, tables), takes the connector's lease on its name and server id
 * ({@link ConnectorLease}), creates the change topics, decides the continuity epoch ({@link ContinuityCheck}),
 * then starts the engine on its own thread. {@link #stop()} closes the engine, which stops reading, lets the batch in hand finish
 * and stores the last processed offsets. Because it runs in the last lifecycle phase, it stops
 * before the web server does.
 */
public final class ChangeEventEngine implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(ChangeEventEngine.class);

    private final DebeziumSettings settings;
    private final DatabaseCheck databaseCheck;
    private final KafkaClusterCheck kafkaCheck;
    private final TopicProvisioner topics;
    private final DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> publisher;
    private final Consumer<Throwable> onUnexpectedStop;
    private final ContinuityCheck continuity;
    private final ConnectorLease lease;
    private final StreamingStatus streaming;
    private final AtomicReference<EngineState> state = new AtomicReference<>(EngineState.STOPPED);

    private volatile DebeziumEngine<?> engine;
    private volatile ExecutorService executor;
    private volatile boolean stopping;

    /**
     * @param onUnexpectedStop called when the engine stops by itself (an error, or Kafka
     *     refusing events); the application decides whether to exit
     * @param continuity decides the epoch (and clears offsets whose position is gone) before the engine starts
     * @param lease taken before anything is written under the connector's name, released when the engine stops
     */
    public ChangeEventEngine(DebeziumSettings settings, String topicPrefix, DatabaseCheck databaseCheck,
            KafkaClusterCheck kafkaCheck, TopicProvisioner topics, DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> publisher,
            Consumer<Throwable> onUnexpectedStop, ContinuityCheck continuity, ConnectorLease lease) {
        this.settings = settings;
        this.databaseCheck = databaseCheck;
        this.kafkaCheck = kafkaCheck;
        this.topics = topics;
        this.publisher = publisher;
        this.onUnexpectedStop = onUnexpectedStop;
        this.continuity = continuity;
        this.lease = lease;
        this.streaming = new StreamingStatus(topicPrefix);
    }

    @Override
    public void start() {
        state.set(EngineState.STARTING);
        stopping = false;
        try {
            kafkaCheck.verify();
            databaseCheck.verify();
            lease.acquire(); // before the offsets, the epoch or the heartbeat row are touched
            topics.createMissing(settings.changeTopics());
            continuity.establish();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            state.set(EngineState.FAILED);
            lease.close();
            throw new IllegalStateException("Interrupted during start-up checks", e);
        } catch (RuntimeException e) {
            state.set(EngineState.FAILED);
            lease.close();
            throw e;
        }
        if (log.isDebugEnabled()) {
            log.debug("Debezium engine properties: {}", settings.maskedEngineProperties());
        }
        streaming.engineStarting();
        engine = DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
                .using(settings.engineProperties())
                .using(this::completed)
                .notifying(publisher)
                .build();
        executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "debezium-engine");
            t.setDaemon(false);
            return t;
        });
        executor.execute(engine);
        log.info("Debezium engine started: capturing {} into topics {}", settings.capturedTables(), settings.changeTopics());
    }

    private void completed(boolean success, String message, Throwable error) {
        if (stopping) {
            log.info("Debezium engine stopped: {}", message);
            return;
        }
        state.set(EngineState.FAILED);
        if (LostPositionFailure.explain(continuity, message, error)) {
            onUnexpectedStop.accept(error != null ? error : new IllegalStateException(message));
            return;
        }
        log.error("Debezium engine stopped unexpectedly: {}", message, error);
        onUnexpectedStop.accept(error != null ? error : new IllegalStateException(message));
    }

    @Override
    public void stop() {
        stopping = true;
        DebeziumEngine<?> running = engine;
        if (running != null) {
            try {
                running.close(); // stores the offsets of everything marked processed
            } catch (IOException e) {
                log.warn("Closing the Debezium engine failed", e);
            } catch (IllegalStateException e) {
                // After a failure the engine has shut itself down (and said why); closing it again only says so. The
                // rest of the stop (the executor, the lease) must run all the same.
                if (state.get() == EngineState.FAILED) {
                    log.debug("The Debezium engine had stopped already: {}", e.getMessage());
                } else {
                    log.warn("Closing the Debezium engine failed: {}", e.getMessage());
                }
            }
        }
        ExecutorService ex = executor;
        if (ex != null) {
            ex.shutdown();
            try {
                if (!ex.awaitTermination(30, TimeUnit.SECONDS)) {
                    log.warn("Debezium engine did not stop within 30 s");
                    ex.shutdownNow();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        engine = null;
        executor = null;
        lease.close(); // only once the engine stored its last offsets
        if (state.get() != EngineState.FAILED) {
            state.set(EngineState.STOPPED);
        }
    }

    @Override
    public boolean isRunning() {
        return engine != null;
    }

    /**
     * Binlog connections lost and re-established since this process started (counted as {@code StreamingStatus} explains),
     * including a binlog reader that waited longer than the keep-alive interval for room in a full queue. Each
     * reconnect resumes at the start of the transaction in progress, so its rows are published again.
     */
    public long binlogDisconnects() {
        return streaming.disconnects();
    }

    /** The current state; {@link EngineState#STREAMING} once the binlog reader is connected. */
    public EngineState state() {
        EngineState current = state.get();
        if (current == EngineState.STARTING && engine != null && streaming.connected()) {
            return EngineState.STREAMING;
        }
        return current;
    }
}
