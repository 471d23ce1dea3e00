package dev.cdccache.client.spring;

import dev.cdccache.client.cache.CacheTransaction;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;

/**
 * Covers Spring transactions whose begin the starter did not see. {@link CacheTransactionListener} begins a
 * {@link CacheTransaction} for every transaction of a transaction manager it is attached to; a transaction of
 * another manager (one that is not a {@code ConfigurableTransactionManager}, or not a bean of this context) is
 * active without one, and its snapshot may predate changes the client already applied. A miss inside such a
 * transaction begins a cache transaction that caches nothing it reads, ended with the Spring transaction; the
 * first time, a WARN says so.
 */
final class SpringTransactions {

    private static final Logger LOG = LoggerFactory.getLogger(SpringTransactions.class);
    private static final boolean PRESENT = ClassUtils.isPresent(
            "org.springframework.transaction.support.TransactionSynchronizationManager",
            SpringTransactions.class.getClassLoader());
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private SpringTransactions() {
    }

    /** On a miss: if a Spring transaction the starter did not see begin is active, nothing read in it is cached. */
    static void coverUntrackedTransaction() {
        if (PRESENT && CacheTransaction.current() == null) {
            Untracked.cover();
        }
    }

    /** Kept apart so that nothing of spring-tx is loaded when it is not on the class path. */
    private static final class Untracked {

        static void cover() {
            if (!TransactionSynchronizationManager.isActualTransactionActive()
                    || !TransactionSynchronizationManager.isSynchronizationActive()) {
                return;
            }
            CacheTransaction tx = CacheTransaction.begin().isolation(CacheTransaction.Isolation.READ_UNCOMMITTED);
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCompletion(int status) {
                    tx.close();
                }
            });
            if (WARNED.compareAndSet(false, true)) {
                LOG.warn("A Spring transaction ({}) is active that the cdc-cache starter did not see begin: its "
                        + "transaction manager is not a ConfigurableTransactionManager bean of this application "
                        + "context. Values loaded inside such transactions are returned but not cached. Declare the "
                        + "transaction manager as a bean (any AbstractPlatformTransactionManager is one), or add "
                        + "CacheTransactionListener to it yourself",
                        TransactionSynchronizationManager.getCurrentTransactionName());
            }
        }
    }
}
