package dev.cdccache.client.position;

import dev.cdccache.client.cache.PersistenceContextReads;
import dev.cdccache.client.cache.ReplicaReads;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes loads from a read replica safe to cache. A replica applies the primary's changes some time after they were
 * committed, while the client may have applied their invalidations already: a load that misses after such an
 * invalidation and reads the replica would cache the old row for good. Before a load reads a replica connection,
 * {@link #await(Connection)} waits (briefly) until the replica has applied every position the client has
 * invalidated so far ({@code MASTER_GTID_WAIT} on MariaDB, {@code WAIT_FOR_EXECUTED_GTID_SET} on MySQL). If it has,
 * the read sees every change behind an applied invalidation and may be cached as usual; if it has not within the
 * timeout (or the wait fails), the read is still served, but {@link ReplicaReads#behind()} keeps the value of every
 * load in progress on this thread out of the cache.
 *
 * <p>Call it on the connection the load reads with, after the load's stamp (inside {@code get(key, loader)}, or
 * after {@code beginLoad}), before the read; in a transaction, before its first read. The Spring Boot starter does
 * it for configured replica data sources at every connection checkout. Thread-safe.
 */
public final class ReplicaFence {

    /** The wait timeout front ends use unless configured: short, since the wait is on the load's path. */
    public static final Duration DEFAULT_WAIT_TIMEOUT = Duration.ofMillis(50);

    private static final Logger LOG = LoggerFactory.getLogger(ReplicaFence.class);

    private final AppliedPositions positions;
    private final Duration timeout;
    private final LongAdder caughtUp = new LongAdder();
    private final LongAdder behind = new LongAdder();
    private volatile long lastWarning;

    /**
     * @param positions the client's applied positions ({@code InvalidationClient.appliedPositions()})
     * @param timeout how long one wait may take before the read is treated as behind (a few tens of milliseconds:
     *        the wait is on the load's path)
     */
    public ReplicaFence(AppliedPositions positions, Duration timeout) {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative, was " + timeout);
        }
        this.positions = positions;
        this.timeout = timeout;
    }

    /**
     * Waits until the replica behind {@code connection} has applied every position invalidated so far.
     *
     * @return whether it has; if not, loads in progress on this thread are not cached
     */
    public boolean await(Connection connection) {
        // Before the positions are read: what a transaction's later loads may stand for (ReplicaReads#fencing).
        ReplicaReads.fencing();
        String mariaDb = positions.mariaDbPosition();
        String mySql = positions.mySqlGtidSet();
        if (mariaDb.isEmpty() && mySql.isEmpty()) {
            caughtUp.increment();
            return true; // nothing invalidated yet: nothing a read could miss
        }
        try {
            boolean applied = (mariaDb.isEmpty() || wait(connection, "SELECT MASTER_GTID_WAIT(?, ?)", mariaDb))
                    && (mySql.isEmpty() || wait(connection, "SELECT WAIT_FOR_EXECUTED_GTID_SET(?, ?)", mySql));
            if (applied) {
                caughtUp.increment();
                return true;
            }
            behind("it had not applied " + positions + " within " + timeout.toMillis() + " ms");
        } catch (SQLException e) {
            behind("waiting for " + positions + " failed: " + e.getMessage());
        }
        return false;
    }

    /**
     * Fences a connection that may be held across several loads (a pooled connection checked out once per request
     * or transaction, a JPA {@code EntityManager} holding its connection): {@link #await(Connection)}, and until the
     * returned connection is closed, every load on this thread stands for this fence. A later load on the same
     * connection reads a replica proven only up to the positions of this fence, not up to invalidations applied
     * since, so it is cached only if none of its key was applied after the fence (as with a persistence context,
     * see {@link PersistenceContextReads}); if this fence found the replica behind, nothing loaded on this thread
     * while it is held is cached.
     *
     * @return the same connection, whose {@link Connection#close()} also ends the hold
     */
    public Connection awaitHeld(Connection connection) {
        // Drawn before the fence reads the positions it waits for, so it stands for no more than the fence proves.
        PersistenceContextReads.Opening hold = PersistenceContextReads.opened();
        try {
            await(connection);
        } catch (RuntimeException | Error e) {
            hold.close();
            throw e;
        }
        return HeldConnection.of(connection, hold);
    }

    private boolean wait(Connection connection, String sql, String position) throws SQLException {
        try (PreparedStatement wait = connection.prepareStatement(sql)) {
            wait.setString(1, position);
            wait.setDouble(2, timeout.toNanos() / 1e9);
            try (ResultSet rs = wait.executeQuery()) {
                // 0: applied; -1 (MariaDB) or 1 (MySQL): timed out; NULL: an argument was refused.
                return rs.next() && rs.getObject(1) != null && rs.getLong(1) == 0;
            }
        }
    }

    private void behind(String why) {
        behind.increment();
        ReplicaReads.behind();
        long now = System.currentTimeMillis();
        if (now - lastWarning > 60_000) {
            lastWarning = now;
            LOG.warn("A replica read may be behind the changes this client invalidated ({}): the value is served but"
                    + " not cached. Sustained replica lag makes every such load a miss; check the replica",
                    why);
        }
    }

    /** Waits that showed the replica caught up (or had nothing to wait for). */
    public long caughtUpCount() {
        return caughtUp.sum();
    }

    /** Waits that timed out or failed: the reads were served but not cached. */
    public long behindCount() {
        return behind.sum();
    }
}
