package dev.cdccache.client.spring;

import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.cache.CachedValue;
import dev.cdccache.client.cache.LoadStamp;
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
 *       {@link #put}. The miss takes a {@link LoadStamp} before the method reads the database, remembered per
 *       thread <em>and per key</em>, and {@code put} of that key on that thread stores the value only if no
 *       invalidation was applied since. Per key, because one thread can have several loads of one cache open
 *       at once: a {@code @Cacheable} method calling another one on the same cache, or {@code @Caching} with two
 *       operations on one cache (misses of both keys, then the method, then both puts).</li>
 * </ul>
 *
 * <p><b>A put that cannot be verified is not stored</b>, because it could hold a value read before an
 * invalidation this client already applied, and nothing would ever evict it:
 * <ul>
 *   <li>a {@code put} without a preceding miss of its key on this thread ({@code @CachePut}, a direct
 *       {@code Cache.put}) is dropped, and the key is evicted (whatever is cached for a key the application
 *       says changed is suspect; the next read loads it);</li>
 *   <li>a second miss of a key whose earlier miss on this thread has no put yet (a nested load of the same key,
 *       or an earlier miss whose put never came: {@code unless}, an exception, a hit of a later
 *       {@code @Caching} operation) cannot tell which put belongs to which read, so the next put of that key is
 *       dropped.</li>
 * </ul>
 * Both are counted in {@code cdc.client.puts.unverified} (tags cache, reason {@code no-stamp} or
 * {@code ambiguous}) and {@link #unverifiedPuts()}. Loads through {@code sync = true} or the core's
 * {@code get(key, loader)} never need this. Stamps of misses whose put never came are kept for at most
 * {@value #MAX_OPEN_KEYS} keys per thread and cache.
 *
 * <p>Cached absences ({@code cache-nulls}) are returned as a wrapper of {@code null}, as Spring expects.
 */
final class CdcSpringCache implements Cache {

    /** Open misses kept per thread and cache; the oldest is forgotten beyond (its put is then dropped). */
    static final int MAX_OPEN_KEYS = 64;

    /** Marks a key missed twice before its put: the put cannot be matched to its read. */
    private static final LoadStamp<Object> AMBIGUOUS = null;

    private final InvalidatingCache<Object, Object> cache;
    /** The key types events evict from this cache, or {@code null} when unknown (no check). */
    private final EvictedKeyTypes evictedKeys;
    /** Key classes already found able to match: the check runs once per class, on misses only. */
    private final Set<Class<?>> checkedKeyClasses = ConcurrentHashMap.newKeySet();
    private final ThreadLocal<OpenLoads> openLoads = ThreadLocal.withInitial(OpenLoads::new);
    private final LongAdder noStamp = new LongAdder();
    private final LongAdder ambiguous = new LongAdder();

    CdcSpringCache(InvalidatingCache<Object, Object> cache) {
        this(cache, null, null, null);
    }

    /**
     * @param evictedKeys the key types events evict, to reject keys that can never match; {@code null}: no check
     * @param registry where to register {@code cdc.client.puts.unverified}, or {@code null}
     * @param clientId the {@code client} tag, as on the client's other meters
     */
    CdcSpringCache(InvalidatingCache<Object, Object> cache, EvictedKeyTypes evictedKeys, MeterRegistry registry,
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

    /** Puts dropped because they could not be verified (no stamp, or an ambiguous one); see the class comment. */
    long unverifiedPuts() {
        return noStamp.sum() + ambiguous.sum();
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
        CachedValue<Object> entry = cache.lookup(key);
        if (entry != null) {
            return new SimpleValueWrapper(entry.value());
        }
        missed(key);
        return null;
    }

    /** Records the stamp of a miss BEFORE the caller reads the database. */
    private void missed(Object key) {
        checkKeyType(key);
        OpenLoads open = openLoads.get();
        if (open.containsKey(key)) {
            // Nested load of the same key, or a miss whose put never came: the put cannot be matched to a read.
            open.put(key, AMBIGUOUS);
        } else {
            open.put(key, cache.beginLoad(key));
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T get(Object key, Class<T> type) {
        CachedValue<Object> entry = cache.lookup(key);
        if (entry == null) {
            missed(key);
            return null;
        }
        Object value = entry.value();
        if (value != null && type != null && !type.isInstance(value)) {
            throw new IllegalStateException("Cached value is not of required type [" + type.getName() + "]: " + value);
        }
        return (T) value;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T get(Object key, Callable<T> valueLoader) {
        return (T) cache.get(key, k -> {
            checkKeyType(k); // in the loader: misses only
            try {
                return valueLoader.call();
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Exception e) {
                throw new ValueRetrievalException(k, valueLoader, e);
            }
        });
    }

    /**
     * Fails a miss whose key can never equal a key change events evict (e.g. an {@code Integer} from a
     * {@code key} expression over a {@code BIGINT} id): caching it would keep the value stale until it expires.
     * The start-up check ({@code CacheKeyTypeCheck}) catches the declared cases; this one keys built at runtime.
     */
    private void checkKeyType(Object key) {
        if (evictedKeys == null || checkedKeyClasses.contains(key.getClass())) {
            return;
        }
        if (!evictedKeys.canMatch(key.getClass())) {
            throw new IllegalArgumentException("Cache '" + cache.name() + "': "
                    + evictedKeys.mismatch("a lookup", key.getClass()));
        }
        checkedKeyClasses.add(key.getClass());
    }

    @Override
    public void put(Object key, Object value) {
        checkKeyType(key);
        OpenLoads open = openLoads.get();
        if (!open.containsKey(key)) {
            // No read-before-invalidation proof: the value may predate an invalidation already applied.
            noStamp.increment();
            if (open.isEmpty()) {
                openLoads.remove();
            }
            cache.invalidate(key);
            return;
        }
        LoadStamp<Object> stamp = open.remove(key);
        if (open.isEmpty()) {
            openLoads.remove();
        }
        if (stamp == AMBIGUOUS) {
            ambiguous.increment();
            return;
        }
        cache.putLoaded(stamp, value);
    }

    @Override
    public ValueWrapper putIfAbsent(Object key, Object value) {
        CachedValue<Object> entry = cache.lookup(key);
        if (entry != null) {
            return new SimpleValueWrapper(entry.value());
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

    /** This thread's misses of this cache awaiting their put, by key; bounded, oldest first. */
    private static final class OpenLoads extends LinkedHashMap<Object, LoadStamp<Object>> {

        @Override
        protected boolean removeEldestEntry(Map.Entry<Object, LoadStamp<Object>> eldest) {
            return size() > MAX_OPEN_KEYS;
        }
    }

    @Override
    public String toString() {
        return "CdcSpringCache[" + cache.name() + "]";
    }
}
