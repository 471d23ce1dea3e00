package dev.cdccache.connector.heartbeat;

import dev.cdccache.connector.config.ConnectorProperties;
import dev.cdccache.connector.startup.DatabaseCheck;
import dev.cdccache.connector.startup.ReplicaCheck;
import dev.cdccache.connector.startup.StartupCheckException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;

/**
 * Reads the filters that decide what reaches the binlog again before every heartbeat row. A filter set while the
 * connector runs keeps a captured table's changes out of the binlog it reads, while heartbeat rows would go on proving
 * every change before their time published: a replica's {@code replicate-*} filters are dynamic, and a server the
 * connector reconnects to may have been restarted with {@code binlog-do-db} / {@code binlog-ignore-db}.
 *
 * <p>It checks what start-up checks, without the warnings start-up logs once: the binlog filters of the captured server
 * ({@link DatabaseCheck#verifyBinlogFilters}) and, on a replica whose heartbeat is written on its primary, the replica's
 * replication filters and the primary's binlog filters ({@link ReplicaCheck#verifyFiltersStillKeepCapturedTables}).
 * That is one status query per heartbeat on the captured server, or six on a replica and its primary, on connections of
 * its own (the writer's stays free for the binlog-reading thread's rows).
 */
public final class FilterWatch implements HeartbeatProof {

    private final DatabaseCheck capturedServerCheck;
    private final ConnectorProperties.Database capturedServer;
    private final Optional<ReplicaCheck> replica;
    private final ConnectorProperties.Database primary;
    private final String primarySettings;
    private volatile Connection capturedConnection;
    private volatile Connection primaryConnection;
    private volatile boolean closed;

    /**
     * @param capturedServerCheck the start-up check of the captured server (its binlog filters)
     * @param capturedServer the server whose binlog is read
     * @param replica the replica check, when the heartbeat row is written on the replica's primary; empty when it is
     *     written on the captured server itself
     * @param primary where the heartbeat row is written on a replica (unused without {@code replica})
     * @param primarySettings the settings that name {@code primary}, for messages
     */
    public FilterWatch(DatabaseCheck capturedServerCheck, ConnectorProperties.Database capturedServer,
            Optional<ReplicaCheck> replica, ConnectorProperties.Database primary, String primarySettings) {
        this.capturedServerCheck = capturedServerCheck;
        this.capturedServer = capturedServer;
        this.replica = replica;
        this.primary = primary;
        this.primarySettings = primarySettings;
    }

    @Override
    public synchronized Optional<Refusal> refusal() throws SQLException {
        if (closed) {
            throw new SQLException("the filter check is closed (the connector stops)");
        }
        boolean replicaPart = false;
        try {
            capturedConnection = open(capturedConnection, capturedServer, ConnectorProperties.PREFIX + ".database");
            capturedServerCheck.verifyBinlogFilters(capturedConnection);
            if (replica.isPresent()) {
                replicaPart = true;
                primaryConnection = open(primaryConnection, primary, primarySettings);
                replica.get().verifyFiltersStillKeepCapturedTables(capturedConnection, primaryConnection);
            }
            return Optional.empty();
        } catch (StartupCheckException e) {
            if (e.getCause() instanceof SQLException cause) {
                // a status the user may no longer read (a revoked grant): that tells nothing about filters
                throw new SQLException(e.getMessage() + " " + e.fix(), cause);
            }
            String fix = e.fix().endsWith(".") ? e.fix() : e.fix() + ".";
            // the replica's own binlog filters leave its tables right; its replication filters and the primary's
            // binlog filters keep changes from being applied there at all
            return Optional.of(new Refusal(e.getMessage() + " Fix: " + fix,
                    replicaPart ? Optional.of(divergedReplica()) : Optional.empty()));
        } catch (SQLException | RuntimeException e) {
            disconnect(); // new connections next time
            throw e;
        }
    }

    /**
     * What a replica that skipped changes leaves behind: its rows of the captured tables differ from the primary's for
     * good. Its later row events carry before-images read from those rows (a key cached by a column a skipped change
     * set would not be evicted), and services that read from it would load and cache the old values; the skipped
     * transactions still count as applied in its GTID position. Only a re-sync repairs that, and nothing here can tell
     * when it happened.
     */
    private String divergedReplica() {
        String where = capturedServer.getHost() + ":" + capturedServer.getPort();
        return where + " did not apply the changes of the captured tables made while the filter was in place: its rows"
                + " of those tables differ from the primary's, its later row events carry before-images read from"
                + " them, and services that read from it cache the old values. Heartbeat rows stay held until the"
                + " connector is started again, and that start is refused until its stored offsets are deleted. To"
                + " repair: re-sync the replica's captured tables from the primary (or rebuild the replica from a"
                + " backup of the primary), then delete the connector's stored offsets and start it again.";
    }

    private static Connection open(Connection current, ConnectorProperties.Database database, String settings)
            throws SQLException {
        if (current != null && !current.isClosed()) {
            return current;
        }
        try {
            return DatabaseCheck.connect(database, settings);
        } catch (StartupCheckException e) {
            // unreachable, or the password changed: that tells nothing about filters, and no row is written now
            throw new SQLException(e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        closed = true; // without the lock: a check that is running fails on its closed connections
        disconnect();
    }

    private void disconnect() {
        capturedConnection = closed(capturedConnection);
        primaryConnection = closed(primaryConnection);
    }

    private static Connection closed(Connection connection) {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // already broken
            }
        }
        return null;
    }
}
