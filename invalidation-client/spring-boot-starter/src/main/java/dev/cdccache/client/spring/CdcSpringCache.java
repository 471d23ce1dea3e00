package dev.cdccache.client.spring;

import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.cache.LoadStamp;
import dev.cdccache.client.cache.SampledHit;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.springframework.cache.Cache;
import org.springframework.cache.support.SimpleValueWrapper;

/**
 * A Spring {@link Cache} over an {@link InvalidatingCache}, keeping the no-stale-populate guarantee for both
 * {@code @Cacheable} modes:
 * <ul>
 *   <li>{@code sync = true}: Spring calls {@link #get(Object, Callable)}, which is the core's single-flight
 *       load.</li>
 *   <li>{@code sync = false}: Spring calls {@link #get(Object)}, on a miss runs the method, then calls
 *       {@link #put}. The miss takes a {@link LoadStamp} before the method reads the database, and {@code put} of
 *       that key stores the value only if no invalidation was applied since.</li>
 * </ul>
 *
 * <p><b>One instance per invocation.</b> {@link CdcCacheManager#getCache} returns a new instance on every call,
 * and Spring's caching interceptor asks for its caches at the start of every invocation of a cached method, so
 * the stamps of one invocation live in an object that invocation alone uses: a stamp never outlives the
 * invocation that took it (a miss whose put never comes, through {@code unless} or an exception, leaves nothing
 * behind for a later {@code @CachePut} on the same pooled thread), and nested invocations, even of the same key,
 * each match their own put. What instances of one cache share (the core cache, counters, key checks) is in
 * {@link Shared}.
 *
 * <p><b>A put that cannot be verified is not stored</b>, because it could hold a value read before an
 * invalidation this client already applied, and nothing would ever evict it:
 * <ul>
 *   <li>a {@code put} without a preceding miss of its key through this instance ({@code @CachePut}, a direct
 *       {@code Cache.put}) is dropped, and the key is evicted (whatever is cached for a key the application
 *       says changed is suspect; the next read loads it);</li>
 *   <li>a second miss of a key through one instance, on one thread, before the put of the first (a long-lived
 *       instance the application holds and re-enters) cannot tell which put belongs to which read, so the next
 *       put of that key is dropped.</li>
 * </ul>
 * Both are counted in {@code cdc.client.puts.unverified} (tags cache, reason {@code no-stamp} or
 * {@code ambiguous}) and {@link #unverifiedPuts()}.
 *
 * <p><b>Transactions.</b> Inside a Spring-managed transaction the core's {@code CacheTransaction} (begun by the
 * starter's transaction listener) stamps loads for the transaction's snapshot and keeps their values aside until
 * the commit. A transaction whose begin the starter did not see (a transaction manager it could not attach its
 * listener to) caches nothing it reads; see {@link SpringTransactions}.
 *
 * <p>Cached absences ({@code cache-nulls}) are returned as a wrapper of {@code null}, as Spring expects.
 *
 * <p><b>Consistency sampling.</b> A hit of {@link #get(Object)} is drawn like a hit of the core's
 * {@code get(key, loader)}; a drawn hit inside a non-{@code sync} {@code @Cacheable} invocation is re-read by calling
 * the method again ({@link CacheableInvocations}). {@code sync = true} is sampled by the core's {@code get}.
 */
final class CdcSpringCache implements Cache {

    /** Open misses kept per instance and thread; the oldest is forgotten beyond (its put is then dropped). */
    static final int MAX_OPEN_KEYS = 64;

    /** Marks a key missed twice before its put: the put cannot be matched to its read. */
    private static final LoadStamp<Object> AMBIGUOUS = null;
    /** What {@code getOrDefault} returns on a miss; never a cached value. */
    private static final Object MISSING = new Object();

    private final Shared shared;
    private final InvalidatingCache<Object, Object> cache;
    /** Misses awaiting their put, by thread and key; created on the first miss (hits allocate nothing). */
    private Map<OpenLoad, LoadStamp<Object>> openLoads;

    CdcSpringCache(Shared shared) {
        this.shared = shared;
        this.cache = shared.cache;
    }

    /** A single instance over {@code cache}, without key checks or meters (tests, benchmarks). */
    CdcSpringCache(InvalidatingCache<Object, Object> cache) {
        this(new Shared(cache, null, null, null));
    }

    /** Puts dropped because they could not be verified (no stamp, or an ambiguous one); see the class comment. */
    long unverifiedPuts() {
        return shared.noStamp.sum() + shared.ambiguous.sum();
    }

    @Override
    public String getName() {
        return cache.name();
    }

    /** The core {@link InvalidatingCache}. */
    @Override
    public Object getNativeCache() {
        return cache;
    }

    @Override
    public ValueWrapper get(Object key) {
        Object value = cache.getOrDefault(key, MISSING);
        if (value != MISSING) {
            SampledHit<Object, Object> sample = cache.drawSample(key, value);
            if (sample != null) {
                // Drawn (1 hit in sampling.one-in): re-read by calling the @Cacheable method again, if one is running.
                CacheableInvocations.drawn(sample, value);
            }
            return new SimpleValueWrapper(value);
        }
        missed(key);
        return null;
    }

