package dev.cdccache.client.cache;

import dev.cdccache.client.Internal;

/**
 * Asked by a cache before it serves or joins anything: may this read use the cache? A read floor (read-your-writes)
 * answers no while the position it asks for is not proven applied to the cache, after waiting briefly; the read
 * then bypasses the cache. Implementations must make the common answer (no floor, or a floor already proven)
 * cheap: it runs on every hit.
 */
@Internal
public interface ReadGate {

    /** The gate of a cache without read floors. */
    ReadGate OPEN = mayWait -> true;

    /**
     * @param mayWait whether the read may wait for the floor (the caches ask before they look at an entry, so that
     *        an entry read after the answer is never older than the floor, and let every read wait)
     * @return {@code true} if the read may be served from the cache (and may join loads in flight); {@code false} if
     *         it must bypass the cache: load from the source, store nothing
     */
    boolean admits(boolean mayWait);
}
