package dev.cdccache.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.cache.CachedValue;
import dev.cdccache.client.position.CommitPosition;
import dev.cdccache.client.position.ReadYourWrites;
import dev.cdccache.client.spring.CdcInvalidationAutoConfiguration;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.connector.ConnectorProcess;
import dev.cdccache.infra.mariadb.MariaDbServer;
import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Read-your-writes against the whole stack: a Spring service writes a row in a Spring-managed transaction and reads it
 * back through the cache on the same instance, with no read-your-writes code of its own, while the connector is held
 * (its process stopped with SIGSTOP), so the write's invalidation cannot reach the cache. With
 * {@code read-your-writes.enabled} every read returns the new value (waiting, then bypassing the cache); without it,
 * the cached old value is served.
 */
class ReadYourWritesIT {

    private static final String DB = "read_your_writes_db";
    private static final Duration CONVERGE = Duration.ofSeconds(30);
    private static final int READS = 200;

    private static LocalStack stack;
    private static MariaDbServer mariaDb;
    private static ConnectorProcess connector;
    private static final AtomicLong ids = new AtomicLong(100);
    private boolean held;

    @BeforeAll
    static void startEverything() {
        stack = LocalStack.shared();
        mariaDb = stack.mariaDb();
        mariaDb.createDatabase(DB);
        mariaDb.execute(DB, "CREATE TABLE IF NOT EXISTS item (id BIGINT PRIMARY KEY, name VARCHAR(64) NOT NULL)");
        connector = ConnectorProcess.builder(ConnectorJar.path(), stack)
                .tables(List.of(DB + ".item"))
                .name("read-your-writes-it")
                .build()
                .start();
    }

    @AfterAll
    static void stopEverything() {
        if (connector != null) {
            connector.stop();
        }
    }

    @AfterEach
    void releaseTheConnector() throws Exception {
        if (held) {
            signal("CONT");
            held = false;
        }
    }

    private ApplicationContextRunner service(boolean readYourWrites) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CdcInvalidationAutoConfiguration.class))
                .withUserConfiguration(App.class)
                .withPropertyValues("cdc.invalidation.bootstrap-servers=" + stack.kafka().bootstrapServers(),
                        "cdc.invalidation.await-ready=30s", "cdc.invalidation.max-staleness=10s",
                        "cdc.invalidation.caches.items.table=" + DB + ".item",
                        "cdc.invalidation.caches.items.key-columns=id",
                        "cdc.invalidation.read-your-writes.enabled=" + readYourWrites);
    }

    /** Holds the connector: nothing it has not published yet reaches Kafka until {@link #releaseTheConnector}. */
    private void holdTheConnector() throws Exception {
        signal("STOP");
        held = true;
    }

    private static void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(connector.pid())).inheritIO().start();
        assertThat(kill.waitFor()).as("kill -" + name).isZero();
    }

    /**
     * A new row, cached once the client applied its insert (so that the insert's own invalidation cannot remove the
     * entry later), and the client shown fresh.
     */
    private static long cachedItem(ApplicationContext context, ItemService service) throws Exception {
        long id = ids.incrementAndGet();
        service.create(id, "old name");
        CommitPosition inserted = serverPosition();
        InvalidationClient client = context.getBean(InvalidationClient.class);
        await().atMost(CONVERGE).until(() -> client.readYourWrites().isApplied("items", inserted));
        await().atMost(CONVERGE).untilAsserted(() -> {
            assertThat(service.name(id)).isEqualTo("old name");
            assertThat(service.items().lookup(id)).as("cached").isNotNull();
        });
        await().atMost(CONVERGE).until(() -> client.status().fresh());
        return id;
    }

    private static CommitPosition serverPosition() throws Exception {
        try (Connection connection = mariaDb.adminConnection(DB); Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@gtid_binlog_pos")) {
            rs.next();
            return CommitPosition.parse(rs.getString(1)).orElseThrow();
        }
    }

    @Test
    void aServiceReadingBackItsOwnWriteAlwaysGetsTheNewValueWhileTheConnectorIsHeld() throws Exception {
        service(true).run(context -> {
            ItemService service = context.getBean(ItemService.class);
            ReadYourWrites readYourWrites = context.getBean(InvalidationClient.class).readYourWrites();
            long id = cachedItem(context, service);
            await().atMost(CONVERGE).until(() -> readYourWrites.isApplied("items", readYourWrites.floor()));

            holdTheConnector();
            service.rename(id, "new name");
            for (int i = 0; i < READS; i++) {
                assertThat(service.name(id)).as("read %d after the write", i).isEqualTo("new name");
            }
            assertThat(CachedValue.<String>valueOf(service.items().caffeine().getIfPresent(id)))
                    .as("the old entry still waits for its invalidation").isEqualTo("old name");
            assertThat(readYourWrites.count("items", ReadYourWrites.Outcome.BYPASSED)).isGreaterThanOrEqualTo(READS);

            releaseTheConnector();
            await().atMost(CONVERGE).until(() -> readYourWrites.isApplied("items", readYourWrites.floor()));
            assertThat(service.name(id)).isEqualTo("new name");
            assertThat(service.items().lookup(id).value()).as("cached again once proven").isEqualTo("new name");
        });
    }

    @Test
    void readsRightAfterEachOfManyWritesGetTheNewValueWithTheConnectorRunning() {
        service(true).run(context -> {
            ItemService service = context.getBean(ItemService.class);
            long id = cachedItem(context, service);
            for (int round = 0; round < 20; round++) {
                String name = "name " + round;
                service.rename(id, name);
                for (int i = 0; i < 10; i++) {
                    assertThat(service.name(id)).as("round %d, read %d", round, i).isEqualTo(name);
                }
            }
        });
    }

    @Test
    void withoutReadYourWritesTheCachedOldValueIsServedAfterTheWrite() throws Exception {
        service(false).run(context -> {
            ItemService service = context.getBean(ItemService.class);
            long id = cachedItem(context, service);

            holdTheConnector();
            service.rename(id, "new name");

            assertThat(service.name(id)).as("the gap read-your-writes closes").isEqualTo("old name");
        });
    }

    /** The application: a transactional service reading through the cache, with no read-your-writes code. */
    static class ItemService {
        private final JdbcTemplate jdbc;
        private final TransactionTemplate tx;
        private final InvalidationClient client;

        ItemService(JdbcTemplate jdbc, TransactionTemplate tx, InvalidationClient client) {
            this.jdbc = jdbc;
            this.tx = tx;
            this.client = client;
        }

        InvalidatingCache<Long, String> items() {
            return client.cache("items");
        }

        void create(long id, String name) {
            tx.executeWithoutResult(status -> jdbc.update("INSERT INTO item VALUES (?, ?)", id, name));
        }

        void rename(long id, String name) {
            tx.executeWithoutResult(status -> jdbc.update("UPDATE item SET name = ? WHERE id = ?", name, id));
        }

        String name(long id) {
            return items().get(id, key -> jdbc.query("SELECT name FROM item WHERE id = ?",
                    rs -> rs.next() ? rs.getString(1) : null, key));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class App {

        @Bean
        DataSource dataSource() throws Exception {
            return new SimpleDriverDataSource(new org.mariadb.jdbc.Driver(), mariaDb.jdbcUrl(DB), mariaDb.appUser(),
                    mariaDb.appPassword());
        }

        @Bean
        DataSourceTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        ItemService itemService(DataSource dataSource, DataSourceTransactionManager transactionManager,
                InvalidationClient client) {
            return new ItemService(new JdbcTemplate(dataSource), new TransactionTemplate(transactionManager), client);
        }
    }
}
