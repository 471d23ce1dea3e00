package dev.cdccache.client.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.position.CommitPosition;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.core.Ordered;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The instance floor is raised before every other after-commit callback: were it ordered like an unordered one, an
 * after-commit callback with an explicit order (an {@code @Order}ed {@code @TransactionalEventListener}, a
 * synchronization that implements {@code getOrder}) would run before it, and its cache reads would not be held to
 * the write the transaction just committed. The JDBC driver is a stand-in ({@link LastGtidDataSource}).
 */
class ReadYourWritesListenerOrderTest {

    private final InvalidationClient client = new InvalidationClient(InvalidationClientConfig.builder()
            .bootstrapServers("unused:1")
            .cache(CacheDefinition.builder("names").table("db.item").keyColumns("id").build()).build());

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void anOrderedAfterCommitCallbackOfTheWritingTransactionIsHeldToItsWrite() {
        LastGtidDataSource session = new LastGtidDataSource();
        DataSourceTransactionManager manager = new DataSourceTransactionManager(session.dataSource);
        manager.addListener(new ReadYourWritesListener(() -> client));
        AtomicReference<CommitPosition> floorAfterCommit = new AtomicReference<>();

        new TransactionTemplate(manager).executeWithoutResult(status -> {
            session.nextCommit.set("0-1-451"); // the transaction writes
            // e.g. an @Order(0) @TransactionalEventListener that reads the row it was told about through a cache
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public int getOrder() {
                    return Ordered.HIGHEST_PRECEDENCE + 100;
                }

                @Override
                public void afterCommit() {
                    floorAfterCommit.set(client.readYourWrites().floor());
                }
            });
        });

        assertThat(client.readYourWrites().floor()).as("raised by the commit").hasToString("0-1-451");
        assertThat(floorAfterCommit.get()).as("the floor a cache read in the ordered callback is held to")
                .hasToString("0-1-451");
    }
}
