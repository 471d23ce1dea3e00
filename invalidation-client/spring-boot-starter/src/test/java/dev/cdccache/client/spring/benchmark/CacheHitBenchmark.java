package dev.cdccache.client.spring.benchmark;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.StalenessCheck;
import dev.cdccache.client.StalenessPolicy;
import dev.cdccache.client.cache.CachedValue;
import dev.cdccache.client.position.CommitPosition;
import dev.cdccache.client.position.ReadYourWrites;
import dev.cdccache.client.spring.CdcCacheManager;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.cache.caffeine.CaffeineCache;

/**
 * The cache-hit path: bare Caffeine against the client's {@link InvalidatingCache} ({@code get(key, loader)}
 * and {@code getIfPresent}) and against the Spring {@code Cache#get(key)} that {@code @Cacheable} calls, with
 * Spring's own {@link CaffeineCache} as the reference for that path. Same spec (and recordStats) everywhere.
 *
 * <p>Run (from the repository root, see docs/benchmarks.md):
 * <pre>
 * ./mvnw -B -q -f invalidation-client/pom.xml -pl spring-boot-starter test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/jmh.classpath -Dmdep.includeScope=test
 * cd invalidation-client/spring-boot-starter &amp;&amp; java -cp target/test-classes:target/classes:$(cat target/jmh.classpath) \
 *     org.openjdk.jmh.Main 'dev.cdccache.client.spring.benchmark'
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CacheHitBenchmark {

    private static final int KEYS = 1 << 12;
    /** The position of the write the read-your-writes benchmarks read after; applied before they start. */
    private static final CommitPosition WRITTEN = CommitPosition.parse("0-1-10").orElseThrow();

    private InvalidationClient client;
    private InvalidationClient serveStaleClient;
    private InvalidatingCache<Long, String> serveStaleCache;
    private InvalidationClient scheduledCheckClient;
    private InvalidatingCache<Long, String> scheduledCheckCache;
    private InvalidationClient everyHitCheckClient;
    /** The default client with consistency sampling on (one hit in 1,000, at most 10 re-reads a second). */
    private InvalidationClient sampledClient;
    private InvalidatingCache<Long, String> sampledCache;
    private InvalidatingCache<Long, String> everyHitCheckCache;
    /**
     * The default client after this instance wrote: its consumer applied the change at {@link #WRITTEN}, and the
     * instance read floor (read-your-writes) is raised to it.
     */
    private InvalidationClient flooredClient;
    private InvalidatingCache<Long, String> flooredCache;
    /** The client caches above, filled and checked alike. */
    private List<InvalidatingCache<Long, String>> clientCaches;
    private Cache<Long, String> bareCaffeine;
    private Cache<Long, String> expiringCaffeine;
    private InvalidatingCache<Long, String> invalidatingCache;
    private org.springframework.cache.Cache springCdcCache;
    private org.springframework.cache.Cache springCdcCacheScheduledCheck;
    private org.springframework.cache.Cache springCdcCacheEveryHitCheck;
    /** The Spring cache over {@link #sampledClient}'s cache. */
    private org.springframework.cache.Cache springCdcCacheSampled;
    private org.springframework.cache.Cache springCaffeineCache;
    private Long[] keys;
    private int index;

    @Setup
    public void setUp() {
        client = BenchmarkClients.readyClient();
        invalidatingCache = client.cache("items");
        serveStaleClient = BenchmarkClients.readyClient(StalenessPolicy.SERVE_STALE, StalenessCheck.EVERY_HIT);
        serveStaleCache = serveStaleClient.cache("items");
        scheduledCheckClient = BenchmarkClients.readyClient(StalenessPolicy.BYPASS_CACHE, StalenessCheck.SCHEDULED);
        scheduledCheckCache = scheduledCheckClient.cache("items");
        everyHitCheckClient = BenchmarkClients.readyClient(StalenessPolicy.BYPASS_CACHE, StalenessCheck.EVERY_HIT);
        everyHitCheckCache = everyHitCheckClient.cache("items");
        sampledClient = BenchmarkClients.readyClient(StalenessPolicy.BYPASS_CACHE, null, 1_000);
        sampledCache = sampledClient.cache("items");
        flooredClient = BenchmarkClients.readyClientThatApplied("0-1-10");
        flooredCache = flooredClient.cache("items");
        clientCaches = List.of(invalidatingCache, serveStaleCache, scheduledCheckCache, everyHitCheckCache,
                sampledCache, flooredCache);
        springCdcCache = new CdcCacheManager(client).getCache("items");
        springCdcCacheScheduledCheck = new CdcCacheManager(scheduledCheckClient).getCache("items");
        springCdcCacheEveryHitCheck = new CdcCacheManager(everyHitCheckClient).getCache("items");
        springCdcCacheSampled = new CdcCacheManager(sampledClient).getCache("items");
        bareCaffeine = Caffeine.from(BenchmarkClients.SPEC).recordStats().build();
        expiringCaffeine = Caffeine.from(BenchmarkClients.SPEC + ",expireAfterWrite=1h").recordStats().build();
        springCaffeineCache = new CaffeineCache("items",
                Caffeine.from(BenchmarkClients.SPEC).recordStats().<Object, Object>build());
        keys = new Long[KEYS];
        for (int i = 0; i < KEYS; i++) {
            keys[i] = (long) i;
        }
        // Each cache is filled by its own load path, one cache after the other, as loads fill caches in a
        // service: a value and the entry holding it are allocated together, not interleaved with other caches'.
        for (Long key : keys) {
            bareCaffeine.get(key, BenchmarkClients::valueOf);
        }
        for (Long key : keys) {
            expiringCaffeine.get(key, BenchmarkClients::valueOf);
        }
        for (InvalidatingCache<Long, String> cache : clientCaches) {
            for (Long key : keys) {
                cache.get(key, BenchmarkClients::valueOf);
            }
        }
        for (Long key : keys) {
            springCaffeineCache.get(key, () -> BenchmarkClients.valueOf(key));
        }
        // Raised after the fill: the first read under it proves it applied and reopens the gate.
        flooredClient.readYourWrites().raiseFloor(WRITTEN);
        if (invalidatingCache.estimatedSize() < KEYS / 2) {
            throw new IllegalStateException("values were not cached");
        }
        if (invalidatingCache.caffeine().asMap().get(keys[0]) instanceof CachedValue<?>) {
            // A fresh client stores loads as they are; a wrapper here means the fill ran while it lagged.
            throw new IllegalStateException("entries were stored with their load time: the client was not fresh");
        }
    }

    /** A benchmark of hits must not measure misses: fail the run if an entry stopped being served. */
    @TearDown(Level.Iteration)
    public void everyCacheStillHits() {
        Long key = keys[KEYS - 1];
        for (InvalidatingCache<Long, String> cache : clientCaches) {
            if (cache.getIfPresent(key) == null) {
                throw new IllegalStateException("a hit benchmark measured misses; client status "
                        + client.status());
            }
        }
    }

    @TearDown
    public void tearDown() {
        client.close();
        serveStaleClient.close();
        scheduledCheckClient.close();
        everyHitCheckClient.close();
        sampledClient.close();
        flooredClient.close();
    }

    private Long nextKey() {
        return keys[index++ & (KEYS - 1)];
    }

    @Benchmark
    public String bareCaffeineGetIfPresent() {
        return bareCaffeine.getIfPresent(nextKey());
    }

    /** The client with its default settings. */
    @Benchmark
    public String invalidatingCacheGetIfPresent() {
        return invalidatingCache.getIfPresent(nextKey());
    }

    /**
     * Read-your-writes on the writing instance: a hit after this instance raised its read floor to a write whose
     * change the consumer has applied. The first read proves the floor and reopens the cache's gate; every later
     * read pays what a read without any floor pays (one volatile read).
     */
    @Benchmark
    public String invalidatingCacheGetIfPresentUnderAppliedFloor() {
        return flooredCache.getIfPresent(nextKey());
    }

    /**
     * Read-your-writes across instances: one request that carried a position (the {@code Cdc-Position} header, already
     * applied here) and made one hit. Opening the request floor closes every gate, so the hit looks the floor up
     * (a thread-local read and a proven-position check) before it is served; closing restores the thread.
     */
    @Benchmark
    public String invalidatingCacheGetIfPresentInRequestFloor() {
        try (ReadYourWrites.Scope request = flooredClient.readYourWrites().withFloor(WRITTEN)) {
            return flooredCache.getIfPresent(nextKey());
        }
    }

    /**
     * Caffeine with a time-to-live, the usual way to bound staleness without change data capture: like the
     * client's staleness check, its expiry reads the clock on every hit.
     */
    @Benchmark
    public String expiringCaffeineGetIfPresent() {
        return expiringCaffeine.getIfPresent(nextKey());
    }

    /**
     * The same hit without the staleness check (policy {@code serve-stale}): the difference to
     * {@link #invalidatingCacheGetIfPresent()} is the price of the bound.
     */
    @Benchmark
    public String invalidatingCacheGetIfPresentServeStale() {
        return serveStaleCache.getIfPresent(nextKey());
    }

    /**
     * The same hit with {@code staleness-check: scheduled} set explicitly (the default since it keeps the bound
     * when its ticker stalls): the hit compares the entry's load time with one volatile field and reads no clock.
     */
    @Benchmark
    public String invalidatingCacheGetIfPresentScheduledCheck() {
        return scheduledCheckCache.getIfPresent(nextKey());
    }

    /** The same hit with {@code staleness-check: every-hit}: one clock read per hit. */
    @Benchmark
    public String invalidatingCacheGetIfPresentEveryHitCheck() {
        return everyHitCheckCache.getIfPresent(nextKey());
    }

    @Benchmark
    public String invalidatingCacheGetWithLoader() {
        return invalidatingCache.get(nextKey(), key -> "loaded");
    }

    /** {@link #invalidatingCacheGetWithLoader()} with consistency sampling off: the loader is the same as the sampled one's. */
    @Benchmark
    public String invalidatingCacheGetWithLoaderSamplingOff() {
        return invalidatingCache.get(nextKey(), BenchmarkClients::valueOf);
    }

    /**
     * The same hit with consistency sampling on ({@code sampling.one-in: 1000}): one {@code ThreadLocalRandom} draw
     * per hit, and one hit in 1,000 handed to the sampler's thread (at most 10 a second).
     */
    @Benchmark
    public String invalidatingCacheGetWithLoaderSamplingOn() {
        return sampledCache.get(nextKey(), BenchmarkClients::valueOf);
    }

    @Benchmark
    public Object springCdcCacheGet() {
        return springCdcCache.get(nextKey());
    }

    /** The {@code @Cacheable} path with {@code staleness-check: scheduled}. */
    @Benchmark
    public Object springCdcCacheGetScheduledCheck() {
        return springCdcCacheScheduledCheck.get(nextKey());
    }

    /** The {@code @Cacheable} path with {@code staleness-check: every-hit}. */
    @Benchmark
    public Object springCdcCacheGetEveryHitCheck() {
        return springCdcCacheEveryHitCheck.get(nextKey());
    }

    /**
     * The {@code @Cacheable} path with consistency sampling on ({@code sampling.one-in: 1000}): one draw per hit; a
     * drawn hit (1 in 1,000) allocates its sample and, outside a {@code @Cacheable} invocation as here, drops it.
     */
    @Benchmark
    public Object springCdcCacheGetSamplingOn() {
        return springCdcCacheSampled.get(nextKey());
    }

    @Benchmark
    public Object springCaffeineCacheGet() {
        return springCaffeineCache.get(nextKey());
    }
}
