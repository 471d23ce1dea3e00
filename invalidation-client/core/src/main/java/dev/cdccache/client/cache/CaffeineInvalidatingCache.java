package dev.cdccache.client.cache;

import dev.cdccache.client.Internal;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.stats.ConcurrentStatsCounter;
import com.github.benmanes.caffeine.cache.stats.StatsCounter;
import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.staleness.StalenessGuard;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Function;

/**
 * The {@link InvalidatingCache} implementation over a synchronous Caffeine cache.
 *
 * <p>What the map holds: a value loaded while the client is provably fresh is stored as is, without its load time.
 * The staleness guard then takes it as loaded at {@link CachedValue#UNKNOWN_LOAD}, older than any threshold, so it
 * is served only while every entry is servable (the client fresh); once the client lags it is a miss and is loaded
 * again. A value whose load time matters is stored in a {@link CachedValue} with it: one loaded while the client
 * lags (served within the bound, as with a time-to-live), under refresh-ahead (which needs its age), a cached
 * absence. So a fresh client's entries cost no wrapper object, and a hit reads no field of one; whether an entry
 * is a wrapper is a type test on the value a caller reads next anyway.
 *
 * <p>Why not Caffeine's {@code get(key, loader)}: it runs the loader under the map's bin lock, so an
 * invalidation of a key being loaded would block the consumer thread until the database answers. Here loads
 * run outside any lock; single-flight is a map of in-flight futures; and a loaded value is stored by a short
 * {@code compute} that re-checks the key's invalidation generation. An invalidation increments the
 * generation <em>before</em> it removes the entry, so either the compute sees the new generation and keeps
 * the old mapping, or the compute ran first and the removal that follows deletes what it stored.
 *
 * <p>Hits read through Caffeine's map view, one object nearer to the entries than {@code Cache#getIfPresent}
 * (a dependent memory load less on every hit), and record hits and misses themselves on the statistics
 * counter Caffeine reports from. A present entry that may not be served counts as a miss.
 *
 * <p>Created by {@code InvalidationClient}; public for the Spring adapter and tests.
 *
 * @param <K> key type
 * @param <V> value type
 */
@Internal
public final class CaffeineInvalidatingCache<K, V> implements InvalidatingCache<K, V> {

    /** Hook for counting loads that were not cached. */
    public interface LoadListener {
        LoadListener NONE = cache -> { };

        /** A load was not cached because an invalidation of its key was applied while it ran. */
        void discarded(String cache);

        /** A value kept aside by a {@link CacheTransaction} was dropped without being stored. */
        default void dropped(String cache, DropReason reason) {
        }
    }

    /** Why a value kept aside by a {@link CacheTransaction} was not stored. */
    public enum DropReason {
        /** The transaction rolled back (or never signalled its commit). */
        ROLLED_BACK("rolled_back"),
        /** The transaction kept {@link CacheTransaction#MAX_DEFERRED} values aside already. */
        OVERFLOW("overflow");

        private final String tag;

        DropReason(String tag) {
            this.tag = tag;
        }

        /** The metric tag value. */
        public String tag() {
            return tag;
        }
    }

    /** Marks a key of a bulk lookup that was not served from the cache (a cached value may be a null). */
    private static final Object MISSED = new Object();

    private final String name;
    /** Values stored as is, or {@link CachedValue}s (see the class comment). */
    private final Cache<K, Object> cache;
    /** {@code cache.asMap()}: its reads record no statistics, so the lookups here record them in {@link #stats}. */
    private final ConcurrentMap<K, Object> entries;
    /**
     * Per invalidation stripe, the latest load start of the values stored as is (0 before the first): an upper bound
     * of the load time of each. A store never replaces an entry whose read started later than its own (see
     * {@link #store}).
     */
    private final AtomicLongArray latestUnstampedLoads = new AtomicLongArray(InvalidationGenerations.STRIPES);
    /** The counter behind {@code cache.stats()}. */
    private final StatsCounter stats = new ConcurrentStatsCounter();
    private final ConcurrentMap<K, CompletableFuture<V>> inFlight = new ConcurrentHashMap<>();
    /** Refresh-ahead reloads in progress (never joined by misses, see {@link #refreshIfOld}). */
    private final ConcurrentMap<K, RefreshMarker> refreshing = new ConcurrentHashMap<>();
    private final InvalidationGenerations generations = new InvalidationGenerations();
    /** {@link InvalidationSequence} values recorded by invalidations, for {@link #beginLoadAsOf}. */
    private final InvalidationSequenceMarks sequenceMarks = new InvalidationSequenceMarks();
    private final StalenessGuard guard;
    private final boolean cacheNulls;
    private final long refreshAfterMillis;
    /** After this long a refresh marker is assumed dropped by the executor. */
    private final long staleRefreshMillis;
    private final Executor refreshExecutor;
    private final LoadListener loadListener;
    /** Read-your-writes: whether a read may use the cache under the read floor in force (see ReadYourWrites). */
    private final ReadGate gate;
    /** Re-reads a share of the hits of {@link #get} to measure consistency; {@code null} when sampling is off. */
    private final ConsistencySampler sampler;
    /** Keys with consistency samples pending, and their invalidations since; empty while sampling is off. */
    private final ConcurrentHashMap<Object, KeyWatch> watchedKeys = new ConcurrentHashMap<>();
    /** Runs inside the storing compute; tests use it to hold a store at that point (see NoStalePopulateTest). */
    private volatile Runnable storeHook = () -> { };

