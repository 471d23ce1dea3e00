package dev.cdccache.client.cache;

import java.util.Objects;
import java.util.function.Function;

/**
 * A cache hit drawn for a consistency sample by a caller that has no loader at hand when it reads (a framework that
 * reads with {@link dev.cdccache.client.InvalidatingCache#lookup lookup} and loads elsewhere, such as Spring's
 * non-{@code sync} {@code @Cacheable}). It holds what the hit served and the key's invalidation generations at the
 * time of the hit; {@link #reread} hands it, with the loader the caller builds afterwards, to the consistency sampler,
 * which classifies it like a sampled hit of {@code get(key, loader)}.
 *
 * <p>Obtained from {@link dev.cdccache.client.InvalidatingCache#drawSample}, only for drawn hits. A sampled hit that
 * is never handed over is simply dropped: it holds no resource and the sampler never learns of it.
 *
 * <p>Not thread-safe; {@link #reread} may be called from any one thread, at most once.
 *
 * @param <K> key type
 * @param <V> value type
 */
public final class SampledHit<K, V> {

    private final ConsistencySampler sampler;
    private final CaffeineInvalidatingCache<K, V> cache;
    private final K key;
    /** The entry that served the hit, as stored (a value or a {@link CachedValue}): compared by identity. */
    private final Object entry;
    private final long[] generations;
    private boolean handedOver;

    SampledHit(ConsistencySampler sampler, CaffeineInvalidatingCache<K, V> cache, K key, Object entry) {
        this.sampler = sampler;
        this.cache = cache;
        this.key = key;
        this.entry = entry;
        // At the hit, not at the hand-over: an invalidation between the two must count as one that took the entry out.
        this.generations = cache.generationsOf(key);
    }

    /** The key as the cache holds it (normalized, when the cache normalizes keys). */
    public K key() {
        return key;
    }

    /** The value the hit served. */
    public V value() {
        return CachedValue.valueOf(entry);
    }

    /**
     * Hands this hit to the sampler's thread, which reads the key again through {@code loader} (with {@link #key()})
     * and compares the result with {@link #value()}. Never blocks: the hit is dropped when the sampler's
     * per-second cap is reached or too many samples are pending, or when called a second time.
     */
    public void reread(Function<? super K, ? extends V> loader) {
        Objects.requireNonNull(loader, "loader");
        if (handedOver) {
            return;
        }
        handedOver = true;
        sampler.offer(cache, key, entry, loader, generations);
    }
}
