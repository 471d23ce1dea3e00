package dev.cdccache.connector.heartbeat;

import dev.cdccache.connector.config.ConnectorProperties;
import dev.cdccache.connector.startup.DatabaseCheck;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Writes the heartbeat row every {@code cdc.connector.heartbeat.interval}, so that the binlog carries an
 * event through the whole pipeline even when no application writes anything.
 *
 * <p>Why not Debezium's {@code heartbeat.action.query}: the binlog connectors run it only from their
 * event loop, that is, when the binlog moves. On an idle database the heartbeat topic then stays silent
 * for tens of seconds, and clients, which prove their freshness from it, would stop trusting their
 * caches although nothing is wrong. A timer of our own does not depend on traffic. (The Kafka Connect
 * export keeps the action query; see docs/connector.md for an idle-proof alternative there.)
 *
 * <p>A failed write is counted and retried on the next tick with a new connection; it never stops the
 * connector. Clients notice missing heartbeats and fall back to their staleness bound, which is the
 * correct reaction when the database cannot be written.
 */
public final class HeartbeatWriter implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(HeartbeatWriter.class);

    private final ConnectorProperties.Database database;
    private final String statement;
    private final Duration interval;
    private final Counter writes;
    private final Counter failures;
    private ScheduledExecutorService timer;
    private Connection connection;
    private boolean failing;

    public HeartbeatWriter(ConnectorProperties.Database database, String statement, Duration interval,
            MeterRegistry registry) {
        this.database = database;
        this.statement = statement;
        this.interval = interval;
        this.writes = Counter.builder("cdc.connector.heartbeat.writes").tag("result", "ok")
                .description("Heartbeat rows written to the database").register(registry);
        this.failures = Counter.builder("cdc.connector.heartbeat.writes").tag("result", "failed")
                .description("Heartbeat rows written to the database").register(registry);
    }

    /** Starts the timer; does nothing when heartbeats are disabled (interval 0). */
    @Override
    public synchronized void start() {
        if (interval.isZero() || interval.isNegative()) {
            return;
        }
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "heartbeat-writer");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(this::writeOnce, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Writes the row once; public for tests. */
    public synchronized void writeOnce() {
        try {
            if (connection == null || connection.isClosed()) {
                connection = DatabaseCheck.connect(database);
                connection.setAutoCommit(true);
            }
            try (Statement s = connection.createStatement()) {
                s.executeUpdate(statement);
            }
            writes.increment();
            if (failing) {
                failing = false;
                log.info("Heartbeat writes to the database work again");
            }
        } catch (SQLException | RuntimeException e) {
            failures.increment();
            closeConnection();
            if (!failing) {
                failing = true; // log the first failure of a series only
                log.warn("Could not write the heartbeat row ({}); retrying every {}", e.getMessage(), interval);
            }
        }
    }

    @Override
    public synchronized void stop() {
        if (timer != null) {
            timer.shutdownNow();
            timer = null;
        }
        closeConnection();
    }

    @Override
    public synchronized boolean isRunning() {
        return timer != null;
    }

    private void closeConnection() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // already broken
            }
            connection = null;
        }
    }
}
