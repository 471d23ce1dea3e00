package dev.cdccache.client.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.StalenessPolicy;
import dev.cdccache.client.cache.CachedValue;
import dev.cdccache.client.cache.ConsistencySampler;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.mariadb.MariaDbServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Consistency sampling of plain (non-{@code sync}) {@code @Cacheable} methods against a real MariaDB: a sampled hit is
 * re-read by calling the method again on its target bean, on the sampler's thread, in a read-only transaction, and
 * compared with the cached value. Invalidations are applied the way the consumer applies them, right after the
 * writer's commit (the event path is covered end to end elsewhere); a change made "without invalidation" is one the
 * client never hears of, which is what the sampler exists to find.
 */
class CacheableConsistencySamplingIT {

    private static final String DB = "cacheable_sampling_db";
    /** The sampler's bound: a differing sample is decided one bound later. */
    private static final Duration MAX_STALENESS = Duration.ofMillis(500);
    private static final AtomicLong ids = new AtomicLong(100);
    private static MariaDbServer mariaDb;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CdcInvalidationAutoConfiguration.class))
            .withUserConfiguration(App.class)
            .withPropertyValues("cdc.invalidation.bootstrap-servers=unused:1", "cdc.invalidation.await-ready=5s");
    /** Every hit sampled, as the client's own settings say (App reads the property too). */
    private final ApplicationContextRunner sampling = runner.withPropertyValues("cdc.invalidation.sampling.one-in=1");

    @BeforeAll
    static void database() {
        mariaDb = LocalStack.shared().mariaDb();
        mariaDb.createDatabase(DB);
        mariaDb.execute(DB, "CREATE TABLE IF NOT EXISTS item (id BIGINT PRIMARY KEY, name VARCHAR(64) NOT NULL)");
    }

    private static long newItem(String name) {
        long id = ids.incrementAndGet();
        mariaDb.execute(DB, "INSERT INTO item VALUES (" + id + ", '" + name + "')");
        return id;
    }

    /** A change the client never hears of: no invalidation follows it. */
    private static void renameBehindTheCachesBack(long id, String name) {
        mariaDb.execute(DB, "UPDATE item SET name = '" + name + "' WHERE id = " + id);
    }

    @Test
    void aPlainCacheableMethodWhoseCachedValueWasMadeStaleIsReportedStaleByItsFirstSampledHit() {
        sampling.run(context -> {
            Items items = context.getBean(Items.class);
            long id = newItem("old name");
            assertThat(items.find(id)).isEqualTo("old name"); // miss: cached
            renameBehindTheCachesBack(id, "new name");

            assertThat(items.find(id)).as("the hit serves the cached value").isEqualTo("old name");

            ConsistencySampler.Counts counts = counts(context, "items");
            await(() -> counts.stale() + counts.consistent() + counts.inconclusive() == 1);
            assertThat(counts.stale()).as("one hit, sampled at one-in 1, re-read twice, stale").isEqualTo(1);
            assertThat(items.calls().stream().filter(Call::bySampler).map(Call::readOnly))
                    .as("the method called again by the sampler: the first re-read, and the recheck one bound later")
                    .containsExactly(true, true);
            assertThat(items(context).lookup(id)).as("the re-reads store nothing; the stale entry is evicted").isNull();
            assertThat(items.find(id)).as("the next read loads what the database holds").isEqualTo("new name");
        });
    }

    @Test
    void aCorrectCacheUnderConcurrentChangesWithInvalidationsHasNoStaleSample() throws Exception {
        sampling.run(context -> {
            Items items = context.getBean(Items.class);
            InvalidatingCache<Long, String> cache = items(context);
            List<Long> keys = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                keys.add(newItem("v0"));
            }
            AtomicBoolean running = new AtomicBoolean(true);
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            List<Thread> threads = new ArrayList<>();
            threads.add(new Thread(() -> {
                try {
                    for (int version = 1; running.get(); version++) {
                        long id = keys.get(version % keys.size());
                        mariaDb.execute(DB, "UPDATE item SET name = 'v" + version + "' WHERE id = " + id);
                        cache.invalidate(id); // what the consumer does once the change's event arrives
                        Thread.sleep(5);
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "writer"));
            for (int r = 0; r < 2; r++) {
                threads.add(new Thread(() -> {
                    try {
                        while (running.get()) {
                            items.find(keys.get(ThreadLocalRandom.current().nextInt(keys.size())));
                            Thread.sleep(1);
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }, "reader-" + r));
            }
            threads.forEach(Thread::start);
            // At least 3 s of changes, longer on a slow machine until enough samples were decided (at most 30 s).
            ConsistencySampler.Counts sampled = counts(context, "items");
            long start = System.nanoTime();
            while (System.nanoTime() - start < TimeUnit.SECONDS.toNanos(3)
                    || sampled.consistent() + sampled.stale() <= 20
                    && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(30)) {
                Thread.sleep(50);
            }
            running.set(false);
            for (Thread thread : threads) {
                thread.join();
            }
            ConsistencySampler.Counts counts = counts(context, "items");
            // Samples taken just before the stop are decided one bound later.
            Thread.sleep(MAX_STALENESS.toMillis() * 3);

            assertThat(failures).isEmpty();
            assertThat(counts.consistent()).as("samples decided consistent (inconclusive " + counts.inconclusive() + ")").isGreaterThan(20);
            assertThat(counts.stale()).as("stale samples").isZero();
        });
    }

    @Test
    void theReInvocationRunsOnTheSamplersThreadInAReadOnlyTransactionAndStoresNothing() {
        sampling.run(context -> {
            TransactionalItems items = context.getBean(TransactionalItems.class);
            InvalidatingCache<Long, String> cache = items(context);
            long id = newItem("name");
            items.find(id);
            Object cached = cache.caffeine().asMap().get(id); // the entry as stored: counts no hit
            long hitsBefore = cache.caffeine().stats().hitCount();
            long missesBefore = cache.caffeine().stats().missCount();

            assertThat(items.find(id)).isEqualTo("name");

            ConsistencySampler.Counts counts = counts(context, "items");
            await(() -> counts.consistent() == 1);
            List<Call> resampled = items.calls().stream().filter(Call::bySampler).toList();
            assertThat(resampled).hasSize(1);
            assertThat(resampled.get(0).inTransaction()).as("in a transaction").isTrue();
            assertThat(resampled.get(0).readOnly())
                    .as("read-only, though the method's own @Transactional is read-write").isTrue();
            assertThat(items.calls().stream().filter(call -> !call.bySampler()).map(Call::readOnly))
                    .as("the request's own calls keep the method's read-write transaction").containsOnly(false);
            assertThat(cache.caffeine().stats().hitCount()).as("only the request's hit").isEqualTo(hitsBefore + 1);
            assertThat(cache.caffeine().stats().missCount()).isEqualTo(missesBefore);
            assertThat(cache.caffeine().asMap().get(id)).as("the re-invocation stored nothing").isSameAs(cached);
        });
    }

    @Test
    void anOptionalMethodIsComparedByItsContentAndACachedAbsenceWithTheRowInsertedSinceIsStale() {
        sampling.run(context -> {
            Items items = context.getBean(Items.class);
            long id = ids.incrementAndGet();
            assertThat(items.findOptional(id)).isEmpty(); // cached as absent
            mariaDb.execute(DB, "INSERT INTO item VALUES (" + id + ", 'inserted')");

            assertThat(items.findOptional(id)).isEmpty();

            ConsistencySampler.Counts counts = counts(context, "items");
            await(() -> counts.stale() == 1);
            long present = newItem("present");
            items.findOptional(present);
            items.findOptional(present);
            await(() -> counts.consistent() == 1);
            assertThat(counts.stale()).isEqualTo(1);
        });
    }

    @Test
    void aCacheOptedOutOfSamplingIsNotReRead() {
        sampling.run(context -> {
            Items items = context.getBean(Items.class);
            long id = newItem("old name");
            items.findUnsampled(id);
            renameBehindTheCachesBack(id, "new name");
            assertThat(items.findUnsampled(id)).isEqualTo("old name");

            Thread.sleep(MAX_STALENESS.toMillis() * 3);
            assertThat(items.calls().stream().filter(Call::bySampler)).isEmpty();
            assertThat(counts(context, "items").stale()).isZero();
        });
    }

    @Test
    void withSamplingOffAPlainCacheableMethodIsNotAdvisedAndNeverCalledAgain() {
        runner.run(context -> {
            assertThat(context).doesNotHaveBean(CacheableSamplingAdvisor.class);
            assertThat(context.getBean(InvalidationClient.class).consistencySampler()).isEmpty();
            Items items = context.getBean(Items.class);
            long id = newItem("old name");
            items.find(id);
            renameBehindTheCachesBack(id, "new name");

            assertThat(items.find(id)).isEqualTo("old name");

            Thread.sleep(MAX_STALENESS.toMillis() * 3);
            assertThat(items.calls()).hasSize(1);
            assertThat(items(context).lookup(id).value()).isEqualTo("old name");
        });
    }

    private static InvalidatingCache<Long, String> items(ApplicationContext context) {
        return context.getBean(CdcCacheManager.class).invalidatingCache("items");
    }

    private static ConsistencySampler.Counts counts(ApplicationContext context, String cache) {
        return context.getBean(InvalidationClient.class).consistencySampler().orElseThrow().counts(cache);
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("timed out").isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    /** One call of a cached method's body: on which thread, and in what transaction. */
    record Call(String thread, boolean inTransaction, boolean readOnly) {

        static Call now() {
            return new Call(Thread.currentThread().getName(), TransactionSynchronizationManager.isActualTransactionActive(),
                    TransactionSynchronizationManager.isCurrentTransactionReadOnly());
        }

        boolean bySampler() {
            return thread.equals("cdc-consistency-sampler");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableCaching
    @EnableTransactionManagement
    static class App {

        @Bean
        InvalidationClient invalidationClient(org.springframework.core.env.Environment environment) {
            return MockKafka.readyClient(InvalidationClientConfig.builder().bootstrapServers("unused:1")
                    .maxStaleness(MAX_STALENESS)
                    // The in-memory log proves no freshness: entries must stay servable for the rechecks (the
                    // staleness guard is not what is under test here).
                    .stalenessPolicy(StalenessPolicy.SERVE_STALE)
                    .samplingOneIn(environment.getProperty("cdc.invalidation.sampling.one-in", Integer.class, 0))
                    .samplingMaxPerSecond(100)
                    .cache(CacheDefinition.builder("items").table(DB + ".item").keyColumns("id").build())
                    .cache(CacheDefinition.builder("unsampled").table(DB + ".item").keyColumns("id").sampled(false)
                            .build())
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
        Items items(JdbcTemplate jdbc) {
            return new Items(jdbc);
        }

        @Bean
        TransactionalItems transactionalItems(JdbcTemplate jdbc) {
            return new TransactionalItems(jdbc);
        }
    }

    static class Items {
        final List<Call> calls = new CopyOnWriteArrayList<>();
        private final JdbcTemplate jdbc;

        Items(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        /** The calls so far (a method: the bean is a subclass proxy, whose own fields are empty). */
        public List<Call> calls() {
            return calls;
        }

        @Cacheable("items")
        public String find(Long id) {
            calls.add(Call.now());
            return read(jdbc, id);
        }

        @Cacheable("items")
        public Optional<String> findOptional(Long id) {
            calls.add(Call.now());
            return Optional.ofNullable(read(jdbc, id));
        }

        @Cacheable("unsampled")
        public String findUnsampled(Long id) {
            calls.add(Call.now());
            return read(jdbc, id);
        }
    }

    /** A cached method with its own (read-write) transaction, which the sampled re-invocation does not go through. */
    static class TransactionalItems {
        final List<Call> calls = new CopyOnWriteArrayList<>();
        private final JdbcTemplate jdbc;

        TransactionalItems(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        /** The calls so far (a method: the bean is a subclass proxy, whose own fields are empty). */
        public List<Call> calls() {
            return calls;
        }

        @Transactional
        @Cacheable("items")
        public String find(Long id) {
            calls.add(Call.now());
            return read(jdbc, id);
        }
    }

    private static String read(JdbcTemplate jdbc, Long id) {
        return jdbc.query("SELECT name FROM item WHERE id = ?", rs -> rs.next() ? rs.getString(1) : null, id);
    }
}
