package dev.cdccache.client.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.annotation.CachePut;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.Caching;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * No stale populate (docs/client.md, guarantee 3) through Spring's caching annotations: a {@code @Cacheable} method reads the old row, the
 * change's invalidation is applied, then the method returns. With {@code sync = false} Spring does
 * get (miss) - method - put; with {@code sync = true} it calls get(key, loader). Neither may cache the old row.
 */
class CacheableNoStalePopulateTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CdcInvalidationAutoConfiguration.class))
            .withUserConfiguration(App.class)
            .withPropertyValues("cdc.invalidation.bootstrap-servers=unused:1", "cdc.invalidation.await-ready=5s");

    @Test
    void cacheableWithoutSyncDoesNotCacheARowReadBeforeAnAppliedInvalidation() {
        runner.run(context -> assertNoStalePopulate(context.getBean(CouponService.class),
                context.getBean(Rows.class), context.getBean(CdcCacheManager.class), false));
    }

    @Test
    void cacheableWithSyncDoesNotCacheARowReadBeforeAnAppliedInvalidation() {
        runner.run(context -> assertNoStalePopulate(context.getBean(CouponService.class),
                context.getBean(Rows.class), context.getBean(CdcCacheManager.class), true));
    }

    @Test
    void cacheableHitsAndMissesUseTheLongKeyThatEventsEvict() {
        runner.run(context -> {
            CouponService service = context.getBean(CouponService.class);
            Rows rows = context.getBean(Rows.class);
            rows.database.put(3L, "three");
            assertThat(service.find(3L)).isEqualTo("three");
            assertThat(service.find(3L)).isEqualTo("three");
            assertThat(rows.reads).hasValue(1);
            InvalidatingCache<Long, String> coupons = context.getBean(CdcCacheManager.class).invalidatingCache("coupons");
            assertThat(coupons.getIfPresent(3L)).isEqualTo("three");
            coupons.invalidate(3L); // what the consumer does for {"id":3}
            rows.database.put(3L, "THREE");
            assertThat(service.find(3L)).isEqualTo("THREE");
            assertThat(service.findAbsent(404L)).isNull();
            assertThat(service.findAbsent(404L)).isNull();
            assertThat(rows.reads).hasValue(3); // the absence was cached
        });
    }

    @Test
    void nestedCacheableOnTheSameCacheDoesNotCacheTheOuterRowReadBeforeAnAppliedInvalidation() {
        runner.run(context -> assertOldRowNotCached(context, id -> context.getBean(Outer.class).findWithRelated(id)));
    }

    @Test
    void nestedCacheableOfTheSameKeyMatchesEachPutToItsOwnMissAndCachesOnlyTheRowReadAfterTheInvalidation() {
        runner.run(context -> {
            Rows rows = context.getBean(Rows.class);
            CdcCacheManager manager = context.getBean(CdcCacheManager.class);
            InvalidatingCache<Long, String> coupons = manager.invalidatingCache("coupons");
            rows.database.put(1L, "old");
            rows.pauseAfterRead = new CountDownLatch(1);
            rows.resume = new CountDownLatch(1);

            // The outer invocation reads "old" and is held; the change is applied; then its inner invocation of the
            // same key misses again and reads "new". Each put is checked against its own invocation's stamp.
            CompletableFuture<String> result = CompletableFuture.supplyAsync(
                    () -> context.getBean(Outer.class).findTwice(1L));
            assertThat(rows.pauseAfterRead.await(5, TimeUnit.SECONDS)).isTrue();
            rows.pauseAfterRead = null;
            rows.database.put(1L, "new");
            coupons.invalidate(1L);
            rows.resume.countDown();

            assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("old");
            assertThat(coupons.getIfPresent(1L)).as("the inner load, stamped after the invalidation, is cached; the "
                    + "outer one, stamped before it, is not").isEqualTo("new");
            CdcSpringCache spring = (CdcSpringCache) manager.getCache("coupons");
            assertThat(spring.unverifiedPuts()).as("no put was left without its own stamp").isZero();
        });
    }

    @Test
    void cachingWithTwoOperationsOnOneCacheDoesNotCacheARowReadBeforeAnAppliedInvalidation() {
        runner.run(context -> {
            assertOldRowNotCached(context, id -> context.getBean(CouponService.class).findUnderTwoKeys(id));
            InvalidatingCache<Long, String> coupons = context.getBean(CdcCacheManager.class).invalidatingCache("coupons");
            assertThat(coupons.getIfPresent(1001L)).as("the other key's load was not invalidated").isEqualTo("old");
        });
    }

    @Test
    void cachePutOfARowReadBeforeAnAppliedInvalidationIsNotStored() {
        runner.run(context -> {
            assertOldRowNotCached(context, id -> context.getBean(CouponService.class).refresh(id));
            CdcSpringCache spring = (CdcSpringCache) context.getBean(CdcCacheManager.class).getCache("coupons");
            assertThat(spring.unverifiedPuts()).as("the dropped put is counted").isEqualTo(1);
        });
    }

    @Test
    void aCachePutOnAPooledThreadNeverUsesTheStampOfAnEarlierInvocationsMissWhosePutNeverCame() {
        runner.run(context -> {
            CouponService service = context.getBean(CouponService.class);
            Rows rows = context.getBean(Rows.class);
            InvalidatingCache<Long, String> coupons = context.getBean(CdcCacheManager.class)
                    .invalidatingCache("coupons");
            java.util.concurrent.ExecutorService pooled = java.util.concurrent.Executors.newSingleThreadExecutor();
            try {
                rows.database.put(7L, "old");
                String readEarlier = rows.database.get(7L); // e.g. a value that travelled through a queue
                rows.database.put(7L, "new");
                coupons.invalidate(7L);

                // One request on the pooled thread misses and never puts (unless); a later one publishes the
                // earlier value with @CachePut. The first request's stamp, taken after the invalidation, must not
                // vouch for it.
                assertThat(pooled.submit(() -> service.peek(7L)).get(5, TimeUnit.SECONDS)).isEqualTo("new");
                pooled.submit(() -> service.publish(7L, readEarlier)).get(5, TimeUnit.SECONDS);

                assertThat(coupons.getIfPresent(7L)).isNull();
                assertThat(service.find(7L)).isEqualTo("new");
            } finally {
                pooled.shutdownNow();
            }
        });
    }

    @Test
    void cachePutEvictsTheKeySoTheNextReadLoadsTheWrittenRow() {
        runner.run(context -> {
            CouponService service = context.getBean(CouponService.class);
            Rows rows = context.getBean(Rows.class);
            rows.database.put(5L, "v1");
            assertThat(service.find(5L)).isEqualTo("v1");
            rows.database.put(5L, "v2"); // the application's own write...
            assertThat(service.refresh(5L)).isEqualTo("v2"); // ...and its @CachePut, which cannot be verified
            assertThat(service.find(5L)).as("read-your-writes: the old entry was evicted").isEqualTo("v2");
        });
    }

    /**
     * Runs {@code call} for key 1 while its database read is held until the row changed and the invalidation was
     * applied; the old row must be returned but not cached, and the next read must load the new row.
     */
    private static void assertOldRowNotCached(org.springframework.context.ApplicationContext context,
            java.util.function.LongFunction<String> call) throws Exception {
        Rows rows = context.getBean(Rows.class);
        CdcCacheManager manager = context.getBean(CdcCacheManager.class);
        InvalidatingCache<Long, String> coupons = manager.invalidatingCache("coupons");
        assertThat(manager.client().isReady()).isTrue();
        rows.database.put(1L, "old");
        rows.database.put(101L, "related");
        rows.database.put(1001L, "old");
        rows.pauseAfterRead = new CountDownLatch(1);
        rows.resume = new CountDownLatch(1);

        CompletableFuture<String> result = CompletableFuture.supplyAsync(() -> call.apply(1L));
        assertThat(rows.pauseAfterRead.await(5, TimeUnit.SECONDS)).isTrue();
        rows.database.put(1L, "new"); // commit...
        coupons.invalidate(1L);          // ...and its invalidation applied by the consumer
        rows.resume.countDown();

        assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("old");
        assertThat(coupons.getIfPresent(1L)).as("the row read before the invalidation is not cached").isNull();
        rows.pauseAfterRead = null;
        assertThat(context.getBean(CouponService.class).find(1L)).isEqualTo("new");
    }

    private static void assertNoStalePopulate(CouponService service, Rows rows, CdcCacheManager manager,
            boolean sync)
            throws Exception {
        InvalidatingCache<Long, String> coupons = manager.invalidatingCache("coupons");
        assertThat(manager.client().isReady()).isTrue();
        rows.database.put(1L, "old");
        rows.pauseAfterRead = new CountDownLatch(1);
        rows.resume = new CountDownLatch(1);

        CompletableFuture<String> call = CompletableFuture.supplyAsync(() -> sync ? service.findSync(1L) : service.find(1L));
        assertThat(rows.pauseAfterRead.await(5, TimeUnit.SECONDS)).isTrue();
        rows.database.put(1L, "new"); // commit...
        coupons.invalidate(1L);          // ...and its invalidation applied by the consumer
        rows.resume.countDown();

        assertThat(call.get(5, TimeUnit.SECONDS)).isEqualTo("old");
        assertThat(coupons.getIfPresent(1L)).as("the row read before the invalidation is not cached").isNull();
        rows.pauseAfterRead = null;
        assertThat(sync ? service.findSync(1L) : service.find(1L)).isEqualTo("new");
        assertThat(coupons.getIfPresent(1L)).isEqualTo("new");
    }

    @Configuration(proxyBeanMethods = false)
    @EnableCaching
    static class App {

        @Bean
        InvalidationClient invalidationClient() {
            return MockKafka.readyClient(InvalidationClientConfig.builder().bootstrapServers("unused:1")
                    .positionCheckInterval(Duration.ofMillis(20))
                    .cache(CacheDefinition.builder("coupons").table("coupon_db.coupon").keyColumns("id").build())
                    .build());
        }

        @Bean
        Rows rows() {
            return new Rows();
        }

        @Bean
        CouponService couponService(Rows rows) {
            return new CouponService(rows);
        }

        @Bean
        Outer outer(Rows rows, CouponService service) {
            return new Outer(rows, service);
        }
    }

    /** @Cacheable methods that call other @Cacheable methods of the same cache while their own load is open. */
    static class Outer {
        private final Rows rows;
        private final CouponService service;

        Outer(Rows rows, CouponService service) {
            this.rows = rows;
            this.service = service;
        }

        /** Reads its row, then (still inside its load) a related row of another key through the cache. */
        @Cacheable("coupons")
        public String findWithRelated(Long id) {
            String value = rows.read(id);
            service.find(id + 100);
            return value;
        }

        /** Reads its row, then the same key again through the cache (e.g. a recursive lookup). */
        @Cacheable("coupons")
        public String findTwice(Long id) {
            String value = rows.read(id);
            service.find(id);
            return value;
        }
    }

    static class CouponService {
        private final Rows rows;

        CouponService(Rows rows) {
            this.rows = rows;
        }

        @Cacheable("coupons")
        public String find(Long id) {
            return read(id);
        }

        @Cacheable(cacheNames = "coupons", sync = true)
        public String findSync(Long id) {
            return read(id);
        }

        @Cacheable("coupons")
        public String findAbsent(Long id) {
            return read(id);
        }

        @Caching(cacheable = {@Cacheable(cacheNames = "coupons", key = "#id"),
                @Cacheable(cacheNames = "coupons", key = "#id + 1000")})
        public String findUnderTwoKeys(Long id) {
            return read(id);
        }

        @CachePut(cacheNames = "coupons", key = "#id")
        public String refresh(Long id) {
            return read(id);
        }

        /** Reads through the cache but never stores: its miss's put never comes. */
        @Cacheable(cacheNames = "coupons", unless = "true")
        public String peek(Long id) {
            return read(id);
        }

        @CachePut(cacheNames = "coupons", key = "#id")
        public String publish(Long id, String value) {
            return value;
        }

        private String read(Long id) {
            return rows.read(id);
        }
    }

    /** The in-memory "database" and the latches, shared by the test and the (proxied) services. */
    static class Rows {
        final Map<Long, String> database = new ConcurrentHashMap<>();
        final AtomicInteger reads = new AtomicInteger();
        volatile CountDownLatch pauseAfterRead;
        volatile CountDownLatch resume;

        /** Reads a row; while {@code pauseAfterRead} is set, the first read waits for {@code resume}. */
        String read(Long id) {
            reads.incrementAndGet();
            String value = database.get(id);
            CountDownLatch pause = pauseAfterRead;
            if (pause != null) {
                pause.countDown();
                try {
                    resume.await(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return value;
        }
    }
}
