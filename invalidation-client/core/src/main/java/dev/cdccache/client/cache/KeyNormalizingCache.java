package dev.cdccache.client.cache;

import dev.cdccache.client.Internal;
import com.github.benmanes.caffeine.cache.Cache;
import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.KeyNormalization;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * An {@link InvalidatingCache} whose keys are normalised ({@link KeyNormalization}) before they reach the cache,
 * as the keys derived from change events are, so that keys the database considers equal share one entry and one
 * invalidation. Loaders receive the key as the caller wrote it; bulk results are keyed as the caller asked.
 * Thread-safety and guarantees are those of the wrapped cache. Created by {@code InvalidationClient} for a cache
 * configured with a normalisation other than {@code none}.
 *
 * @param <K> key type
 * @param <V> value type
 */
@Internal
public final class KeyNormalizingCache<K, V> implements InvalidatingCache<K, V> {

    private final InvalidatingCache<K, V> cache;
    private final KeyNormalization normalization;

    public KeyNormalizingCache(InvalidatingCache<K, V> cache, KeyNormalization normalization) {
        this.cache = cache;
        this.normalization = normalization;
    }

    @SuppressWarnings("unchecked")
    private K normalize(K key) {
        return key == null ? null : (K) normalization.apply(key);
    }

    @Override
    public String name() {
        return cache.name();
    }

    @Override
    public V get(K key, Function<? super K, ? extends V> loader) {
        return cache.get(normalize(key), normalized -> loader.apply(key));
    }

    @Override
    public Map<K, V> getAll(Collection<? extends K> keys,
            Function<? super Set<? extends K>, ? extends Map<? extends K, ? extends V>> bulkLoader) {
        // Several spellings of one key are one entry: the loader sees each once, as the caller first wrote it.
        Map<K, K> spellingOf = new LinkedHashMap<>();
        for (K key : keys) {
            spellingOf.putIfAbsent(normalize(key), key);
        }
        Map<K, V> found = cache.getAll(spellingOf.keySet(), missing -> {
            Set<K> asWritten = new LinkedHashSet<>();
            missing.forEach(normalized -> asWritten.add(spellingOf.get(normalized)));
            Map<? extends K, ? extends V> loaded = bulkLoader.apply(asWritten);
            Map<K, V> byNormalized = new LinkedHashMap<>();
            if (loaded != null) {
                loaded.forEach((key, value) -> byNormalized.put(normalize(key), value));
            }
            return byNormalized;
        });
        Map<K, V> result = new LinkedHashMap<>();
        for (K key : keys) {
            V value = found.get(normalize(key));
            if (value != null) {
                result.put(key, value);
            }
        }
        return Collections.unmodifiableMap(result);
    }

    @Override
    public V getIfPresent(K key) {
        return cache.getIfPresent(normalize(key));
    }

    @Override
    public CachedValue<V> lookup(K key) {
        return cache.lookup(normalize(key));
    }

    @Override
    public V getOrDefault(K key, V ifMissing) {
        return cache.getOrDefault(normalize(key), ifMissing);
    }

    @Override
    public SampledHit<K, V> drawSample(K key, V served) {
        return cache.drawSample(normalize(key), served);
    }

    @Override
    public LoadStamp<K> beginLoad(K key) {
        return cache.beginLoad(normalize(key));
    }

    @Override
    public LoadStamp<K> beginLoadAsOf(K key, long sequence) {
        return cache.beginLoadAsOf(normalize(key), sequence);
    }

    @Override
    public long lastInvalidationSequence() {
        return cache.lastInvalidationSequence();
    }

    @Override
    public boolean putLoaded(LoadStamp<K> stamp, V value) {
        return cache.putLoaded(stamp, value); // the stamp's key is already normalised
    }

    @Override
    public boolean put(K key, V value) {
        return cache.put(normalize(key), value);
    }

    @Override
    public void invalidate(K key) {
        cache.invalidate(normalize(key));
    }

    @Override
    public void invalidateAll() {
        cache.invalidateAll();
    }

    @Override
    public long estimatedSize() {
        return cache.estimatedSize();
    }

    /** The underlying Caffeine cache; its keys are the normalised ones. */
    @Override
    public Cache<K, Object> caffeine() {
        return cache.caffeine();
    }

    @Override
    public String toString() {
        return cache + " keys " + normalization.name().toLowerCase().replace('_', '-');
    }
}