    /**
     * @param caffeine builder from the cache's spec, without statistics: the cache records them
     * @param refreshAfterMillis age after which a hit through {@link #get} refreshes ahead, or {@code <= 0}
     */
    public CaffeineInvalidatingCache(String name, Caffeine<Object, Object> caffeine, StalenessGuard guard,
            boolean cacheNulls, long refreshAfterMillis, Executor refreshExecutor, LoadListener loadListener) {
        this(name, caffeine, guard, cacheNulls, refreshAfterMillis, refreshExecutor, loadListener, ReadGate.OPEN);
    }

    /**
     * @param caffeine builder from the cache's spec, without statistics: the cache records them
     * @param refreshAfterMillis age after which a hit through {@link #get} refreshes ahead, or {@code <= 0}
     * @param gate asked before a read serves an entry, joins a load or stores (read-your-writes)
     */
    public CaffeineInvalidatingCache(String name, Caffeine<Object, Object> caffeine, StalenessGuard guard,
            boolean cacheNulls, long refreshAfterMillis, Executor refreshExecutor, LoadListener loadListener,
            ReadGate gate) {
        this(name, caffeine, guard, cacheNulls, refreshAfterMillis, refreshExecutor, loadListener, gate, null);
    }

    /**
     * @param caffeine builder from the cache's spec, without statistics: the cache records them
     * @param refreshAfterMillis age after which a hit through {@link #get} refreshes ahead, or {@code <= 0}
     * @param gate asked before a read serves an entry, joins a load or stores (read-your-writes)
     * @param sampler re-reads a share of the hits of {@link #get} off the request path, or {@code null} for none
     */
    public CaffeineInvalidatingCache(String name, Caffeine<Object, Object> caffeine, StalenessGuard guard,
            boolean cacheNulls, long refreshAfterMillis, Executor refreshExecutor, LoadListener loadListener,
            ReadGate gate, ConsistencySampler sampler) {
        this.sampler = sampler;
        this.gate = gate;
        this.name = name;
        this.cache = caffeine.recordStats(() -> stats).build();
        this.entries = cache.asMap();
        this.guard = guard;
        this.cacheNulls = cacheNulls;
        this.refreshAfterMillis = refreshAfterMillis;
        this.staleRefreshMillis = Math.max(refreshAfterMillis, 1_000);
        this.refreshExecutor = refreshExecutor;
        this.loadListener = loadListener;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    @SuppressWarnings("unchecked")
    public CachedValue<V> lookup(K key) {
        boolean open = gate.isOpen() && !ConsistencySampler.onRereadThread(); // before the lookup: see ReadGate#isOpen
        Object entry = entries.get(key);
        if (entry != null && guard.isServable(CachedValue.loadedAtMillis(entry))
                && (open || (entry = servableAfterFloor(key)) != null)) {
            stats.recordHits(1);
            return entry instanceof CachedValue<?> stamped ? (CachedValue<V>) stamped
                    : new CachedValue<>((V) entry, CachedValue.UNKNOWN_LOAD);
        }
        stats.recordMisses(1);
        return null;
    }

    @Override
    public V getOrDefault(K key, V ifMissing) {
        // Written out rather than through lookup(): see getIfPresent.
        boolean open = gate.isOpen() && !ConsistencySampler.onRereadThread(); // before the lookup: see ReadGate#isOpen
        Object entry = entries.get(key);
        if (entry != null && guard.isServable(CachedValue.loadedAtMillis(entry))
                && (open || (entry = servableAfterFloor(key)) != null)) {
            stats.recordHits(1);
            return CachedValue.valueOf(entry);
        }
        stats.recordMisses(1);
        return ifMissing;
    }

    @Override
    public SampledHit<K, V> drawSample(K key, V served) {
        // The same draw as a hit of get(key, loader); nothing is allocated unless drawn.
        if (sampler == null || !sampler.draw()) {
            return null;
        }
        // The sample follows the entry that served the hit; one replaced since is not sampled.
        Object entry = entries.get(key);
        return entry != null && CachedValue.valueOf(entry) == served ? new SampledHit<>(sampler, this, key, entry)
                : null;
    }

    @Override
    public V getIfPresent(K key) {
        // Written out rather than through lookup(): one call level less on the hit path keeps Caffeine's
        // read path within the JIT's inlining depth.
        boolean open = gate.isOpen() && !ConsistencySampler.onRereadThread(); // before the lookup: see ReadGate#isOpen
        Object entry = entries.get(key);
        if (entry != null && guard.isServable(CachedValue.loadedAtMillis(entry))
                && (open || (entry = servableAfterFloor(key)) != null)) {
            stats.recordHits(1);
            return CachedValue.valueOf(entry);
        }
        stats.recordMisses(1);
        return null;
    }

    @Override
    public V get(K key, Function<? super K, ? extends V> loader) {
        // The hit path is written out (not through lookup()) to stay within the JIT's inlining depth.
        boolean open = gate.isOpen() && !ConsistencySampler.onRereadThread(); // before the lookup: see ReadGate#isOpen
        Object entry = entries.get(key);
        if (entry != null && guard.isServable(CachedValue.loadedAtMillis(entry))) {
            if (!open) {
                if (!admits(true)) {
                    stats.recordMisses(1);
                    return loader.apply(key); // bypass: the entry, and any load in flight, may predate the read floor
                }
                // The floor is proven now: its write's eviction is done, and the entry looked up before may be the
                // value it evicted.
                entry = servable(key);
            }
            if (entry != null) {
                stats.recordHits(1);
                if (refreshAfterMillis > 0) {
                    refreshIfOld(key, entry, loader);
                }
                if (sampler != null && sampler.draw()) {
                    sampler.offer(this, key, entry, loader);
                }
                return CachedValue.valueOf(entry);
            }
        }
        stats.recordMisses(1);
        if (!admits(false)) {
            return loader.apply(key); // bypass: a load in flight may have read before the write behind the floor
        }
        CacheTransaction tx = CacheTransaction.current();
        if (tx != null) {
            return loadInTransaction(key, loader, tx);
        }
        long contextSince = PersistenceContextReads.openSince();
        return contextSince == PersistenceContextReads.NONE ? loadSingleFlight(key, loader)
                : loadWithoutLeading(key, loader, contextSince);
    }

    /**
     * A miss while a persistence context is open on this thread: joins a load already running elsewhere, but never
     * leads one, since waiting callers must not receive an entity the context read before a change they have seen.
     */
    private V loadWithoutLeading(K key, Function<? super K, ? extends V> loader, long contextSince) {
        CompletableFuture<V> leader = inFlight.get(key);
        return leader != null ? join(leader) : loadAsOf(key, loader, contextSince);
    }

    /** Stamp as of a persistence context's opening, read, store-if-unchanged. */
    private V loadAsOf(K key, Function<? super K, ? extends V> loader, long contextSince) {
        LoadStamp<K> stamp = stampAsOfFloor(key, contextSince);
        V value = loader.apply(key);
        storeCommitted(stamp, value);
        return value;
    }

    /**
     * A miss inside a transaction: joins a load already running outside any transaction, but never leads one,
     * since waiting callers must not receive a value from this transaction's snapshot or uncommitted writes.
     */
    private V loadInTransaction(K key, Function<? super K, ? extends V> loader, CacheTransaction tx) {
        CompletableFuture<V> leader = inFlight.get(key);
        if (leader != null) {
            return join(leader);
        }
        LoadStamp<K> stamp = tx.stamp(this, key);
        V value = loader.apply(key);
        tx.keep(this, stamp, value);
        return value;
    }

    /**
     * A hit's entry when the gate was not open before the lookup: once the gate lets the read through (after
     * waiting for the floor if need be), the entry looked up again, since the one looked up before may predate the
     * write whose eviction the floor waited for; {@code null} for a miss or a bypass.
     */
    private Object servableAfterFloor(K key) {
        return admits(true) ? servable(key) : null;
    }

    /**
     * The gate's answer, and never on the consistency sampler's thread: a sample's re-read bypasses every cache
     * (see ConsistencySampler#onRereadThread).
     */
    private boolean admits(boolean mayWait) {
        return !ConsistencySampler.onRereadThread() && gate.admits(mayWait);
    }

    /** The servable entry of {@code key} (a value or a {@link CachedValue}) or {@code null}, counting nothing. */
    private Object servable(K key) {
        Object entry = entries.get(key);
        return entry != null && guard.isServable(CachedValue.loadedAtMillis(entry)) ? entry : null;
    }

    private V loadSingleFlight(K key, Function<? super K, ? extends V> loader) {
        CompletableFuture<V> mine = new CompletableFuture<>();
        CompletableFuture<V> leader = inFlight.putIfAbsent(key, mine);
        if (leader != null) {
            return join(leader);
        }
        try {
            // A load may just have finished between our miss and our registration.
            Object entry = servable(key);
            if (entry != null) {
                V value = CachedValue.valueOf(entry);
                mine.complete(value);
                return value;
            }
            V value = load(key, loader);
            mine.complete(value);
            return value;
        } catch (Throwable t) {
            mine.completeExceptionally(t);
            throw t;
        } finally {
            inFlight.remove(key, mine);
        }
    }

    /** Stamp, read, store-if-unchanged; the stamp must precede the read. */
    private V load(K key, Function<? super K, ? extends V> loader) {
        long contextSince = PersistenceContextReads.openSince();
        if (contextSince != PersistenceContextReads.NONE) {
            // Also a refresh run on this thread by a caller-runs executor: the context may answer it.
            return loadAsOf(key, loader, contextSince);
        }
        int stripe = InvalidationGenerations.stripe(key);
        long cacheGeneration = generations.cacheGenerationForStamp();
        long keyGeneration = generations.keyGeneration(stripe);
        long startedAt = guard.now();
        guard.tickIfLate(startedAt);
        long replicaMark = ReplicaReads.mark();
        V value = loader.apply(key);
        store(key, value, stripe, keyGeneration, cacheGeneration, startedAt, replicaMark, false);
        return value;
    }

    private static <V> V join(CompletableFuture<V> future) {
        try {
            return future.join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }

    /**
     * Starts one asynchronous reload of an old entry. Refreshes are kept apart from {@link #inFlight}: a miss never
     * waits for a refresh, because an executor may accept a task and never run it (a discarding rejection policy,
     * a shutdown, a saturated queue that drops) and a miss joining that refresh would wait forever. A refresh
     * marker older than {@link #staleRefreshMillis} is taken over, so a dropped refresh does not stop later ones.
     */
    private void refreshIfOld(K key, Object entry, Function<? super K, ? extends V> loader) {
        if (CacheTransaction.current() != null) {
            // An executor that runs tasks on the caller's thread would read inside this transaction's snapshot.
            return;
        }
        long now = guard.now();
        long loadedAt = CachedValue.loadedAtMillis(entry);
        // Under refresh-ahead every load is stored with its time; one without (put in by hand) counts as old.
        if (loadedAt != CachedValue.UNKNOWN_LOAD && now - loadedAt < refreshAfterMillis) {
            return;
        }
        RefreshMarker mine = new RefreshMarker(now);
        RefreshMarker running = refreshing.putIfAbsent(key, mine);
        if (running != null && (now - running.startedAtMillis < staleRefreshMillis
                || !refreshing.replace(key, running, mine))) {
            return; // a refresh of this key is already running
        }
        if (inFlight.containsKey(key)) {
            refreshing.remove(key, mine); // a load of this key is already running
            return;
        }
        try {
            refreshExecutor.execute(() -> {
                try {
                    load(key, loader);
                } catch (RuntimeException e) {
                    // The cached value stays; the next hit after the marker is gone tries again.
                } finally {
                    refreshing.remove(key, mine);
                }
            });
        } catch (RuntimeException rejected) {
            refreshing.remove(key, mine);
        }
    }

    /** A refresh in progress; compared by identity. */
    private static final class RefreshMarker {
        final long startedAtMillis;

        RefreshMarker(long startedAtMillis) {
            this.startedAtMillis = startedAtMillis;
        }
    }

    /**
     * Stores the value if no invalidation of its key or of the cache was applied since the generations were
     * read. The re-check runs inside {@code compute}, which is serialized with the removal an invalidation
     * performs after incrementing the generation.
     *
     * @param keepLoadTime store it in a {@link CachedValue} with {@code startedAt} even while the client is fresh
     */
    private boolean store(K key, V value, int stripe, long keyGeneration, long cacheGeneration, long startedAt,
            long replicaMark, boolean keepLoadTime) {
        if (value == null && !cacheNulls || ConsistencySampler.onRereadThread()) {
            return false; // a sample's re-read stores nothing: see ConsistencySampler#onRereadThread
        }
        if (ReplicaReads.mark() != replicaMark) {
            // A read on this thread since the stamp could not be shown to reflect every applied invalidation.
            loadListener.discarded(name);
            return false;
        }
        if (!generations.unchanged(stripe, keyGeneration, cacheGeneration)) {
            loadListener.discarded(name);
            return false;
        }
        // Without its load time only while it makes no difference (see the class comment); a value that is itself a
        // CachedValue is wrapped so that it is not taken for one.
        boolean stamped = keepLoadTime || value == null || value instanceof CachedValue<?> || refreshAfterMillis > 0
                || guard.lagging(guard.now());
        Object fresh = stamped ? new CachedValue<>(value, startedAt) : value;
        boolean[] stored = new boolean[1];
        entries.compute(key, (k, current) -> {
            if (!generations.unchanged(stripe, keyGeneration, cacheGeneration)) {
                return current;
            }
            if (current != null) {
                long currentLoad = CachedValue.loadedAtMillis(current);
                if (currentLoad != CachedValue.UNKNOWN_LOAD) {
                    if (currentLoad > startedAt) {
                        return current; // never replace a value whose read started later than ours
                    }
                } else if (latestUnstampedLoads.get(stripe) > startedAt) {
                    // Stored as is: its read may have started later than ours, or not (a stripe-mate's may have).
                    // Neither value is shown to be the later one: keep neither, the next read loads the row again.
                    return null;
                }
            }
            if (!stamped) {
                latestUnstampedLoads.accumulateAndGet(stripe, startedAt, Math::max); // before the value is readable
            }
            stored[0] = true;
            storeHook.run();
            return fresh;
        });
        // A key invalidation removes the key under its bin lock, serialized with the compute above. An evict-all
        // is not: Caffeine's clear() walks the map and skips a bin whose compute of an absent key is in progress
        // (a reservation node). So an evict-all applied while the compute ran may have missed what it stored.
        // Its generation moved before its clear() began; seeing it unchanged here means the clear() starts after
        // the compute finished and removes the entry itself.
        if (stored[0] && !generations.unchanged(stripe, keyGeneration, cacheGeneration)) {
            // By identity: remove(key, value) would compare with the application's equals.
            entries.computeIfPresent(key, (k, current) -> current == fresh ? null : current);
            stored[0] = false;
        }
        if (!stored[0] && !generations.unchanged(stripe, keyGeneration, cacheGeneration)) {
            loadListener.discarded(name);
        }
        return stored[0];
    }

    @Override
    public Map<K, V> getAll(Collection<? extends K> keys,
            Function<? super Set<? extends K>, ? extends Map<? extends K, ? extends V>> bulkLoader) {
        // The two arrays filled here become the result's (see BulkLookupResult): no map nodes, no second copy.
        int size = keys.size();
        Object[] requested = new Object[size];
        Object[] found = new Object[size];
        int i = 0;
        for (K key : keys) {
            requested[i++] = key;
        }
        boolean open = gate.isOpen() && !ConsistencySampler.onRereadThread(); // before the lookups: see ReadGate#isOpen
        Set<K> missing = lookUp(requested, found);
        int hits = hits(found);
        if (!open) {
            if (!admits(hits > 0)) {
                stats.recordMisses(size);
                return bypassAll(keys, bulkLoader);
            }
            if (hits > 0) {
                // The floor is proven now, its write's evictions done: the entries found before may be values they
                // evicted.
                missing = lookUp(requested, found);
                hits = hits(found);
            }
        }
        stats.recordHits(hits);
        stats.recordMisses(size - hits);
        if (missing != null) {
            Map<? extends K, ? extends V> loaded = loadMissing(missing, bulkLoader);
            for (i = 0; i < size; i++) {
                if (found[i] == MISSED) {
                    found[i] = loaded.get(requested[i]);
                }
            }
        }
        return new BulkLookupResult<K, V>(requested, found).seal();
    }

    /**
     * Looks every requested key up: {@code found[i]} becomes the value of a servable entry or {@link #MISSED}.
     *
     * @return the keys missed, or {@code null} if none
     */
    private Set<K> lookUp(Object[] requested, Object[] found) {
        int size = requested.length;
        for (int i = 0; i < size; i++) {
            found[i] = entries.get(requested[i]);
        }
        // One clock read for the whole batch, taken after every lookup: later than each lookup, so the
        // staleness check is, if anything, stricter than one clock read per key (which costs ~40 ns each).
        long now = guard.now();
        guard.tickIfLate(now);
        Set<K> missing = null;
        for (int i = 0; i < size; i++) {
            Object entry = found[i];
            if (entry != null && guard.isServable(CachedValue.loadedAtMillis(entry), now)) {
                found[i] = CachedValue.valueOf(entry);
            } else {
                if (missing == null) {
                    missing = new LinkedHashSet<>();
                }
                @SuppressWarnings("unchecked")
                K key = (K) requested[i];
                missing.add(key);
                found[i] = MISSED;
            }
        }
        return missing;
    }

    private static int hits(Object[] found) {
        int hits = 0;
        for (Object value : found) {
            if (value != MISSED) {
                hits++;
            }
        }
        return hits;
    }

    /** A bulk read under an unproven read floor: every key from the loader, nothing stored. */
    private Map<K, V> bypassAll(Collection<? extends K> keys,
            Function<? super Set<? extends K>, ? extends Map<? extends K, ? extends V>> bulkLoader) {
        Set<K> all = new LinkedHashSet<>(keys);
        Map<? extends K, ? extends V> loaded = bulkLoader.apply(Collections.unmodifiableSet(all));
        Map<K, V> result = new LinkedHashMap<>((int) (all.size() / 0.75f) + 1);
        for (K key : keys) {
            V value = loaded == null ? null : loaded.get(key);
            if (value != null) {
                result.put(key, value);
            }
        }
        return Collections.unmodifiableMap(result); // as every other getAll result
    }

    private Map<? extends K, ? extends V> loadMissing(Set<K> missing,
            Function<? super Set<? extends K>, ? extends Map<? extends K, ? extends V>> bulkLoader) {
        CacheTransaction tx = CacheTransaction.current();
        if (tx != null) {
            return loadMissingInTransaction(missing, bulkLoader, tx);
        }
        long contextSince = PersistenceContextReads.openSince();
        if (contextSince != PersistenceContextReads.NONE) {
            return loadMissingInPersistenceContext(missing, bulkLoader, contextSince);
        }
        int n = missing.size();
        int[] stripes = new int[n];
        long[] keyGenerations = new long[n];
        long cacheGeneration = generations.cacheGenerationForStamp();
        int i = 0;
        for (K key : missing) {
            stripes[i] = InvalidationGenerations.stripe(key);
            keyGenerations[i] = generations.keyGeneration(stripes[i]);
            i++;
        }
        long startedAt = guard.now();
        long replicaMark = ReplicaReads.mark();
        Map<? extends K, ? extends V> loaded = bulkLoader.apply(Collections.unmodifiableSet(missing));
        if (loaded == null) {
            loaded = Collections.emptyMap();
        }
        i = 0;
        for (K key : missing) {
            store(key, loaded.get(key), stripes[i], keyGenerations[i], cacheGeneration, startedAt, replicaMark,
                    false);
            i++;
        }
        return loaded;
    }

    private Map<? extends K, ? extends V> loadMissingInTransaction(Set<K> missing,
            Function<? super Set<? extends K>, ? extends Map<? extends K, ? extends V>> bulkLoader,
            CacheTransaction tx) {
        List<LoadStamp<K>> stamps = new ArrayList<>(missing.size());
        for (K key : missing) {
            stamps.add(tx.stamp(this, key));
        }
        Map<? extends K, ? extends V> loaded = bulkLoader.apply(Collections.unmodifiableSet(missing));
        if (loaded == null) {
            loaded = Collections.emptyMap();
        }
        for (LoadStamp<K> stamp : stamps) {
            tx.keep(this, stamp, loaded.get(stamp.key()));
        }
        return loaded;
    }

    /** A bulk load while a persistence context is open on this thread: stamped as of its opening. */
    private Map<? extends K, ? extends V> loadMissingInPersistenceContext(Set<K> missing,
            Function<? super Set<? extends K>, ? extends Map<? extends K, ? extends V>> bulkLoader,
            long contextSince) {
        List<LoadStamp<K>> stamps = new ArrayList<>(missing.size());
        for (K key : missing) {
            stamps.add(stampAsOfFloor(key, contextSince));
        }
        Map<? extends K, ? extends V> loaded = bulkLoader.apply(Collections.unmodifiableSet(missing));
        if (loaded == null) {
            loaded = Collections.emptyMap();
        }
        for (LoadStamp<K> stamp : stamps) {
            storeCommitted(stamp, loaded.get(stamp.key()));
        }
        return loaded;
    }

    @Override
    public LoadStamp<K> beginLoad(K key) {
        Objects.requireNonNull(key, "key");
        CacheTransaction tx = CacheTransaction.current();
        return tx == null ? stampNow(key) : tx.stamp(this, key);
    }

    @Override
    public LoadStamp<K> beginLoadAsOf(K key, long sequence) {
        Objects.requireNonNull(key, "key");
        CacheTransaction tx = CacheTransaction.current();
        if (tx == null) {
            return stampAsOf(key, sequence);
        }
        return switch (tx.isolation()) {
            case READ_COMMITTED -> stampAsOf(key, CacheTransaction.isFence(tx.readCommittedAsOf())
                    ? Math.min(sequence, tx.readCommittedAsOf()) : sequence);
            case READ_UNCOMMITTED -> stampNow(key).notCacheable();
            // The earlier of the two: the caller's read may have begun before the transaction's snapshot, or after.
            default -> stampAsOf(key, Math.min(sequence, tx.beganAt()));
        };
    }

    /**
     * A stamp taken now (outside a transaction, or at READ COMMITTED), or as of the opening of a persistence context
     * open on this thread, which may answer the load with what it read then.
     */
    LoadStamp<K> stampNow(K key) {
        long contextSince = PersistenceContextReads.openSince();
        return contextSince == PersistenceContextReads.NONE ? generations.stamp(key, guard.now())
                : stampAsOfFloor(key, contextSince);
    }

    /** The stamp {@link #stampNow} would have returned when {@code sequence} was drawn, or one never cached. */
    LoadStamp<K> stampAsOf(K key, long sequence) {
        return stampAsOfFloor(key, Math.min(sequence, PersistenceContextReads.openSince()));
    }

    /** {@link #stampAsOf} for a sequence value that already accounts for the persistence contexts open here. */
    private LoadStamp<K> stampAsOfFloor(K key, long sequence) {
        // Generations first, marks second: an invalidation records its mark before it bumps the generation, so
        // one that the marks do not show yet is seen by putLoaded's generation check (see InvalidationSequence).
        LoadStamp<K> now = generations.stamp(key, Math.min(guard.now(), InvalidationSequence.epochMillis(sequence)));
        // A replica read found behind since the sequence was drawn (at a connection checkout before this stamp) may
        // be the one this value comes from.
        return sequenceMarks.unchangedSince(now.stripe(), sequence) && !ReplicaReads.behindSince(sequence) ? now
                : now.notCacheable();
    }

    @Override
    public long lastInvalidationSequence() {
        return sequenceMarks.latest();
    }

    /**
     * {@inheritDoc}
     *
     * <p>Inside a {@link CacheTransaction} the value is kept aside and stored when the transaction commits: this
     * returns {@code false} then.
     */
    @Override
    public boolean putLoaded(LoadStamp<K> stamp, V value) {
        CacheTransaction tx = CacheTransaction.current();
        if (tx != null) {
            tx.keep(this, stamp, value);
            return false;
        }
        return storeCommitted(stamp, value);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Inside a {@link CacheTransaction} the value stands for a read at the transaction's begin and is stored when
     * it commits, only if no invalidation of the key was applied since the begin: this returns {@code false} then.
     */
    @Override
    public boolean put(K key, V value) {
        Objects.requireNonNull(key, "key");
        CacheTransaction tx = CacheTransaction.current();
        if (tx != null) {
            tx.keep(this, tx.stampForPut(this, key), value);
            return false;
        }
        // With its time: a put often marks something (a Hibernate soft lock, a value just written) that an earlier
        // load must not replace, and without it the earlier load could only drop both.
        LoadStamp<K> stamp = stampNow(key);
        return store(stamp.key(), value, stamp.stripe(), stamp.keyGeneration(), stamp.cacheGeneration(),
                stamp.startedAtMillis(), stamp.replicaMark(), true);
    }

    /** Stores a value whose read is known to be committed (outside a transaction, or after its commit). */
    boolean storeCommitted(LoadStamp<K> stamp, V value) {
        return store(stamp.key(), value, stamp.stripe(), stamp.keyGeneration(), stamp.cacheGeneration(),
                stamp.startedAtMillis(), stamp.replicaMark(), false);
    }

    /** A value a transaction kept aside was dropped. */
    void deferredDropped(DropReason reason) {
        loadListener.dropped(name, reason);
    }

    @Override
    public void invalidate(K key) {
        evict(key, null);
    }

    /**
     * Consistency sampler: evicts {@code key}, whose {@code entry} a sample proved stale, as an invalidation does.
     * To the key's other pending samples it is no invalidation that arrived (that would explain their difference):
     * they find {@code entry} proven stale.
     */
    void evictProvenStale(K key, Object entry) {
        evict(key, Objects.requireNonNull(entry));
    }

    private void evict(K key, Object provenStale) {
        // Sequence mark, generation, then removal: see the class comment and InvalidationSequence.
        sequenceMarks.markKey(InvalidationGenerations.stripe(key));
        generations.invalidateKey(key);
        if (sampler != null) {
            KeyWatch watch = watchedKeys.get(key);
            if (watch != null) {
                // before the removal a sample's recheck may see
                if (provenStale == null) {
                    watch.invalidations.incrementAndGet();
                } else {
                    watch.provenStale = provenStale;
                }
            }
        }
        inFlight.remove(key);
        refreshing.remove(key);
        cache.invalidate(key);
    }

    @Override
    public void invalidateAll() {
        sequenceMarks.markAll();
        generations.invalidateAll();
        inFlight.clear();
        refreshing.clear();
        cache.invalidateAll();
    }

    /** The invalidation generations that concern {@code key} now: its stripe, the stripe's and the cache's. */
    long[] generationsOf(K key) {
        int stripe = InvalidationGenerations.stripe(key);
        // Cache generation first, as for a load stamp.
        long cacheGeneration = generations.cacheGenerationForStamp();
        return new long[] {stripe, generations.keyGeneration(stripe), cacheGeneration};
    }

    /**
     * Counts the invalidations of one key while consistency samples of it are pending: the striped generations say
     * only that some key of the stripe was invalidated, which cannot tell a sampled entry that an invalidation took
     * out from one that left by size or expiry while a stripe-mate was invalidated.
     */
    static final class KeyWatch {
        final AtomicLong invalidations = new AtomicLong();
        /** The entry a sample proved stale and the sampler evicted, if any (see #evictProvenStale). */
        volatile Object provenStale;
        int users; // guarded by the map's compute
    }

    /** Consistency sampler: starts counting the invalidations of {@code key} (released by {@link #unwatch}). */
    KeyWatch watch(K key) {
        return watchedKeys.compute(key, (k, w) -> {
            KeyWatch watch = w == null ? new KeyWatch() : w;
            watch.users++;
            return watch;
        });
    }

    /** Consistency sampler: a sample of {@code key} that {@link #watch watched} it ended. */
    void unwatch(K key) {
        watchedKeys.computeIfPresent(key, (k, w) -> --w.users == 0 ? null : w);
    }

    /** Whether the whole cache was invalidated since the generations {@code taken} by {@link #generationsOf}. */
    boolean cacheInvalidatedSince(long[] taken) {
        return generations.cacheInvalidatedSince(taken[2]);
    }

    /** Whether no invalidation that concerns the key of {@link #generationsOf} has been applied since. */
    boolean generationsUnchanged(long[] taken) {
        return generations.unchanged((int) taken[0], taken[1], taken[2]);
    }

    /**
     * The entry of {@code key} as stored (a value or a {@link CachedValue}), servable or not, without counting a hit
     * or miss.
     */
    Object entryOf(K key) {
        return entries.get(key);
    }

    /** Whether the staleness guard lets {@code entry} (as {@link #entryOf} returns it) be served now. */
    boolean servableNow(Object entry) {
        return guard.isServable(CachedValue.loadedAtMillis(entry));
    }

    /** Test hook: {@code hook} runs inside the compute that stores a loaded value, after its generation check. */
    void onStoreInProgress(Runnable hook) {
        this.storeHook = hook;
    }

    /** Starts caching; called when the client is ready. Loads stamped before are not cached. */
    public void startAccepting() {
        sequenceMarks.markAll();
        generations.startAccepting();
        cache.invalidateAll();
    }

    /** Whether loads are cached (the client is ready). */
    public boolean accepting() {
        return generations.accepting();
    }

    @Override
    public long estimatedSize() {
        return cache.estimatedSize();
    }

    @Override
    public Cache<K, Object> caffeine() {
        return cache;
    }

    @Override
    public String toString() {
        return "InvalidatingCache[" + name + ", ~" + cache.estimatedSize() + " entries]";
    }
}
