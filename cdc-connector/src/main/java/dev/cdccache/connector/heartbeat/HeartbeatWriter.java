package dev.cdccache.connector.heartbeat;

import dev.cdccache.connector.config.ConnectorProperties;
import dev.cdccache.connector.startup.DatabaseCheck;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Writes this connector's heartbeat row ({@link HeartbeatRow}: its name, the time, its continuity epoch and the
 * tables it covers) every {@code cdc.connector.heartbeat.interval}, so that the binlog carries an event through
 * the whole pipeline even when no application writes anything.
 *
 * <p>Why not Debezium's {@code heartbeat.action.query}: the binlog connectors run it only from their
 * event loop, that is, when the binlog moves. On an idle database the heartbeat topic then stays silent
 * for tens of seconds, and clients, which prove their freshness from it, would stop trusting their
 * caches although nothing is wrong. A timer of our own does not depend on traffic. (The Kafka Connect
 * export keeps the action query; see docs/connector.md for an idle-proof alternative there.)
 *
 * <p>When the connector reads a replica, the row is written on its primary ({@code cdc.connector.heartbeat.primary}):
 * it then replicates like any change and reaches the replica's binlog after every earlier primary commit.
 *
 * <p>A failed write is counted and retried on the next tick with a new connection; it never stops the
 * connector. Clients notice missing heartbeats and fall back to their staleness bound, which is the
 * correct reaction when the database cannot be written.
 */
