package dev.cdccache.client.spring;

import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.cache.CachedValue;
import dev.cdccache.client.cache.LoadStamp;
import java.util.concurrent.Callable;
import org.springframework.cache.Cache;
import org.springframework.cache.support.SimpleValueWrapper;

/**
 * A Spring {@link Cache} over an {@link InvalidatingCache}, keeping the no-stale-populate guarantee for both
 * {@code @Cacheable} modes:
 * <ul>
 *   <li>{@code sync = true}: Spring calls {@link #get(Object, Callable)}, which is the core's single-flight
 *       load.</li>
 *   <li>{@code sync = false}: Spring calls {@link #get(Object)}, on a miss runs the method, then calls
 *       {@link #put}. The miss takes a {@link LoadStamp} (remembered per thread) before the method reads
 *       the database, and {@code put} of the same key on the same thread stores the value only if no
 *       invalidation was applied since. A {@code put} without a preceding miss (e.g. {@code @CachePut})
 *       is treated as read now.</li>
 * </ul>
 * Cached absences ({@code cache-nulls}) are returned as a wrapper of {@code null}, as Spring expects.
 */
final class CdcSpringCache implements Cache {

    private final InvalidatingCache<Object, Object> cache;
    private final ThreadLocal<LoadStamp<Object>> missStamp = new ThreadLocal<>();

    CdcSpringCache(InvalidatingCache<Object, Object> cache) {
        this.cache = cache;
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
        missStamp.set(cache.beginLoad(key));
        return null;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T get(Object key, Class<T> type) {
        CachedValue<Object> entry = cache.lookup(key);
        if (entry == null) {
            missStamp.set(cache.beginLoad(key));
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
        LoadStamp<Object> stamp = missStamp.get();
        if (stamp != null) {
            missStamp.remove();
            if (stamp.key().equals(key)) {
                cache.putLoaded(stamp, value);
                return;
            }
        }
        cache.put(key, value);
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

    @Override
    public String toString() {
        return "CdcSpringCache[" + cache.name() + "]";
    }
}
