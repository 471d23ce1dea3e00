package dev.cdccache.verifier.workload;

import dev.cdccache.verifier.history.LongList;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * The classification of every value one client instance served: fresh, stale (by how long, in buckets and
 * a histogram), or phantom (never committed), plus the served-entry-age check of the staleness guard.
 * Details of the worst cases are kept for the report.
 */
public final class ReadStatistics {

    /** Upper bounds of the stale-age buckets below max-staleness, in milliseconds. */
    public static final long[] BUCKET_BOUNDS_MILLIS = {10, 100, 1000};
    private static final int MAX_DETAILS = 50;

    private final String instance;
    private final long maxStalenessNanos;
    private final LongAdder served = new LongAdder();
    private final LongAdder fresh = new LongAdder();
    private final LongAdder phantom = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final LongAdder skipped = new LongAdder();
    private final LongAdder operations = new LongAdder();
    private final LongAdder[] staleBuckets = new LongAdder[BUCKET_BOUNDS_MILLIS.length + 2];
    private final Histogram staleAgesMicros = new ConcurrentHistogram(TimeUnit.HOURS.toMicros(1), 3);
    private final AtomicLong maxStaleNanos = new AtomicLong(-1);
    private volatile String maxStaleDetail;
    /** Per cache, ages (ns) of stale values older than max-staleness; judged against the final bound at the end. */
    private final Map<String, LongList> overBoundAges = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> phantomsByCache = new ConcurrentHashMap<>();
    private final List<String> overBoundDetails = new ArrayList<>();
    private final List<String> phantomDetails = new ArrayList<>();
    private final Map<String, LongAdder[]> perCache = new ConcurrentHashMap<>();
    private final LongAdder entryChecks = new LongAdder();
    private final AtomicLong maxEntryAgeMillis = new AtomicLong(-1);
    private final List<String> entryAgeViolations = new ArrayList<>();
    private final AtomicLong entryAgeViolationCount = new AtomicLong();

    public ReadStatistics(String instance, long maxStalenessNanos) {
        this.instance = instance;
        this.maxStalenessNanos = maxStalenessNanos;
        for (int i = 0; i < staleBuckets.length; i++) {
            staleBuckets[i] = new LongAdder();
        }
    }

    public String instance() {
        return instance;
    }

    void recordFresh(String cache) {
        perCache(cache)[0].increment();
        served.increment();
        fresh.increment();
    }

    void recordStale(String cache, long ageNanos, Supplier<String> detail) {
        LongAdder[] counts = perCache(cache);
        counts[0].increment();
        counts[1].increment();
        served.increment();
        long millis = ageNanos / 1_000_000;
        int bucket;
        if (ageNanos > maxStalenessNanos) {
            bucket = BUCKET_BOUNDS_MILLIS.length + 1;
        } else {
            bucket = 0;
            while (bucket < BUCKET_BOUNDS_MILLIS.length && millis > BUCKET_BOUNDS_MILLIS[bucket]) {
                bucket++;
            }
        }
        staleBuckets[bucket].increment();
        staleAgesMicros.recordValue(Math.min(ageNanos / 1000, staleAgesMicros.getHighestTrackableValue()));
        long previous = maxStaleNanos.getAndAccumulate(ageNanos, Math::max);
        if (ageNanos > previous) {
            maxStaleDetail = detail.get();
        }
        if (ageNanos > maxStalenessNanos) {
            overBoundAges.computeIfAbsent(cache, c -> new LongList()).add(ageNanos);
            synchronized (overBoundDetails) {
                if (overBoundDetails.size() < MAX_DETAILS) {
                    overBoundDetails.add(detail.get());
                }
            }
        }
    }

    void recordPhantom(String cache, String detail) {
        perCache(cache)[0].increment();
        served.increment();
        phantom.increment();
        phantomsByCache.computeIfAbsent(cache, c -> new LongAdder()).increment();
        synchronized (phantomDetails) {
            if (phantomDetails.size() < MAX_DETAILS) {
                phantomDetails.add(detail);
            }
        }
    }

