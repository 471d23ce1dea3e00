package dev.cdccache.client.spring;

import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.position.CommitPosition;
import io.micrometer.core.instrument.Counter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Read-your-writes without application code: after every Spring-managed read-write transaction commits, reads the
 * server's commit position of that transaction ({@link CommitPosition#ofLastCommit}) on the transaction's own
 * connection and raises the instance's read floor to it.
 *
 * <p>Why in {@code afterCommit} of a transaction synchronization: it runs after the commit, while the transaction's
 * resources are still bound to the thread, before the connection is released to the pool (where another session
 * could use it and {@code @@last_gtid} would no longer be this transaction's). {@code DataSourceTransactionManager}
 * binds a {@link ConnectionHolder} for its DataSource; {@code JpaTransactionManager} binds one too when its dialect
 * exposes the JDBC connection (Hibernate's does, and Spring Boot gives the manager its DataSource). A transaction
 * declared read-only raises nothing; a nested or participating one is covered by its outermost transaction.
 *
 * <p>Why the position is read before the commit too: {@code @@last_gtid} is the session's last BINLOGGED
 * transaction, so after a read-write transaction that wrote nothing it still answers an earlier write of the pooled
 * session, often long proven applied. Taken for this commit's position, that looked like a numbering that started over
 * ({@link dev.cdccache.client.position.ReadYourWrites#raiseFloorAfterCommit}): every proof was dropped and the
 * instance floor's sequence replaced by the old one, below a write another thread had just committed, whose reads were
 * then served from the cache before its change was applied. So only what changed between the two reads is this
 * commit's; a transaction that changed nothing raises nothing. (For the conservative server-wide positions, a component
 * another session moved meanwhile still counts as this commit's.) If the read before the commit fails, the position
 * after it is taken as the commit's, as before.
 *
 * <p>If the position cannot be read (no bound connection, the query fails), the write is not covered: counted in
 * {@code cdc.client.write.position.failures} and logged (WARN, at most once a minute).
 */
final class ReadYourWritesListener implements TransactionExecutionListener {

    private static final Logger LOG = LoggerFactory.getLogger(ReadYourWritesListener.class);
    private static final long WARN_INTERVAL_MILLIS = 60_000;

    private final Supplier<InvalidationClient> client;
    private final AtomicLong lastWarning = new AtomicLong();
    private volatile Counter failures;

    ReadYourWritesListener(Supplier<InvalidationClient> client) {
        this.client = client;
    }

    @Override
    public void afterBegin(TransactionExecution transaction, Throwable beginFailure) {
        if (beginFailure != null || !transaction.isNewTransaction() || transaction.isNested()
                || transaction.isReadOnly() || !TransactionSynchronizationManager.isSynchronizationActive()) {
            return;
        }
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            /** Each bound connection's session position before the commit (absent: not read). */
            private Map<ConnectionHolder, CommitPosition> beforeCommit = Map.of();

            /** First of all after-commit callbacks: an ordered one that reads a cache must see the floor raised. */
            @Override
            public int getOrder() {
                return Ordered.HIGHEST_PRECEDENCE;
            }

            @Override
            public void beforeCommit(boolean readOnly) {
                beforeCommit = positionsBeforeCommit();
            }

            @Override
            public void afterCommit() {
                raiseFloorAfterCommit(beforeCommit);
            }
        });
    }

    /** The connections bound to the transaction, by their holder. */
    private static Map<ConnectionHolder, Connection> boundConnections() {
        Map<ConnectionHolder, Connection> connections = new IdentityHashMap<>();
        for (Object resource : TransactionSynchronizationManager.getResourceMap().values()) {
            if (resource instanceof ConnectionHolder holder) {
                try {
                    connections.put(holder, holder.getConnection());
                } catch (IllegalStateException released) {
                    // a holder without a connection any more: nothing to read from it
                }
            }
        }
        return connections;
    }

    private Map<ConnectionHolder, CommitPosition> positionsBeforeCommit() {
        if (client.get() == null) {
            return Map.of();
        }
        Map<ConnectionHolder, CommitPosition> positions = new IdentityHashMap<>();
        boundConnections().forEach((holder, connection) -> {
            try {
                positions.put(holder, CommitPosition.ofLastCommit(connection));
            } catch (SQLException | RuntimeException e) {
                // Not known: the position after the commit is taken as the commit's own.
            }
        });
        return positions;
    }

    private void raiseFloorAfterCommit(Map<ConnectionHolder, CommitPosition> beforeCommit) {
        InvalidationClient invalidationClient = client.get();
        if (invalidationClient == null) {
            return;
        }
        Map<ConnectionHolder, Connection> connections = boundConnections();
        if (connections.isEmpty()) {
            failed(invalidationClient, "no JDBC connection is bound to the transaction (a transaction manager that "
                    + "does not expose its connection)", null);
            return;
        }
        connections.forEach((holder, connection) -> {
            try {
                CommitPosition after = CommitPosition.ofLastCommit(connection);
                CommitPosition before = beforeCommit.get(holder);
                // Unchanged: this transaction binlogged nothing on this connection (see the class comment).
                CommitPosition written = before == null ? after : after.changedSince(before);
                if (!written.isEmpty()) {
                    invalidationClient.readYourWrites().raiseFloorAfterCommit(written);
                    RequestWrites.written(written);
                }
            } catch (SQLException | RuntimeException e) {
                failed(invalidationClient, "reading the commit position failed: " + e, e);
            }
        });
    }

    private void failed(InvalidationClient invalidationClient, String why, Exception e) {
        Counter counter = failures;
        if (counter == null) {
            counter = Counter.builder("cdc.client.write.position.failures").tag("client",
                    invalidationClient.instanceId()).description("Committed transactions whose commit position could"
                            + " not be read: reads after them are not held to their write")
                    .register(invalidationClient.meterRegistry());
            failures = counter;
        }
        counter.increment();
        long now = System.currentTimeMillis();
        long last = lastWarning.get();
        if (now - last > WARN_INTERVAL_MILLIS && lastWarning.compareAndSet(last, now)) {
            LOG.warn("A committed transaction's position could not be read ({}): reads after it on this instance may"
                    + " be served from a cache that has not applied it yet", why, e);
        }
    }
}
