package dev.cdccache.client.cache;

/**
 * Tells the caches that a database read on the calling thread may not reflect every change whose invalidation
 * this process has applied: a read from a replica that could not be shown, within a short wait, to have applied
 * the latest position the client invalidated ({@code dev.cdccache.client.position.ReplicaFence} calls it). Every
 * load on this thread stamped before the call is then returned to its caller but not cached, as if an
 * invalidation of its key had been applied while it ran.
 *
 * <p>Per thread: a read on another thread (an asynchronous loader) is not seen. Cheap: a thread-local counter,
 * read only when a load is stamped and when its value is stored.
 */
public final class ReplicaReads {

    private static final ThreadLocal<long[]> BEHIND = new ThreadLocal<>();

    private ReplicaReads() {
    }

    /** A read on this thread may be behind: loads stamped before now on this thread are not cached. */
    public static void behind() {
        long[] count = BEHIND.get();
        if (count == null) {
            BEHIND.set(new long[] {1});
        } else {
            count[0]++;
        }
    }

    /** The number of {@link #behind()} calls on this thread so far: a stamp keeps it, a store compares. */
    static long mark() {
        long[] count = BEHIND.get();
        return count == null ? 0 : count[0];
    }
}
