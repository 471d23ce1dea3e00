package dev.cdccache.client.spring.benchmark;

import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.InvalidationClient;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
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

/**
 * A 400-id bulk lookup through {@link InvalidatingCache#getAll}: all hits, and with 10% misses (40 ids evicted
 * before each invocation, loaded by one call of an in-memory bulk loader and stored with the no-stale-populate
 * check). Run as described in {@link CacheHitBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class BulkLookupBenchmark {

    private static final int IDS = 400;

    private InvalidationClient client;
    private InvalidatingCache<Long, String> cache;
    private List<Long> ids;
    private List<Long> missing;
    private final Map<Long, String> database = new HashMap<>();
    private Function<Set<? extends Long>, Map<Long, String>> bulkLoader;

    @Setup
    public void setUp() {
        client = BenchmarkClients.readyClient();
        cache = client.cache("items");
        ids = new ArrayList<>(IDS);
        missing = new ArrayList<>();
        for (long id = 0; id < IDS; id++) {
            ids.add(id);
            database.put(id, "coupon-" + id);
            if (id % 10 == 0) {
                missing.add(id);
            }
        }
        bulkLoader = keys -> {
            Map<Long, String> rows = new HashMap<>();
            for (Long key : keys) {
                rows.put(key, database.get(key));
            }
            return rows;
        };
        if (cache.getAll(ids, bulkLoader).size() != IDS) {
            throw new IllegalStateException("bulk lookup incomplete");
        }
    }

    @TearDown
    public void tearDown() {
        client.close();
    }

    /** Evicts 10% of the ids so that the next invocation of {@link #getAll400With10PercentMisses} misses them. */
    @State(Scope.Thread)
    public static class Misses {
        @Setup(Level.Invocation)
        public void evict(BulkLookupBenchmark benchmark) {
            for (Long id : benchmark.missing) {
                benchmark.cache.invalidate(id);
            }
        }
    }

    @Benchmark
    public Map<Long, String> getAll400AllHits() {
        return cache.getAll(ids, bulkLoader);
    }

    @Benchmark
    public Map<Long, String> getAll400With10PercentMisses(Misses misses) {
        return cache.getAll(ids, bulkLoader);
    }
}
