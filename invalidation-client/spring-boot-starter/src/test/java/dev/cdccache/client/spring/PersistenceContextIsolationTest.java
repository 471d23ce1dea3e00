package dev.cdccache.client.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.cache.CacheTransaction;
import dev.cdccache.client.cache.CacheTransaction.Isolation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.orm.jpa.EntityManagerHolder;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * A JPA or Hibernate transaction answers a load from its persistence context with an entity read earlier in the
 * transaction, so at READ COMMITTED its loads must stand for the transaction's begin, not for the moment of the load.
 */
class PersistenceContextIsolationTest {

    private static final Object ENTITY_MANAGER_FACTORY = new Object();

    private final TransactionExecution transaction = new TransactionExecution() {
        @Override
        public boolean isNewTransaction() {
            return true;
        }

        @Override
        public void setRollbackOnly() {
        }

        @Override
        public boolean isRollbackOnly() {
            return false;
        }

        @Override
        public boolean isCompleted() {
            return false;
        }
    };

    @AfterEach
    void cleanUp() {
        if (TransactionSynchronizationManager.hasResource(ENTITY_MANAGER_FACTORY)) {
            TransactionSynchronizationManager.unbindResource(ENTITY_MANAGER_FACTORY);
        }
        TransactionSynchronizationManager.setCurrentTransactionIsolationLevel(null);
        CacheTransactionListener.INSTANCE.afterRollback(transaction, null);
        assertThat(CacheTransaction.current()).isNull();
    }

    @Test
    void aReadCommittedTransactionWithAPersistenceContextIsStampedAsOfItsBegin() {
        CacheTransactionListener.INSTANCE.beforeBegin(transaction);
        // what JpaTransactionManager's begin leaves: the entity manager bound, the declared isolation exposed
        TransactionSynchronizationManager.bindResource(ENTITY_MANAGER_FACTORY, new EntityManagerHolder(null));
        TransactionSynchronizationManager.setCurrentTransactionIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
        CacheTransactionListener.INSTANCE.afterBegin(transaction, null);

        assertThat(CacheTransaction.current().isolation()).isEqualTo(Isolation.REPEATABLE_READ);
    }

    @Test
    void aReadCommittedJdbcTransactionKeepsItsPerLoadStamps() {
        CacheTransactionListener.INSTANCE.beforeBegin(transaction);
        TransactionSynchronizationManager.setCurrentTransactionIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
        CacheTransactionListener.INSTANCE.afterBegin(transaction, null);

        assertThat(CacheTransaction.current().isolation()).isEqualTo(Isolation.READ_COMMITTED);
    }
}
