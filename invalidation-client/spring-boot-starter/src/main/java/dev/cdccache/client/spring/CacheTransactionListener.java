package dev.cdccache.client.spring;

import dev.cdccache.client.cache.CacheTransaction;
import dev.cdccache.client.cache.CacheTransaction.Isolation;
import java.util.IdentityHashMap;
import java.util.Map;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Gives every transaction of a Spring transaction manager its {@link CacheTransaction}, so that values loaded
 * inside it are stamped for its snapshot and stored only after its commit: begun before the transaction begins
 * (before its first read), committed after it committed, rolled back after it rolled back or failed to commit. A
 * nested transaction (a savepoint) gets a savepoint; {@code REQUIRES_NEW} an independent one. Participating in an
 * existing transaction begins nothing. The isolation level is the one the transaction declares; the server's
 * default is treated as REPEATABLE READ, MariaDB's and MySQL's default.
 *
 * <p>Attached to every {@code ConfigurableTransactionManager} bean by the auto-configuration; applications with a
 * transaction manager outside the context can add {@link #INSTANCE} themselves.
 */
public final class CacheTransactionListener implements TransactionExecutionListener {

    /** The listener; stateless apart from the per-thread transactions it tracks. */
    public static final CacheTransactionListener INSTANCE = new CacheTransactionListener();

    /** The cache transaction of each Spring transaction begun on this thread and not completed yet. */
    private static final ThreadLocal<Map<TransactionExecution, CacheTransaction>> OPEN = new ThreadLocal<>();

    private CacheTransactionListener() {
    }

    @Override
    public void beforeBegin(TransactionExecution transaction) {
        CacheTransaction tx;
        if (!transaction.isNested()) {
            tx = CacheTransaction.begin();
        } else if (CacheTransaction.current() != null) {
            tx = CacheTransaction.beginSavepoint();
        } else {
            // A savepoint of a transaction whose begin was not seen: its snapshot is older than anything known here.
            tx = CacheTransaction.begin().isolation(CacheTransaction.Isolation.READ_UNCOMMITTED);
        }
        Map<TransactionExecution, CacheTransaction> open = OPEN.get();
        if (open == null) {
            open = new IdentityHashMap<>();
            OPEN.set(open);
        }
        open.put(transaction, tx);
    }

    @Override
    public void afterBegin(TransactionExecution transaction, Throwable beginFailure) {
        CacheTransaction tx = beginFailure == null ? get(transaction) : remove(transaction);
        if (tx == null) {
            return;
        }
        if (beginFailure != null) {
            tx.close();
        } else if (!transaction.isNested()) {
            Isolation declared = isolation(TransactionSynchronizationManager.getCurrentTransactionIsolationLevel());
            // A persistence context (JPA, Hibernate) answers a load with an entity it read earlier in the transaction,
            // without asking the database: a per-load stamp would vouch for a read made before it. Loads then stand
            // for the transaction's begin, as at REPEATABLE READ.
            tx.isolation(declared == Isolation.READ_COMMITTED && persistenceContextBound() ? Isolation.REPEATABLE_READ
                    : declared);
        }
    }

    @Override
    public void afterCommit(TransactionExecution transaction, Throwable commitFailure) {
        CacheTransaction tx = remove(transaction);
        if (tx == null || !tx.isOpen()) {
            return;
        }
        if (commitFailure == null) {
            tx.commit();
        } else {
            tx.rollback(); // whether it committed is unknown: the safe side
        }
    }

    @Override
    public void afterRollback(TransactionExecution transaction, Throwable rollbackFailure) {
        CacheTransaction tx = remove(transaction);
        if (tx != null && tx.isOpen()) {
            tx.rollback();
        }
    }

    /**
     * Whether a transaction-bound persistence context is on this thread: Spring ORM's {@code EntityManagerHolder} or
     * a Hibernate {@code SessionHolder}, found by class name since the starter does not depend on Spring ORM.
     */
    static boolean persistenceContextBound() {
        for (Object resource : TransactionSynchronizationManager.getResourceMap().values()) {
            for (Class<?> type = resource.getClass(); type != null; type = type.getSuperclass()) {
                String name = type.getName();
                if (name.equals("org.springframework.orm.jpa.EntityManagerHolder")
                        || name.startsWith("org.springframework.orm.hibernate") && name.endsWith(".SessionHolder")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The isolation of a Spring isolation level ({@code null}: the transaction did not declare one). */
    static Isolation isolation(Integer level) {
        if (level == null) {
            return Isolation.UNKNOWN;
        }
        return switch (level) {
            case TransactionDefinition.ISOLATION_READ_UNCOMMITTED -> Isolation.READ_UNCOMMITTED;
            case TransactionDefinition.ISOLATION_READ_COMMITTED -> Isolation.READ_COMMITTED;
            case TransactionDefinition.ISOLATION_REPEATABLE_READ -> Isolation.REPEATABLE_READ;
            case TransactionDefinition.ISOLATION_SERIALIZABLE -> Isolation.SERIALIZABLE;
            default -> Isolation.UNKNOWN;
        };
    }

    private static CacheTransaction get(TransactionExecution transaction) {
        Map<TransactionExecution, CacheTransaction> open = OPEN.get();
        return open == null ? null : open.get(transaction);
    }

    private static CacheTransaction remove(TransactionExecution transaction) {
        Map<TransactionExecution, CacheTransaction> open = OPEN.get();
        if (open == null) {
            return null;
        }
        CacheTransaction tx = open.remove(transaction);
        if (open.isEmpty()) {
            OPEN.remove(); // nothing left behind on pooled threads
        }
        return tx;
    }
}
