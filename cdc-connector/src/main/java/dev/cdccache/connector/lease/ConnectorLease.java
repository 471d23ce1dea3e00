package dev.cdccache.connector.lease;

import dev.cdccache.connector.config.CapturedTable;
import dev.cdccache.connector.config.ConnectorProperties;
import dev.cdccache.connector.continuity.OffsetsOrigin;
import dev.cdccache.connector.startup.DatabaseCheck;
import dev.cdccache.connector.startup.StartupCheckException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connector's exclusive lease on its name and its replication server id on the database it reads, held while
 * it runs: two named locks ({@code GET_LOCK}) in a database session of its own.
 *
 * <p>Why database locks: two processes with one name share offsets, epoch and heartbeat row, and two binlog
 * readers with one server id make the server drop one of them; both meet at the database. A lock belongs to its
 * session, so it is free the moment the holder's connection closes: a process killed with SIGKILL loses it when the
 * kernel closes its socket, and its restart gets it back at once. A holder that hangs or loses its network keeps
 * the session only until the server's {@code wait_timeout}, which this session sets to {@link #SESSION_TIMEOUT}
 * while the holder renews (a query) every {@link #RENEW_INTERVAL}.
 *
 * <p>At start a lock held by another session is waited for as long as that holder shows no sign of life: when its
 * session answers a renewal while this process watches ({@code information_schema.PROCESSLIST}, visible for the same
 * database user), it is alive and this process refuses to start, naming it (host, pid and since, from the record
 * the holder keeps next to its offsets). A holder that never renews is a dead one whose session the server is
 * about to end.
 *
 * <p>When the session breaks at run time (the database restarted) the lease is taken again; if another process
 * holds it by then, this one stops ({@code onLost}). Thread-safe.
 */
public final class ConnectorLease implements AutoCloseable {

    /** How long the server keeps the session of a holder that no longer renews. */
    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);
    /** How often the holder shows it is alive. */
    static final Duration RENEW_INTERVAL = Duration.ofSeconds(2);

    private static final Logger log = LoggerFactory.getLogger(ConnectorLease.class);
    private static final int MAX_LOCK_NAME = 64;

    private final ConnectorProperties.Database database;
    private final String connectorName;
    private final long serverId;
    private final Optional<CapturedTable> heartbeatTable;
    private final Supplier<Optional<OffsetsOrigin.Instance>> recordedHolder;
    private final Consumer<String> onLost;
    private final Clock clock;
    private final Instant started;
    private final String host;
    private Connection session;
    private long sessionId;
    private ScheduledExecutorService renewer;
    private boolean reconnecting;

    /**
     * @param recordedHolder the instance recorded next to this name's offsets (reading it may take a moment; only
     *     asked when the lease is refused)
     * @param onLost called with an explanation when the lease was lost at run time to another process
     */
    public ConnectorLease(ConnectorProperties.Database database, String connectorName, long serverId,
            Optional<CapturedTable> heartbeatTable, Supplier<Optional<OffsetsOrigin.Instance>> recordedHolder,
            Consumer<String> onLost, Clock clock) {
        this.database = database;
        this.connectorName = connectorName;
        this.serverId = serverId;
        this.heartbeatTable = heartbeatTable;
        this.recordedHolder = recordedHolder;
        this.onLost = onLost;
        this.clock = clock;
        this.started = clock.instant();
        this.host = localHost();
    }

    /** The name of the lock on a connector name; hashed when too long for the server's 64 characters. */
    public static String nameLock(String connectorName) {
        String lock = "cdc-connector:" + connectorName;
        return lock.length() <= MAX_LOCK_NAME ? lock : "cdc-connector:" + sha256(connectorName).substring(0, 40);
    }

    /** The name of the lock on a replication server id. */
    public static String serverIdLock(long serverId) {
        return "cdc-connector-server-id:" + serverId;
    }

    /**
     * Takes the lease, waiting while a holder that may be dead has not shown that it is alive.
     *
     * @throws StartupCheckException when another live process holds the name or the server id
     */
    public synchronized void acquire() {
        Instant deadline = clock.instant().plus(SESSION_TIMEOUT).plusSeconds(5);
        Connection connection = DatabaseCheck.connect(database);
        boolean held = false;
        try {
            try (Statement s = connection.createStatement()) {
                s.execute("SET SESSION wait_timeout = " + SESSION_TIMEOUT.toSeconds());
            }
            Watch watch = new Watch();
            while (true) {
                Optional<Conflict> conflict = tryLock(connection);
                if (conflict.isEmpty()) {
                    held = true;
                    break;
                }
                Conflict c = conflict.get();
                if (watch.aliveAfter(connection, c.holderSession()) || clock.instant().isAfter(deadline)) {
                    throw refusal(connection, c, watch);
                }
                Thread.sleep(250);
            }
            sessionId = connectionId(connection);
            session = connection;
            log.info("Lease taken: connector '{}' and replication server id {} on {} belong to this process ({}, database"
                    + " session {})", connectorName, serverId, where(), instance(), sessionId);
            renewer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "connector-lease");
                t.setDaemon(true);
                return t;
            });
            renewer.scheduleWithFixedDelay(this::renew, RENEW_INTERVAL.toMillis(), RENEW_INTERVAL.toMillis(),
                    TimeUnit.MILLISECONDS);
        } catch (SQLException e) {
            throw new StartupCheckException("Could not take the connector's lease (database locks " + nameLock(connectorName)
                    + ", " + serverIdLock(serverId) + ") on " + where() + ": " + e.getMessage(),
                    "Check that user '" + database.getUser() + "' may connect and run GET_LOCK.", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while taking the connector's lease", e);
        } finally {
            if (!held) {
                close(connection);
            }
        }
    }

    /** This process as recorded with its offsets; the lease session is 0 before {@link #acquire()}. */
    public synchronized OffsetsOrigin.Instance instance() {
        return new OffsetsOrigin.Instance(host, ProcessHandle.current().pid(), started, sessionId);
    }

    /** For health: who holds the lease, or why it is not held. */
    public synchronized String describe() {
        if (session == null) {
            return reconnecting ? "not held: the database session was lost, taking it again" : "not held";
        }
        return "held by this process since " + started + " (database session " + sessionId + ", locks "
                + nameLock(connectorName) + ", " + serverIdLock(serverId) + ")";
    }

    /** Releases the locks (closing the session releases them) and stops renewing. */
    @Override
    public synchronized void close() {
        if (renewer != null) {
            renewer.shutdownNow();
            renewer = null;
        }
        if (session != null) {
            close(session);
            session = null;
        }
    }

    private synchronized void renew() {
        if (renewer == null) {
            return; // closed
        }
        try {
            if (session != null) {
                try (PreparedStatement s = session.prepareStatement("SELECT IS_USED_LOCK(?)")) {
                    s.setString(1, nameLock(connectorName));
                    try (ResultSet rs = s.executeQuery()) {
                        rs.next();
                        if (rs.getLong(1) == sessionId) {
                            return;
                        }
                    }
                }
            }
        } catch (SQLException e) {
            // the session broke (a database restart, the network): take the lease again below
        }
        close(session);
        session = null;
        retake();
    }

    private void retake() {
        Connection connection = null;
        try {
            connection = DatabaseCheck.connect(database);
            try (Statement s = connection.createStatement()) {
                s.execute("SET SESSION wait_timeout = " + SESSION_TIMEOUT.toSeconds());
            }
            Optional<Conflict> conflict = tryLock(connection);
            if (conflict.isEmpty()) {
                session = connection;
                sessionId = connectionId(connection);
                reconnecting = false;
                log.info("Lease taken again after the database session was lost (database session {})", sessionId);
                return;
            }
            String lost = "Lost the lease of connector '" + connectorName + "' on " + where() + ": while its database"
                    + " session was gone, database session " + conflict.get().holderSession() + " took "
                    + conflict.get().lock() + ". Another process runs under this name or server id; this one stops so"
                    + " that only one reads the binlog and writes the offsets.";
            close(connection);
            renewer.shutdown();
            renewer = null;
            log.error(lost);
            onLost.accept(lost);
        } catch (RuntimeException | SQLException e) {
            close(connection);
            if (!reconnecting) {
                reconnecting = true; // log the first failure of a series only
                log.warn("The lease's database session was lost and cannot be opened again yet ({}); retrying every {}",
                        e.getMessage(), RENEW_INTERVAL);
            }
        }
    }

    /** Takes both locks, or neither; empty when taken. */
    private Optional<Conflict> tryLock(Connection connection) throws SQLException {
        String name = nameLock(connectorName);
        String id = serverIdLock(serverId);
        if (!getLock(connection, name)) {
            return Optional.of(new Conflict(name, holder(connection, name), false));
        }
        if (!getLock(connection, id)) {
            long holder = holder(connection, id);
            releaseLock(connection, name);
            return Optional.of(new Conflict(id, holder, true));
        }
        return Optional.empty();
    }

    private static boolean getLock(Connection connection, String lock) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement("SELECT GET_LOCK(?, 0)")) {
            s.setString(1, lock);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() && rs.getInt(1) == 1;
            }
        }
    }

    private static void releaseLock(Connection connection, String lock) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement("SELECT RELEASE_LOCK(?)")) {
            s.setString(1, lock);
            s.executeQuery().close();
        }
    }

    private static long holder(Connection connection, String lock) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement("SELECT IS_USED_LOCK(?)")) {
            s.setString(1, lock);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    private static long connectionId(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("SELECT CONNECTION_ID()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private StartupCheckException refusal(Connection connection, Conflict conflict, Watch watch) throws SQLException {
        String seen = watch.lastSeen.map(s -> "; its session's client is " + s.client() + ", last active " + s.idleSeconds()
                + " s ago").orElse("; its session is not visible to user '" + database.getUser() + "'");
        if (conflict.serverId()) {
            String other = holderName(connection, conflict.holderSession()).map(n -> "connector '" + n + "'")
                    .orElse("another connector");
            return new StartupCheckException("Replication server id " + serverId + " is in use on " + where() + " by "
                    + other + " (database session " + conflict.holderSession() + seen + "). Two binlog readers with one"
                    + " server id make the server drop one of them again and again; connector '" + connectorName
                    + "' does not start.",
                    "Give this connector another cdc.connector.database.server-id (unique among the server's replicas"
                            + " and connectors), or leave it unset: it is then derived from cdc.connector.name.");
        }
        Optional<OffsetsOrigin.Instance> recorded = recordedHolder.get();
        String who = recorded.filter(r -> r.leaseSession() == conflict.holderSession())
                .map(r -> r + " (database session " + conflict.holderSession() + seen + ")")
                .orElseGet(() -> "database session " + conflict.holderSession() + seen
                        + recorded.map(r -> "; the last run recorded with the offsets was " + r).orElse(""));
        return new StartupCheckException("Connector '" + connectorName + "' is already running against " + where() + ": "
                + who + ". It holds the lease " + conflict.lock() + ". A second process with the same name would share"
                + " its offsets, epoch and heartbeat row and take its binlog connection away; this one does not start.",
                "Stop the running process first, or give this one its own cdc.connector.name (and its own"
                        + " tables): every connector needs a name of its own.");
    }

    /** Which connector, by the heartbeat table's rows, holds the name lock in the given session. */
    private Optional<String> holderName(Connection connection, long holderSession) throws SQLException {
        if (heartbeatTable.isEmpty()) {
            return Optional.empty();
        }
        List<String> ids = new ArrayList<>();
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT id FROM " + heartbeatTable.get().qualifiedName())) {
            while (rs.next()) {
                ids.add(rs.getString(1));
            }
        }
        for (String id : ids) {
            if (holder(connection, nameLock(id)) == holderSession) {
                return Optional.of(id);
            }
        }
        return Optional.empty();
    }

    /** A lock held by another session. */
    private record Conflict(String lock, long holderSession, boolean serverId) {
    }

    /** What the process list shows of a session. */
    private record Seen(long session, long idleSeconds, String client) {
    }

    /** Watches a holder's session for a renewal: its idle time going down means it answered a query. */
    private static final class Watch {
        private Optional<Seen> lastSeen = Optional.empty();

        boolean aliveAfter(Connection connection, long holderSession) throws SQLException {
            Optional<Seen> now = Optional.empty();
            try (PreparedStatement s = connection.prepareStatement(
                    "SELECT TIME, HOST FROM information_schema.PROCESSLIST WHERE ID = ?")) {
                s.setLong(1, holderSession);
                try (ResultSet rs = s.executeQuery()) {
                    if (rs.next()) {
                        now = Optional.of(new Seen(holderSession, rs.getLong(1), rs.getString(2)));
                    }
                }
            }
            boolean renewed = now.isPresent() && lastSeen.isPresent() && lastSeen.get().session() == holderSession
                    && now.get().idleSeconds() < lastSeen.get().idleSeconds();
            if (now.isPresent()) {
                lastSeen = now;
            }
            return renewed;
        }
    }

    private String where() {
        return database.getHost() + ":" + database.getPort();
    }

    private static void close(Connection connection) {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // already broken
            }
        }
    }

    private static String localHost() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            String env = System.getenv("HOSTNAME");
            return env != null ? env : "unknown";
        }
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
