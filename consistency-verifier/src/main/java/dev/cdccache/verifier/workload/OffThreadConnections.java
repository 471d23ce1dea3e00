package dev.cdccache.verifier.workload;

import dev.cdccache.infra.mariadb.MariaDbServer;
import dev.cdccache.verifier.schema.VerifierSchema;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Database connections, one per thread, for loader calls that do not run on the reader that owns the loader: the
 * client's consistency sampler re-reads a sampled hit through the loader that served it, on its own thread. A reader's
 * connection is neither thread-safe nor outside a transaction, so such a call gets an autocommit connection of its
 * own, as it would from an application's pool.
 */
public final class OffThreadConnections implements AutoCloseable {

    /** A query on a connection. */
    @FunctionalInterface
    public interface Query<T> {
        T run(Connection connection) throws SQLException;
    }

    private final MariaDbServer db;
    private final Map<Thread, Connection> byThread = new ConcurrentHashMap<>();

    public OffThreadConnections(MariaDbServer db) {
        this.db = db;
    }

    /** Runs {@code query} on the calling thread's connection, opened as the application user if need be. */
    public <T> T run(Query<T> query) throws SQLException {
        Thread thread = Thread.currentThread();
        Connection connection = byThread.get(thread);
        if (connection == null) {
            // a restarted client's sampler thread has ended: its connection is not needed any more
            byThread.entrySet().removeIf(e -> !e.getKey().isAlive() && close(e.getValue()));
            connection = DriverManager.getConnection(db.jdbcUrl(VerifierSchema.DATABASE), db.appUser(),
                    db.appPassword());
            byThread.put(thread, connection);
        }
        try {
            return query.run(connection);
        } catch (SQLException e) {
            byThread.remove(thread);
            close(connection); // broken, e.g. by a MariaDB restart: the next call opens a new one
            throw e;
        }
    }

    private static boolean close(Connection connection) {
        try {
            connection.close();
        } catch (SQLException ignored) {
            // closing a broken connection
        }
        return true;
    }

    @Override
    public void close() {
        byThread.values().forEach(OffThreadConnections::close);
        byThread.clear();
    }
}