public final class HeartbeatWriter implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(HeartbeatWriter.class);

    private final ConnectorProperties.Database database;
    private final String settings;
    private final HeartbeatRow row;
    private final Supplier<String> epoch;
    private final Duration interval;
    private final Counter writes;
    private final Counter failures;
    private final HeartbeatProof proof;
    private final FilterEpochs filterEpochs;
    private ScheduledExecutorService timer;
    private Connection connection;
    private boolean failing;
    /** Why writes are held back, null while they are not (see {@link #heardAsStatement}). */
    private volatile String held;
    /** Why the proof refuses rows (a filter), null while it does not (see {@link #writeOnce}). */
    private volatile String refused;
    /**
     * The epoch of the last row written. While the proof refuses, a row is written only with an epoch no write tried
     * before ({@link #lastAttempted}): clients drop their entries for it, so it proves nothing about what they cached
     * under an earlier one.
     */
    private String lastWritten;
    /** A hold started whose record with the offsets was not written yet ({@link FilterEpochs#recordHold}). */
    private volatile boolean holdUnrecorded;
    /** Whether recording the hold failed since it was last tried (logged once per series). */
    private boolean recordFailing;
    /** Set by {@link #stop}: a tick that was checking the filters then writes nothing. */
    private volatile boolean stopped;
    /** What a refusal left wrong once it is gone ({@link HeartbeatProof.Refusal#damage}), null while nothing. */
    private volatile String holdDamage;
    /** Set when a refusal with damage ended: no row until a restart (which is refused until the damage is repaired). */
    private volatile boolean heldUntilRestart;
    /** The epoch of the last row whose write was tried, whether or not it committed. */
    private String lastAttempted;

    /** Where the epochs of a filter's hold come from, and where it is recorded ({@code ContinuityState}, the offsets). */
    public interface FilterEpochs {
        /**
         * A new epoch, outside the running one's lineage, for a filter found while streaming (asked only once the
         * start-up check decided one). In memory only, so that it cannot fail: from now on no epoch of this process may
         * be resumed.
         */
        String filterFound(String filter, boolean damage);

        /**
         * Records the hold where the next start reads it (the stored offsets); may block and fail, and is then tried
         * again at the next interval.
         *
         * @param damage whether the hold left damage the next start must not go on from (a diverged replica)
         */
        void recordHold(boolean damage);

        /** A new epoch once the filter is gone. */
        String filterGone();
    }

    /**
     * @param database where the row is written: the captured server, or the primary of a captured replica
     * @param settings the settings that name {@code database}, for messages
     * @param epoch the current continuity epoch, read at every write; null until it is decided (before the
     *     engine starts), when nothing is written
     * @param proof asked before every row; while it refuses, rows are held back ({@link #writeOnce})
     * @param filterEpochs the epochs that start when the proof begins and stops refusing
     */
    public HeartbeatWriter(ConnectorProperties.Database database, String settings, HeartbeatRow row,
            Supplier<String> epoch, Duration interval, MeterRegistry registry, HeartbeatProof proof,
            FilterEpochs filterEpochs) {
        this.proof = proof;
        this.filterEpochs = filterEpochs;
        this.database = database;
        this.settings = settings;
        this.row = row;
        this.epoch = epoch;
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
        stopped = false;
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "heartbeat-writer");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(this::writeOnce, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Writes the row now, failing if it cannot: for a new epoch that must be in the binlog before the engine stores an
     * offset past the reason for it.
     *
     * @throws IllegalStateException if the row could not be written
     */
    public synchronized void writeOrFail() {
        if (held != null) {
            // no row could be published: fail the event handler instead (EpochRenewal stops before this)
            throw new IllegalStateException("Could not write the heartbeat row with the new epoch: heartbeat rows are"
                    + " held back (" + held + ") Stopping, so that a restart reads the binlog from before its reason.");
        }
        String currentEpoch = epoch.get();
        if (refused != null && currentEpoch.equals(lastAttempted)) {
            return; // the hold for a filter wrote it, or tried to (see lastAttempted); the next tick writes a fresh one
        }
        try {
            upsert(currentEpoch);
        } catch (SQLException | RuntimeException e) {
            failures.increment();
            closeConnection();
            throw new IllegalStateException("Could not write the heartbeat row with the new epoch " + currentEpoch
                    + " (" + e.getMessage() + "); stopping, so that a restart reads the binlog from before its reason", e);
        }
    }

    /** Writes the row with {@code currentEpoch} on the writer's connection, opening it first if needed. */
    private void upsert(String currentEpoch) throws SQLException {
        connectIfNeeded();
        lastAttempted = currentEpoch;
        try (PreparedStatement s = connection.prepareStatement(row.upsertStatement())) {
            s.setString(1, row.connectorId());
            s.setString(2, currentEpoch);
            s.setString(3, row.tablesColumn());
            s.executeUpdate();
        }
        lastWritten = currentEpoch;
        writes.increment();
    }

    /**
     * Called when one of this writer's rows reached the binlog as an SQL statement, which Debezium does not publish:
     * its session logs statements (it connected after {@code binlog_format} was set to STATEMENT or MIXED globally; a
     * session keeps the format it opened with). Reconnects, so that the next row is written in the server's current
     * format, and holds writes back while that is not ROW: each row would only be one more statement. Without rows
     * no client can prove its cache fresh, so none serves what it cannot prove. Every interval the setting is read
     * again; once it is ROW the writer writes again. Never throws: if the setting cannot be read, that is logged and
     * the next row that arrives as a statement tries again.
     */
    public synchronized void heardAsStatement() {
        if (held != null) {
            return;
        }
        try {
            String format = freshSessionFormat();
            if ("ROW".equalsIgnoreCase(format)) {
                return; // the new session writes rows
            }
            held = "binlog_format is " + format + " for new sessions on " + database.getHost() + ":"
                    + database.getPort() + ", so heartbeat rows reach the binlog as SQL statements, which Debezium does"
                    + " not publish.";
            log.error("Heartbeat rows are no longer written: {} Clients cannot prove their caches fresh until they are"
                    + " written again, once binlog_format is ROW; checked every {}.", held, interval);
        } catch (SQLException | RuntimeException e) {
            closeConnection();
            log.warn("A heartbeat row reached the binlog as an SQL statement, and binlog_format could not be read on"
                    + " {}:{} ({}); the writer reconnects for the next row", database.getHost(), database.getPort(),
                    e.getMessage());
        }
    }

    /** The row this writer writes. */
    public HeartbeatRow row() {
        return row;
    }

    /** Why heartbeat rows are held back, if they are ({@link #heardAsStatement}, or a filter {@link #writeOnce} found). */
    public Optional<String> heldBecause() {
        String statement = held;
        return Optional.ofNullable(statement != null ? statement : refused);
    }

    /**
     * The binlog format of a new session of the writer's: the global one, or what {@code init_connect} or a proxy
     * makes of it. The writer keeps that session.
     */
    private String freshSessionFormat() throws SQLException {
        closeConnection();
        connectIfNeeded();
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("SELECT @@SESSION.binlog_format")) {
            return rs.next() ? rs.getString(1) : "";
        }
    }

    /**
     * Whether heartbeat rows are still held back: reads the binlog format of a new session now rather than at the
     * next interval, and releases the hold if it is ROW.
     */
    public synchronized boolean stillHeld() {
        releaseIfRows();
        return held != null;
    }

    /** Releases the hold once a new session writes rows; keeps it if that cannot be read. */
    private void releaseIfRows() {
        if (held == null) {
            return;
        }
        try {
            if (!"ROW".equalsIgnoreCase(freshSessionFormat())) {
                return;
            }
        } catch (SQLException | RuntimeException e) {
            closeConnection();
            return; // still held; read again at the next interval
        }
        held = null;
        log.info("Heartbeat rows are written again: binlog_format is ROW");
    }

    private void connectIfNeeded() throws SQLException {
        if (connection == null || connection.isClosed()) {
            connection = DatabaseCheck.connect(database, settings);
            connection.setAutoCommit(true);
        }
    }

    /**
     * Writes the row once, unless writes are held and still need to be; public for tests.
     *
     * <p>Before the row, the {@link HeartbeatProof} is asked whether it would prove only what is true (outside the lock:
     * its queries must not delay a row the binlog-reading thread writes). When it first refuses (a filter leaves
     * captured tables out of the binlog), a new epoch starts that no later start resumes (recorded with the offsets,
     * outside the lock too, and tried again every interval until that succeeds), and the row is written once with it:
     * clients that read it drop their entries. No row follows while it refuses, other than one with an epoch renewed
     * meanwhile. When it stops refusing, one more new epoch starts (the changes made meanwhile never reached the
     * binlog) and rows are written again; unless the refusal left damage behind ({@link HeartbeatProof.Refusal#damage}):
     * then rows stay held until the connector is started again, and the hold is recorded so that start is refused.
     */
    public void writeOnce() {
        if (epoch.get() == null || stopped) {
            return; // the start-up check has not decided the epoch yet (it writes the first row itself), or stopping
        }
        if (!heldUntilRestart) {
            Optional<HeartbeatProof.Refusal> refusal;
            try {
                refusal = proof.refusal();
            } catch (SQLException | RuntimeException e) {
                synchronized (this) {
                    failed(e, "could not read the binlog and replication filters before it");
                }
                return;
            }
            write(refusal);
        }
        recordHoldIfNeeded();
    }

    /** Records the hold with the offsets where that is still to be done; outside the lock, as it may block. */
    private void recordHoldIfNeeded() {
        if (!holdUnrecorded) {
            return;
        }
        try {
            filterEpochs.recordHold(holdDamage != null);
            holdUnrecorded = false;
            if (recordFailing) {
                recordFailing = false;
                log.info("The hold for a filter is recorded with the stored offsets");
            }
        } catch (RuntimeException e) {
            if (!recordFailing) {
                recordFailing = true; // the first failure of a series only
                log.warn("Could not record the hold for a filter with the stored offsets ({}); heartbeat rows stay"
                        + " held, and the record is tried again every {}", e.getMessage(), interval);
            }
        }
    }

    private synchronized void write(Optional<HeartbeatProof.Refusal> refusal) {
        if (stopped || heldUntilRestart) {
            return;
        }
        if (refusal.isPresent()) {
            if (refused == null) {
                // also while rows are held for their format: the hold's epoch is what makes the next start not resume
                filterEpochs.filterFound(refusal.get().why(), // logs the gap, the filter, the fix
                        refusal.get().damage().isPresent());
                holdUnrecorded = true;
            }
            refused = refusal.get().why();
            if (holdDamage == null && refusal.get().damage().isPresent()) {
                holdDamage = refusal.get().damage().get(); // recorded too: the next start must not go on from it
                holdUnrecorded = true;
            }
        }
        releaseIfRows();
        if (held != null) {
            return;
        }
        try {
            if (refusal.isPresent()) {
                // each epoch at most once: the hold's first, or one renewed during the hold. A write whose answer was
                // lost may have committed, so it is not repeated: a fresh epoch is written instead
                String current = epoch.get();
                if (current.equals(lastAttempted) && !current.equals(lastWritten)) {
                    current = filterEpochs.filterFound(refused, holdDamage != null);
                }
                if (!current.equals(lastAttempted)) {
                    upsert(current);
                    workingAgain();
                }
                return;
            }
            if (refused != null) {
                if (holdDamage != null) {
                    refused = "The filter that left captured tables out is gone, but " + holdDamage;
                    heldUntilRestart = true;
                    log.error("Heartbeat rows stay held: {}", refused);
                    return;
                }
                String renewed = filterEpochs.filterGone();
                refused = null;
                log.info("Heartbeat rows are written again: the filter that left captured tables out of the binlog is"
                        + " gone; epoch {}", renewed);
            }
            upsert(epoch.get());
            workingAgain();
        } catch (SQLException | RuntimeException e) {
            failed(e, "");
        }
    }

    private void workingAgain() {
        if (failing) {
            failing = false;
            log.info("Heartbeat writes to the database work again");
        }
    }

    private void failed(Exception e, String when) {
        failures.increment();
        closeConnection();
        if (!failing) {
            failing = true; // log the first failure of a series only
            log.warn("Could not write the heartbeat row on {}:{} ({}{}); retrying every {}", database.getHost(),
                    database.getPort(), when.isEmpty() ? "" : when + ": ", e.getMessage(), interval);
        }
    }

    @Override
    public void stop() {
        synchronized (this) {
            stopped = true;
            if (timer != null) {
                timer.shutdownNow();
                timer = null;
            }
            closeConnection();
        }
        proof.close(); // outside the lock: a check that is running fails on its closed connections
        recordHoldIfNeeded(); // a last try: the next start reads it
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
