package dev.cdccache.systemtests;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdccache.client.cache.CacheTransaction;
import dev.cdccache.client.cache.CacheTransaction.Isolation;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.connector.ConnectorProcess;
import dev.cdccache.infra.mariadb.MariaDbServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Loads inside database transactions against the real stack (MariaDB at its default REPEATABLE READ, the
 * connector process, Kafka and a client): a transaction whose snapshot predates a change applied by the client,
 * and a transaction that reads its own write and rolls back, must not leave their values in the cache.
 */
class TransactionalLoadsIT {

    private static final String DB = "tx_loads_db";
    private static final Duration CONVERGE = Duration.ofSeconds(30);

    private static LocalStack stack;
    private static MariaDbServer mariaDb;
    private static ConnectorProcess connector;
    private static InvalidationClient client;
    private static final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private static final AtomicLong ids = new AtomicLong(500);

    @BeforeAll
    static void startEverything() {
        stack = LocalStack.shared();
        mariaDb = stack.mariaDb();
        mariaDb.createDatabase(DB);
        mariaDb.execute(DB,
                "CREATE TABLE IF NOT EXISTS item (id BIGINT PRIMARY KEY, name VARCHAR(64) NOT NULL)",
                "CREATE TABLE IF NOT EXISTS other (id BIGINT PRIMARY KEY)",
                "INSERT IGNORE INTO other VALUES (1)");
        connector = ConnectorProcess.builder(ConnectorJar.path(), stack)
                .tables(List.of(DB + ".item"))
                .name("transactional-loads-it")
                .build()
                .start();
        client = new InvalidationClient(InvalidationClientConfig.builder()
                .bootstrapServers(stack.kafka().bootstrapServers())
                .maxStaleness(Duration.ofSeconds(5))
                .meterRegistry(registry)
                .cache(CacheDefinition.builder("items").table(DB + ".item").keyColumns("id").build())
                .build());
        client.start();
        assertThat(client.awaitReady(CONVERGE)).isTrue();
        long warmUp = ids.incrementAndGet();
        mariaDb.execute(DB, "INSERT INTO item VALUES (" + warmUp + ", 'warm-up')");
        await().atMost(CONVERGE).until(() -> client.status().fresh());
    }

    @AfterAll
    static void stopEverything() {
        if (client != null) {
            client.close();
        }
        if (connector != null) {
            connector.stop();
        }
    }

    @Test
    void aRepeatableReadSnapshotOlderThanAnAppliedChangeIsReturnedButNotCached() throws Exception {
        long id = ids.incrementAndGet();
        mariaDb.execute(DB, "INSERT INTO item VALUES (" + id + ", 'old name')");
        InvalidatingCache<Long, String> items = client.cache("items");
        assertThat(items.get(id, TransactionalLoadsIT::readCommitted)).isEqualTo("old name");

        try (Connection connection = mariaDb.adminConnection(DB);
                CacheTransaction tx = CacheTransaction.begin().isolation(Isolation.REPEATABLE_READ)) {
            connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            connection.setAutoCommit(false);
            try (Statement s = connection.createStatement()) {
                s.executeQuery("SELECT id FROM other").close(); // the first read fixes the snapshot
            }
            mariaDb.execute(DB, "UPDATE item SET name = 'new name' WHERE id = " + id);
            await().atMost(CONVERGE).until(() -> items.lookup(id) == null); // the invalidation was applied

            String loaded = items.get(id, key -> read(connection, key));
            connection.commit();
            tx.commit();

            assertThat(loaded).as("the snapshot predates the change").isEqualTo("old name");
        }
        assertThat(items.lookup(id)).as("the snapshot's value must not be cached").isNull();
        assertThat(client.status().fresh()).isTrue();
        assertThat(items.get(id, TransactionalLoadsIT::readCommitted)).isEqualTo("new name");
    }

    @Test
    void aValueTheTransactionWroteItselfAndRolledBackIsNeverCached() throws Exception {
        long id = ids.incrementAndGet();
        mariaDb.execute(DB, "INSERT INTO item VALUES (" + id + ", 'committed name')");
        InvalidatingCache<Long, String> items = client.cache("items");
        double droppedBefore = dropped();

        try (Connection connection = mariaDb.adminConnection(DB);
                CacheTransaction tx = CacheTransaction.begin().isolation(Isolation.REPEATABLE_READ)) {
            connection.setAutoCommit(false);
            try (Statement s = connection.createStatement()) {
                s.executeUpdate("UPDATE item SET name = 'never committed' WHERE id = " + id);
            }
            assertThat(items.get(id, key -> read(connection, key))).isEqualTo("never committed");
            connection.rollback();
            tx.rollback();
        }

        assertThat(items.lookup(id)).isNull();
        assertThat(dropped()).isEqualTo(droppedBefore + 1);
        assertThat(items.get(id, TransactionalLoadsIT::readCommitted)).isEqualTo("committed name");
        // a load outside the transaction is cached, once the INSERT's own event (which may arrive during a load and
        // keep that one load out of the cache) has been applied
        await().atMost(CONVERGE).untilAsserted(() -> {
            items.get(id, TransactionalLoadsIT::readCommitted);
            assertThat(items.lookup(id)).isNotNull();
        });
        assertThat(items.lookup(id).value()).isEqualTo("committed name");
    }

    @Test
    void aReadCommittedTransactionCachesWhatItReadAfterAnAppliedChangeOnceItCommits() throws Exception {
        long id = ids.incrementAndGet();
        mariaDb.execute(DB, "INSERT INTO item VALUES (" + id + ", 'old name')");
        InvalidatingCache<Long, String> items = client.cache("items");
        items.get(id, TransactionalLoadsIT::readCommitted);

        try (Connection connection = mariaDb.adminConnection(DB);
                CacheTransaction tx = CacheTransaction.begin().isolation(Isolation.READ_COMMITTED)) {
            connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            connection.setAutoCommit(false);
            try (Statement s = connection.createStatement()) {
                s.executeQuery("SELECT id FROM other").close();
            }
            mariaDb.execute(DB, "UPDATE item SET name = 'new name' WHERE id = " + id);
            await().atMost(CONVERGE).until(() -> items.lookup(id) == null);

            assertThat(items.get(id, key -> read(connection, key))).isEqualTo("new name");
            assertThat(items.lookup(id)).as("kept aside until the commit").isNull();
            connection.commit();
            tx.commit();
        }
        assertThat(items.lookup(id).value()).isEqualTo("new name");
    }

    private static double dropped() {
        var counter = registry.find("cdc.client.loads.dropped").tag("reason", "rolled_back")
                .counter();
        return counter == null ? 0 : counter.count();
    }

    private static String readCommitted(Long id) {
        try (Connection connection = mariaDb.adminConnection(DB)) {
            return read(connection, id);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String read(Connection connection, Long id) {
        try (PreparedStatement ps = connection.prepareStatement("SELECT name FROM item WHERE id = ?")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