    /** Records the stamp of a miss BEFORE the caller reads the database. */
    private void missed(Object key) {
        shared.checkKeyType(key);
        SpringTransactions.coverUntrackedTransaction();
        OpenLoad open = new OpenLoad(Thread.currentThread(), key);
        synchronized (this) {
            if (openLoads == null) {
                openLoads = new LinkedHashMap<>(4) {
                    @Override
                    protected boolean removeEldestEntry(Map.Entry<OpenLoad, LoadStamp<Object>> eldest) {
                        return size() > MAX_OPEN_KEYS;
                    }
                };
            }
            if (openLoads.containsKey(open)) {
                openLoads.put(open, AMBIGUOUS);
                return;
            }
        }
        LoadStamp<Object> stamp = cache.beginLoad(key);
        synchronized (this) {
            openLoads.putIfAbsent(open, stamp);
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T get(Object key, Class<T> type) {
        Object value = cache.getOrDefault(key, MISSING);
        if (value == MISSING) {
            missed(key);
            return null;
        }
        if (value != null && type != null && !type.isInstance(value)) {
            throw new IllegalStateException("Cached value is not of required type [" + type.getName() + "]: " + value);
        }
        return (T) value;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T get(Object key, Callable<T> valueLoader) {
        // Before the core's get, not in the loader: the core picks how a miss is stored (directly, or kept aside by
        // the current CacheTransaction) before it runs the loader, so a transaction covered only there would not
        // keep its first load from being cached.
        SpringTransactions.coverUntrackedTransaction();
        return (T) cache.get(key, k -> {
            // In the loader: misses only.
            shared.checkKeyType(k);
            try {
                return valueLoader.call();
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Exception e) {
                throw new ValueRetrievalException(k, valueLoader, e);
            }
        });
    }

    @Override
    public void put(Object key, Object value) {
        shared.checkKeyType(key);
        LoadStamp<Object> stamp;
        boolean found;
        synchronized (this) {
            OpenLoad open = new OpenLoad(Thread.currentThread(), key);
            found = openLoads != null && openLoads.containsKey(open);
            stamp = found ? openLoads.remove(open) : null;
        }
        if (!found) {
            // No read-before-invalidation proof: the value may predate an invalidation already applied.
            shared.noStamp.increment();
            cache.invalidate(key);
            return;
        }
        if (stamp == AMBIGUOUS) {
            shared.ambiguous.increment();
            return;
        }
        cache.putLoaded(stamp, value);
    }

    @Override
    public ValueWrapper putIfAbsent(Object key, Object value) {
        Object cached = cache.getOrDefault(key, MISSING);
        if (cached != MISSING) {
            return new SimpleValueWrapper(cached);
        }
        put(key, value);
        return null;
    }

    @Override
    public void evict(Object key) {
        cache.invalidate(key);
    }

    @Override
    public boolean evictIfPresent(Object key) {
        boolean present = cache.caffeine().asMap().containsKey(key); // not a read: counts no hit or miss
        cache.invalidate(key);
        return present;
    }

    @Override
    public void clear() {
        cache.invalidateAll();
    }

    @Override
    public boolean invalidate() {
        boolean notEmpty = cache.estimatedSize() > 0;
        cache.invalidateAll();
        return notEmpty;
    }

    @Override
    public String toString() {
        return "CdcSpringCache[" + cache.name() + "]";
    }

    /** A miss awaiting its put: the thread that missed, and the key. */
    private record OpenLoad(Thread thread, Object key) {
    }

    /** What every instance over one core cache shares: the cache, the key-type check and the counters. */
    static final class Shared {

        final InvalidatingCache<Object, Object> cache;
        /** The key types events evict from this cache, or {@code null} when unknown (no check). */
        private final EvictedKeyTypes evictedKeys;
        /** Key classes already found able to match: the check runs once per class, on misses only. */
        private final Set<Class<?>> checkedKeyClasses = ConcurrentHashMap.newKeySet();
        final LongAdder noStamp = new LongAdder();
        final LongAdder ambiguous = new LongAdder();

        /**
         * @param evictedKeys the key types events evict, to reject keys that can never match; {@code null}: no check
         * @param registry where to register {@code cdc.client.puts.unverified}, or {@code null}
         * @param clientId the {@code client} tag, as on the client's other meters
         */
        Shared(InvalidatingCache<Object, Object> cache, EvictedKeyTypes evictedKeys, MeterRegistry registry,
                String clientId) {
            this.cache = cache;
            this.evictedKeys = evictedKeys;
            if (registry != null) {
                unverifiedCounter(registry, clientId, "no-stamp", noStamp);
                unverifiedCounter(registry, clientId, "ambiguous", ambiguous);
            }
        }

        private void unverifiedCounter(MeterRegistry registry, String clientId, String reason, LongAdder count) {
            FunctionCounter.builder("cdc.client.puts.unverified", count, LongAdder::sum)
                    .tags("client", clientId, "cache", cache.name(), "reason", reason)
                    .description("Puts not stored because no read-before-invalidation proof (stamp) matched them")
                    .register(registry);
        }

        /**
         * Fails a miss whose key can never equal a key change events evict (e.g. an {@code Integer} from a
         * {@code key} expression over a {@code BIGINT} id): caching it would keep the value stale until it expires.
         * The start-up check ({@code CacheKeyTypeCheck}) catches the declared cases; this one keys built at runtime.
         */
        void checkKeyType(Object key) {
            if (evictedKeys == null || checkedKeyClasses.contains(key.getClass())) {
                return;
            }
            if (!evictedKeys.canMatch(key.getClass())) {
                throw new IllegalArgumentException("Cache '" + cache.name() + "': "
                        + evictedKeys.mismatch("a lookup", key.getClass()));
            }
            checkedKeyClasses.add(key.getClass());
        }
    }
}
