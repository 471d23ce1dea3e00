package dev.cdccache.client.cache;

import dev.cdccache.client.Internal;
import dev.cdccache.client.metrics.LogThrottle;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiPredicate;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Measures, in production, whether cache hits serve what the database holds: a small random share of the hits of
 * {@link CaffeineInvalidatingCache#get(Object, Function) get(key, loader)} is re-read through the same loader on the
 * sampler's own thread, off the request path, and the result is compared with the value the hit served. Hits of
 * {@link CaffeineInvalidatingCache#lookup lookup} are drawn the same way when their caller asks
 * ({@link CaffeineInvalidatingCache#drawSample drawSample}) and handed over with a loader built afterwards
 * ({@link SampledHit}).
 *
 * <p>Classification of one sample:
 * <ul>
 *   <li>{@link Outcome#CONSISTENT}: the re-read equals the cached value; or it differs and, by the end of the
 *       staleness bound, the sampled entry left the cache through an invalidation (its key's or the whole cache's
 *       invalidation generation moved): the change was in transit and the cache caught up within the bound. An
 *       entry replaced by a later load without such an invalidation (a refresh-ahead reload, a load after an
 *       expiry) is not: no invalidation explains the difference.</li>
 *   <li>{@link Outcome#STALE}: the re-read differs, and one staleness bound later the same entry is still cached,
 *       no invalidation explains it, and a second re-read still differs. The key is then evicted (no event will
 *       come for it) and the sample logged at WARN (throttled per cache) with the cache, the key and the entry's
 *       age. Another pending sample of that entry counts stale too: that eviction is no invalidation that arrived.</li>
 *   <li>{@link Outcome#INCONCLUSIVE}: the loader failed, the entry left the cache without an invalidation (size or
 *       expiry eviction, replaced by a refresh-ahead or later load), or the staleness guard stopped serving it:
 *       nothing can be said.</li>
 * </ul>
 *
 * <p>Costs: when the sampler is off a cache holds no sampler and its hit path does not change. When on, a hit pays
 * one {@link ThreadLocalRandom} draw; one hit in {@link Settings#oneIn()} pays a rate check and a task hand-off, at
 * most {@link Settings#maxPerSecond()} times a second for all caches together. Each sample costs the database one
 * loader call, two when the first differs. Samples beyond the cap, or while too many are pending, are not taken.
 *
 * <p>Values are compared with {@link Settings#sameValue()} ({@link Objects#deepEquals} by default): a value type
 * without a meaningful {@code equals} needs its own comparison, or every sample differs.
 *
 * <p>Thread-safe. The results are read by metrics and health through {@link #counts(String)}.
 */
@Internal
public final class ConsistencySampler implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ConsistencySampler.class);

    /** How one sample was classified. */
    public enum Outcome {
        /** The cache agreed with the database, or caught up within the bound. */
        CONSISTENT("consistent"),
        /** The cache served a value the database no longer held, beyond the staleness bound. */
        STALE("stale"),
        /** The sample could not be decided (loader failed, entry evicted or withheld). */
        INCONCLUSIVE("inconclusive");

        private final String tag;

        Outcome(String tag) {
            this.tag = tag;
        }

        /** The metric tag value. */
        public String tag() {
            return tag;
        }
    }

    /**
     * Sampler settings.
     *
     * @param oneIn sample one hit in this many, on average (at least 1)
     * @param maxPerSecond at most this many samples a second, over all caches (at least 1): caps the extra load on
     *     the database
     * @param bound the staleness bound a difference must be explained within (the client's {@code max-staleness})
     * @param window the span over which {@link Counts#nines()} is computed
     * @param sameValue whether a cached value and a re-read value are the same
     */
    public record Settings(int oneIn, int maxPerSecond, Duration bound, Duration window,
            BiPredicate<Object, Object> sameValue) {

        /** Validates; the messages name the setting to fix. */
        public Settings {
            if (oneIn < 1) {
                throw new IllegalArgumentException("sampling one-in must be at least 1, was " + oneIn);
            }
            if (maxPerSecond < 1) {
                throw new IllegalArgumentException("sampling max-per-second must be at least 1, was " + maxPerSecond);
            }
            Objects.requireNonNull(bound, "bound");
            Objects.requireNonNull(window, "window");
            Objects.requireNonNull(sameValue, "sameValue");
            if (bound.isNegative() || bound.isZero()) {
                throw new IllegalArgumentException("sampling bound must be positive, was " + bound);
            }
            if (window.compareTo(bound) <= 0) {
                throw new IllegalArgumentException("sampling window must be longer than the bound (" + bound
                        + "), was " + window);
            }
        }

        /** 1 in 1,000 hits, at most 10 a second, a one-hour window, values compared by {@code equals}. */
        public static Settings defaults(Duration bound) {
            return new Settings(1_000, 10, bound, Duration.ofHours(1), Objects::deepEquals);
        }
    }

    /** Receives every classified sample (metrics); called on the sampler's thread. */
    public interface Listener {
        Listener NONE = (cache, outcome) -> { };

        void sampled(String cache, Outcome outcome);
    }

    private final Settings settings;
    private final LongSupplier clock;
    private final Listener listener;
    private final ScheduledExecutorService executor;
    private final int oneIn;
    private final LogThrottle warnThrottle;
    private final LogThrottle failureLogThrottle;
    private final Map<String, Counts> counts = new ConcurrentHashMap<>();
    /** Start of the current one-second rate window, and samples taken in it. */
    private final AtomicLong rateSecond = new AtomicLong(Long.MIN_VALUE);
    private final AtomicInteger rateCount = new AtomicInteger();
    /** Samples handed off and not yet classified; bounds the work queued behind a slow database. */
    private final AtomicInteger pending = new AtomicInteger();
    private final int maxPending;

    public ConsistencySampler(Settings settings, LongSupplier clock, Listener listener) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.oneIn = settings.oneIn();
        this.warnThrottle = new LogThrottle(clock, 60_000);
        this.failureLogThrottle = new LogThrottle(clock, 60_000);
        // Every sample may wait one bound before its recheck: that many seconds of samples may be pending.
        long boundSeconds = Math.max(1, settings.bound().toSeconds() + 1);
        this.maxPending = (int) Math.min(10_000, settings.maxPerSecond() * boundSeconds * 2);
        ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new RereadThread(r);
            t.setDaemon(true);
            return t;
        });
        pool.setRemoveOnCancelPolicy(true);
        pool.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.executor = pool;
    }

    /**
     * The thread that re-reads samples. A re-read must say what the database holds, so every cache read on it
     * bypasses the caches: a re-read that calls cached code (a {@code @Cacheable} method calling another, a loader
     * using another cache) neither looks up nor stores anything and joins no load in flight.
     */
    private static final class RereadThread extends Thread {
        RereadThread(Runnable task) {
            super(task, "cdc-consistency-sampler");
            setDaemon(true);
        }
    }

    /** Whether the current thread re-reads samples: its cache reads bypass every cache. */
    static boolean onRereadThread() {
        return Thread.currentThread() instanceof RereadThread;
    }

    /** The settings in force. */
    public Settings settings() {
        return settings;
    }

    /** Whether this hit is drawn for a sample; the only cost every hit pays while sampling is on. */
    boolean draw() {
        return ThreadLocalRandom.current().nextInt(oneIn) == 0;
    }

    /** Hands a drawn hit to the sampler's thread, unless the per-second cap or the pending limit says no. */
    <K, V> void offer(CaffeineInvalidatingCache<K, V> cache, K key, Object entry,
            Function<? super K, ? extends V> loader) {
        offer(cache, key, entry, loader, null);
    }

    /**
     * {@link #offer(CaffeineInvalidatingCache, Object, Object, Function)} with the key's invalidation
     * generations taken at the hit ({@code null}: now), for a hit handed over after its caller built the loader.
     */
    <K, V> void offer(CaffeineInvalidatingCache<K, V> cache, K key, Object entry,
            Function<? super K, ? extends V> loader, long[] generationsAtHit) {
        if (!admit()) {
            return;
        }
        CaffeineInvalidatingCache.KeyWatch watch = cache.watch(key);
        // After the watch is in place: an invalidation of this stripe from the hit up to here is counted by these
        // generations, any later one of this key by the watch (invalidate() moves the generation first).
        long[] atWatch = cache.generationsOf(key);
        Probe<K, V> probe = new Probe<>(cache, key, entry, loader,
                generationsAtHit != null ? generationsAtHit : atWatch, watch, watch.invalidations.get(), atWatch,
                new AtomicBoolean());
        counts(cache.name());
        try {
            executor.execute(() -> step(probe, true));
        } catch (RejectedExecutionException closed) {
            pending.decrementAndGet();
            cache.unwatch(key);
        }
    }

    private boolean admit() {
        long second = clock.getAsLong() / 1000;
        long current = rateSecond.get();
        if (current != second && rateSecond.compareAndSet(current, second)) {
            rateCount.set(0);
        }
        if (rateCount.incrementAndGet() > settings.maxPerSecond()) {
            return false;
        }
        if (pending.incrementAndGet() > maxPending) {
            pending.decrementAndGet();
            return false;
        }
        return true;
    }

    /** Marks a re-read whose loader threw: the sample is inconclusive. */
    private static final Object FAILED = new Object();

    /** The value the probe's loader returns now, or {@link #FAILED}. */
    private static <K, V> Object reread(Probe<K, V> probe) {
        try {
            return probe.loader.apply(probe.key);
        } catch (Exception | LinkageError | AssertionError e) {
            return FAILED; // the application's loader failed; a VirtualMachineError goes to step()
        }
    }

    /**
     * Runs one step of a sample. Whatever the application's code throws in it (a loader's {@code Error}, an
     * {@code equals} touching a detached entity), the sample ends as inconclusive: an escaped throwable would be
     * swallowed by the executor and keep the sample's pending slot for good, and enough of them stop all sampling
     * while nothing says so.
     */
    private <K, V> void step(Probe<K, V> probe, boolean first) {
        try {
            if (first) {
                firstRead(probe);
            } else {
                recheck(probe);
            }
        } catch (Throwable t) {
            long heldBack = failureLogThrottle.admit(probe.cache.name());
            if (heldBack != LogThrottle.HELD_BACK) {
                LOG.warn("Consistency sample of cache '{}' failed; counted inconclusive ({} more failures of this "
                        + "cache not logged)", probe.cache.name(), heldBack, t);
            }
            finish(probe, Outcome.INCONCLUSIVE);
        }
    }

    private <K, V> void firstRead(Probe<K, V> probe) {
        Object reread = reread(probe);
        if (reread == FAILED) {
            finish(probe, Outcome.INCONCLUSIVE);
            return;
        }
        if (settings.sameValue().test(CachedValue.valueOf(probe.entry), reread)) {
            finish(probe, Outcome.CONSISTENT);
            return;
        }
        // A difference may be a change still on its way: give the invalidation one bound to arrive.
        long delay = settings.bound().toMillis();
        try {
            executor.schedule(() -> step(probe, false), delay, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closed) {
            pending.decrementAndGet();
            probe.cache.unwatch(probe.key);
        }
    }

    private <K, V> void recheck(Probe<K, V> probe) {
        CaffeineInvalidatingCache<K, V> cache = probe.cache;
        Object now = cache.entryOf(probe.key);
        // A value stored as is (no CachedValue) may be the same instance again after an invalidation and a reload
        // (an enum, a shared constant): then an invalidation since the hit counts as one that took it out.
        if (now != probe.entry || !(now instanceof CachedValue<?>) && invalidatedSince(probe)) {
            if (invalidatedSince(probe)) {
                // An invalidation of this key, or of the whole cache, took it out; or one of its stripe in the
                // microseconds between the hit and the hand-over, taken as this key's. (A stripe generation that
                // moved later may be a stripe-mate's: with the entry gone by size or expiry that says nothing.)
                finish(probe, Outcome.CONSISTENT);
            } else if (probe.watch.provenStale == probe.entry) {
                // Another sample of the same entry proved it stale and evicted it: no invalidation came for it.
                finish(probe, Outcome.STALE);
            } else {
                // Left or replaced without an invalidation of its key: size or expiry eviction, a refresh-ahead
                // reload (the sampled hit's own, for an old entry), a load after either. Nothing explains the
                // difference, so it is not consistent; nor is it shown stale, the entry being gone.
                finish(probe, Outcome.INCONCLUSIVE);
            }
            return;
        }
        if (!cache.servableNow(now)) {
            finish(probe, Outcome.INCONCLUSIVE); // the staleness guard withholds it
            return;
        }
        Object reread = reread(probe);
        if (reread == FAILED) {
            finish(probe, Outcome.INCONCLUSIVE);
            return;
        }
        if (settings.sameValue().test(CachedValue.valueOf(now), reread)) {
            finish(probe, Outcome.CONSISTENT); // the database went back to the cached value
            return;
        }
        long loadedAt = CachedValue.loadedAtMillis(now);
        String age = loadedAt == CachedValue.UNKNOWN_LOAD ? "of an unrecorded age (stored while the client was fresh)"
                : (clock.getAsLong() - loadedAt) + " ms old";
        // Proven stale and no event will come for it: evict the key as an event would (its generation moves, so a
        // load of the old value still in flight cannot be stored), rather than serve it until it expires.
        cache.evictProvenStale(probe.key, now);
        long heldBack = warnThrottle.admit(cache.name());
        if (heldBack != LogThrottle.HELD_BACK) {
            LOG.warn("Cache '{}' served a stale value for key {}: the database differs and no invalidation arrived "
                    + "within the {} ms bound; the entry is {} and was evicted ({} more stale samples of this"
                    + " cache not logged). Other keys may be stale the same way: check that the connector captures"
                    + " the table, the cache's key mapping, and writes the binlog does not hold (sql_log_bin=0,"
                    + " statement-based sessions, another server's writes).",
                    cache.name(), probe.key, settings.bound().toMillis(), age, heldBack);
        }
        finish(probe, Outcome.STALE);
    }

    /**
     * Whether an invalidation of the probe's key, or of the whole cache, was applied since its hit; or one of its
     * stripe in the microseconds between the hit and the hand-over, taken as this key's.
     */
    private static boolean invalidatedSince(Probe<?, ?> probe) {
        return probe.cache.cacheInvalidatedSince(probe.generations)
                || probe.watch.invalidations.get() > probe.watchedFrom
                || !Arrays.equals(probe.generations, probe.generationsAtWatch);
    }

    private void finish(Probe<?, ?> probe, Outcome outcome) {
        if (!probe.finished.compareAndSet(false, true)) {
            return; // a listener that threw after the sample was counted: it is not counted twice
        }
        pending.decrementAndGet();
        unwatch(probe);
        counts(probe.cache.name()).record(outcome, clock.getAsLong());
        listener.sampled(probe.cache.name(), outcome);
    }

    private static <K, V> void unwatch(Probe<K, V> probe) {
        probe.cache.unwatch(probe.key);
    }

    /** The counts of {@code cache}; created empty on first use. */
    public Counts counts(String cache) {
        return counts.computeIfAbsent(cache, c -> new Counts(settings.window().toMillis(), clock));
    }

    /** The names of the caches sampled so far (and of every cache whose {@link #counts} were asked for). */
    public java.util.Set<String> caches() {
        return java.util.Collections.unmodifiableSet(new java.util.TreeSet<>(counts.keySet()));
    }

    /** Stops sampling; samples not classified yet are dropped. */
    @Override
    public void close() {
        executor.shutdownNow();
    }

    /**
     * A drawn hit: what was served, how to re-read it, the invalidation generations when it was served and when its
     * key's watch began, and the watch's count then.
     */
    private record Probe<K, V>(CaffeineInvalidatingCache<K, V> cache, K key, Object entry,
            Function<? super K, ? extends V> loader, long[] generations, CaffeineInvalidatingCache.KeyWatch watch,
            long watchedFrom, long[] generationsAtWatch, AtomicBoolean finished) {
    }

    /** The outcomes of one cache: totals since start, and the samples of the last window. */
    public static final class Counts {
        private final LongAdder consistent = new LongAdder();
        private final LongAdder stale = new LongAdder();
        private final LongAdder inconclusive = new LongAdder();
        private final long windowMillis;
        private final LongSupplier clock;
        /** Time and outcome of each decided sample within the window, oldest first. */
        private final ArrayDeque<long[]> recent = new ArrayDeque<>();

        Counts(long windowMillis, LongSupplier clock) {
            this.windowMillis = windowMillis;
            this.clock = clock;
        }

        void record(Outcome outcome, long at) {
            switch (outcome) {
                case CONSISTENT -> consistent.increment();
                case STALE -> stale.increment();
                default -> inconclusive.increment();
            }
            if (outcome != Outcome.INCONCLUSIVE) {
                synchronized (recent) {
                    recent.addLast(new long[] {at, outcome == Outcome.STALE ? 1 : 0});
                    trim(at);
                }
            }
        }

        private void trim(long now) {
            while (!recent.isEmpty() && recent.peekFirst()[0] <= now - windowMillis) {
                recent.removeFirst();
            }
        }

        /** Samples classified consistent since start. */
        public long consistent() {
            return consistent.sum();
        }

        /** Samples classified stale since start. */
        public long stale() {
            return stale.sum();
        }

        /** Samples that could not be decided since start. */
        public long inconclusive() {
            return inconclusive.sum();
        }

        /** Stale samples within the window. */
        public long staleInWindow() {
            synchronized (recent) {
                trim(clock.getAsLong());
                long n = 0;
                for (long[] sample : recent) {
                    n += sample[1];
                }
                return n;
            }
        }

        /**
         * The consistency "nines" over the window: {@code -log10(stale / decided)} of the consistent and stale
         * samples taken within it (3 means 99.9 % consistent). With no stale sample the samples can only show a
         * lower bound, so this is {@code log10(decided)}: 1,000 clean samples show at least three nines. NaN when
         * the window holds no decided sample.
         */
        public double nines() {
            long decided;
            long staleCount;
            synchronized (recent) {
                trim(clock.getAsLong());
                decided = recent.size();
                staleCount = 0;
                for (long[] sample : recent) {
                    staleCount += sample[1];
                }
            }
            if (decided == 0) {
                return Double.NaN;
            }
            return staleCount == 0 ? Math.log10(decided) : -Math.log10((double) staleCount / decided);
        }
    }
}