    void recordError() {
        errors.increment();
    }

    void recordSkipped() {
        skipped.increment();
    }

    void recordOperation() {
        operations.increment();
    }

    void recordEntryCheck(long ageMillis, long boundMillis, Supplier<String> detail) {
        entryChecks.increment();
        maxEntryAgeMillis.accumulateAndGet(ageMillis, Math::max);
        if (ageMillis > boundMillis) {
            entryAgeViolationCount.incrementAndGet();
            synchronized (entryAgeViolations) {
                if (entryAgeViolations.size() < MAX_DETAILS) {
                    entryAgeViolations.add(detail.get());
                }
            }
        }
    }

    private LongAdder[] perCache(String cache) {
        return perCache.computeIfAbsent(cache, c -> new LongAdder[] {new LongAdder(), new LongAdder()});
    }

    /** Per cache: {@code [values served, stale values]}. */
    public Map<String, long[]> perCache() {
        Map<String, long[]> copy = new TreeMap<>();
        perCache.forEach((cache, counts) -> copy.put(cache, new long[] {counts[0].sum(), counts[1].sum()}));
        return copy;
    }

    /** Values served (each key of a bulk read counts once). */
    public long served() {
        return served.sum();
    }

    public long fresh() {
        return fresh.sum();
    }

    public long stale() {
        long n = 0;
        for (LongAdder bucket : staleBuckets) {
            n += bucket.sum();
        }
        return n;
    }

    /** Stale values per bucket: <=10 ms, <=100 ms, <=1 s, <=max-staleness, >max-staleness. */
    public long[] staleBuckets() {
        long[] counts = new long[staleBuckets.length];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = staleBuckets[i].sum();
        }
        return counts;
    }

    public long phantoms() {
        return phantom.sum();
    }

    /** Reads whose loader failed (database down): nothing was served. */
    public long errors() {
        return errors.sum();
    }

    /** Reads not attempted because the instance was restarting. */
    public long skipped() {
        return skipped.sum();
    }

    /** Cache operations (a bulk read is one). */
    public long operations() {
        return operations.sum();
    }

    public Histogram staleAgesMicros() {
        return staleAgesMicros;
    }

    /** The largest staleness served, ns, or -1. */
    public long maxStaleNanos() {
        return maxStaleNanos.get();
    }

    public String maxStaleDetail() {
        return maxStaleDetail;
    }

    /** How many served values were stale by more than {@code boundNanos}. */
    public long staleBeyond(long boundNanos) {
        long n = 0;
        for (String cache : overBoundAges.keySet()) {
            n += staleBeyond(cache, boundNanos);
        }
        return n;
    }

    /** How many values of {@code cache} served were stale by more than {@code boundNanos}. */
    public long staleBeyond(String cache, long boundNanos) {
        LongList ages = overBoundAges.get(cache);
        long n = 0;
        for (long age : ages == null ? new long[0] : ages.toArray()) {
            if (age > boundNanos) {
                n++;
            }
        }
        return n;
    }

    /** Values of {@code cache} served that were never committed. */
    public long phantoms(String cache) {
        LongAdder n = phantomsByCache.get(cache);
        return n == null ? 0 : n.sum();
    }

    public List<String> overBoundDetails() {
        synchronized (overBoundDetails) {
            return List.copyOf(overBoundDetails);
        }
    }

    public List<String> phantomDetails() {
        synchronized (phantomDetails) {
            return List.copyOf(phantomDetails);
        }
    }

    public long entryChecks() {
        return entryChecks.sum();
    }

    public long maxEntryAgeMillis() {
        return maxEntryAgeMillis.get();
    }

    public long entryAgeViolations() {
        return entryAgeViolationCount.get();
    }

    public List<String> entryAgeViolationDetails() {
        synchronized (entryAgeViolations) {
            return List.copyOf(entryAgeViolations);
        }
    }
}
