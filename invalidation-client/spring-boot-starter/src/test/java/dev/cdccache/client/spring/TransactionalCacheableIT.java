package dev.cdccache.client.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.cache.CacheTransaction;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.mariadb.MariaDbServer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Isolation;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/**
 * {@code @Cacheable} repositories called from {@code @Transactional} services, against a real MariaDB at its default
 * REPEATABLE READ: the common shape of a Spring service. Invalidations are applied to the cache the way the
 * consumer applies them, right after the other writer's commit (the event path is covered end to end elsewhere);
 * what is under test is what the database returns inside the transaction and what the cache keeps of it.
 */
class TransactionalCacheableIT {

    private static final String DB = "tx_cacheable_db";
    private static final AtomicLong ids = new AtomicLong(100);
    private static MariaDbServer mariaDb;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CdcInvalidationAutoConfiguration.class))
            .withUserConfiguration(App.class)
            .withPropertyValues("cdc.invalidation.bootstrap-servers=unused:1", "cdc.invalidation.await-ready=5s");

    @BeforeAll
    static void database() {
        mariaDb = LocalStack.shared().mariaDb();
        mariaDb.createDatabase(DB);
        mariaDb.execute(DB, "CREATE TABLE IF NOT EXISTS item (id BIGINT PRIMARY KEY, name VARCHAR(64) NOT NULL)",
                "CREATE TABLE IF NOT EXISTS other (id BIGINT PRIMARY KEY)", "INSERT IGNORE INTO other VALUES (1)");
    }

    private static long newItem(String name) {
        long id = ids.incrementAndGet();
        mariaDb.execute(DB, "INSERT INTO item VALUES (" + id + ", '" + name + "')");
        return id;
    }

    @Test
    void aTransactionalServiceWhoseSnapshotPredatesAnAppliedChangeDoesNotCacheTheOldRow() {
        runner.run(context -> {
            Service service = context.getBean(Service.class);
            InvalidatingCache<Long, String> items = items(context);
            long id = newItem("old name");

            String read = service.readOtherThen(() -> otherWriterRenames(items, id, "new name"), id, false);

            assertThat(read).as("the transaction's snapshot predates the change").isEqualTo("old name");
            assertThat(items.lookup(id)).isNull();
            assertThat(context.getBean(Repository.class).find(id)).isEqualTo("new name");
            assertThat(items.lookup(id).value()).isEqualTo("new name");
        });
    }

    @Test
    void theSameHoldsForCacheableWithSync() {
        runner.run(context -> {
            Service service = context.getBean(Service.class);
            InvalidatingCache<Long, String> items = items(context);
            long id = newItem("old name");

            assertThat(service.readOtherThen(() -> otherWriterRenames(items, id, "new name"), id, true))
                    .isEqualTo("old name");

            assertThat(items.lookup(id)).isNull();
        });
    }

    @Test
    void aValueTheTransactionWroteItselfAndThenRolledBackIsNeverCached() {
        runner.run(context -> {
            Service service = context.getBean(Service.class);
            InvalidatingCache<Long, String> items = items(context);
            long id = newItem("committed name");

            assertThatThrownBy(() -> service.renameReadAndFail(id, "never committed"))
                    .hasMessageContaining("never committed");

            assertThat(items.lookup(id)).isNull();
            assertThat(context.getBean(Repository.class).find(id)).isEqualTo("committed name");
        });
    }

    @Test
    void aNestedTransactionRolledBackToItsSavepointLeavesNothingItReadWhileTheOuterOneCachesItsOwn() {
        runner.run(context -> {
            Service service = context.getBean(Service.class);
            InvalidatingCache<Long, String> items = items(context);
            long outerId = newItem("outer");
            long innerId = newItem("committed inner");

            service.readThenNestedRenameThatFails(outerId, innerId, "rolled back inner");

            assertThat(items.lookup(outerId).value()).isEqualTo("outer");
            assertThat(items.lookup(innerId)).isNull();
            assertThat(context.getBean(Repository.class).find(innerId)).isEqualTo("committed inner");
        });
    }

    @Test
    void valuesReadInsideATransactionAreCachedOnlyOnceItCommits() {
        runner.run(context -> {
            Service service = context.getBean(Service.class);
            InvalidatingCache<Long, String> items = items(context);
            long id = newItem("name");

            String inside = service.readOtherThen(() -> assertThat(CacheTransaction.current()).isNotNull(), id, false,
                    () -> assertThat(items.lookup(id)).as("not before the commit").isNull());

            assertThat(inside).isEqualTo("name");
            assertThat(items.lookup(id).value()).isEqualTo("name");
            assertThat(CacheTransaction.current()).isNull();
        });
    }

    @Test
    void aReadCommittedTransactionCachesWhatItReadAfterAnAppliedChange() {
        runner.run(context -> {
            Service service = context.getBean(Service.class);
            InvalidatingCache<Long, String> items = items(context);
            long id = newItem("old name");

            assertThat(service.readOtherThenReadCommitted(() -> otherWriterRenames(items, id, "new name"), id))
                    .isEqualTo("new name");

            assertThat(items.lookup(id).value()).isEqualTo("new name");
        });
    }

    @Test
    void anIndependentTransactionStoresOnItsOwnCommit() {
        runner.run(context -> {
            Service service = context.getBean(Service.class);
            InvalidatingCache<Long, String> items = items(context);
            long id = newItem("name");

            service.readOtherThen(() -> {
                assertThat(context.getBean(Inner.class).findInNewTransaction(id)).isEqualTo("name");
                assertThat(items.lookup(id).value()).as("stored when the inner transaction committed")
                        .isEqualTo("name");
            }, ids.incrementAndGet(), false);
        });
    }

    private static InvalidatingCache<Long, String> items(org.springframework.context.ApplicationContext context) {
        return context.getBean(CdcCacheManager.class).invalidatingCache("items");
    }

    /** Another writer commits a change and the client applies its invalidation (what the consumer does). */
    private static void otherWriterRenames(InvalidatingCache<Long, String> items, long id, String name) {
        mariaDb.execute(DB, "UPDATE item SET name = '" + name + "' WHERE id = " + id);
        items.invalidate(id);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableCaching
    @EnableTransactionManagement
    static class App {

        @Bean
        InvalidationClient invalidationClient() {
            return MockKafka.readyClient(InvalidationClientConfig.builder().bootstrapServers("unused:1")
                    .maxStaleness(Duration.ofSeconds(30))
                    .cache(CacheDefinition.builder("items").table(DB + ".item").keyColumns("id").build())
                    .build());
        }

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
        JdbcTemplate jdbcTemplate(DataSource dataSource) {
            return new JdbcTemplate(dataSource);
        }

        @Bean
        Repository repository(JdbcTemplate jdbc) {
            return new Repository(jdbc);
        }

        @Bean
        Inner inner(Repository repository) {
            return new Inner(repository);
        }

        @Bean
        Service service(JdbcTemplate jdbc, Repository repository, Inner inner) {
            return new Service(jdbc, repository, inner);
        }
    }

    static class Repository {
        private final JdbcTemplate jdbc;

        Repository(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @Cacheable("items")
        public String find(Long id) {
            return read(id);
        }

        @Cacheable(cacheNames = "items", sync = true)
        public String findSync(Long id) {
            return read(id);
        }

        private String read(Long id) {
            return jdbc.query("SELECT name FROM item WHERE id = ?", rs -> rs.next() ? rs.getString(1) : null, id);
        }
    }

    static class Inner {
        private final Repository repository;

        Inner(Repository repository) {
            this.repository = repository;
        }

        @Transactional(propagation = Propagation.REQUIRES_NEW)
        public String findInNewTransaction(Long id) {
            return repository.find(id);
        }

        @Transactional(propagation = Propagation.NESTED)
        public String renameAndReadThenFail(Long id, String name, JdbcTemplate jdbc) {
            jdbc.update("UPDATE item SET name = ? WHERE id = ?", name, id);
            throw new IllegalStateException("read " + repository.find(id));
        }
    }

    static class Service {
        private final JdbcTemplate jdbc;
        private final Repository repository;
        private final Inner inner;

        Service(JdbcTemplate jdbc, Repository repository, Inner inner) {
            this.jdbc = jdbc;
            this.repository = repository;
            this.inner = inner;
        }

        /** Reads another table first (which fixes the snapshot), runs {@code between}, then reads the item. */
        @Transactional
        public String readOtherThen(Runnable between, long id, boolean sync, Runnable... beforeCommit) {
            jdbc.queryForList("SELECT id FROM other");
            between.run();
            String value = sync ? repository.findSync(id) : repository.find(id);
            for (Runnable check : beforeCommit) {
                check.run();
            }
            return value;
        }

        @Transactional(isolation = Isolation.READ_COMMITTED)
        public String readOtherThenReadCommitted(Runnable between, long id) {
            jdbc.queryForList("SELECT id FROM other");
            between.run();
            return repository.find(id);
        }

        /** Writes the row, reads it back through the cache (its own uncommitted write), then fails. */
        @Transactional
        public void renameReadAndFail(long id, String name) {
            jdbc.update("UPDATE item SET name = ? WHERE id = ?", name, id);
            throw new IllegalStateException("read " + repository.find(id));
        }

        @Transactional
        public void readThenNestedRenameThatFails(long outerId, long innerId, String name) {
            repository.find(outerId);
            try {
                inner.renameAndReadThenFail(innerId, name, jdbc);
            } catch (IllegalStateException expected) {
                // rolled back to the savepoint; the outer transaction goes on and commits
            }
        }
    }
}
