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
    ReadGate OPEN = new ReadGate() {
        @Override
        public boolean admits(boolean mayWait) {
            return true;
        }

        @Override
        public boolean isOpen() {
            return true;
        }
    };

    /**
     * Whether every read may use the cache without asking {@link #admits}: no floor is in force, or it was proven
     * applied before this call returned. A cache asks it BEFORE it looks an entry up: an entry looked up earlier, or
     * while {@link #admits} waited, may be the value from before the write behind the floor, whose eviction the
     * proof waited for. A cache that gets {@code false} looks the entry up again once {@link #admits} lets it
     * through. The default is the safe answer.
     */
    default boolean isOpen() {
        return false;
    }

    /**
     * @param mayWait whether the read may wait for the floor (a hit); a miss has nothing to gain from waiting
     * @return {@code true} if the read may be served from the cache (and may join loads in flight); {@code false} if
     *         it must bypass the cache: load from the source, store nothing
     */
    boolean admits(boolean mayWait);
}
