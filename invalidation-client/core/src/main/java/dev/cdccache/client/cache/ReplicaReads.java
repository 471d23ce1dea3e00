package dev.cdccache.client.cache;

/**
 * Tells the caches that a database read on the calling thread may not reflect every change whose invalidation
 * this process has applied: a read from a replica that could not be shown, within a short wait, to have applied
 * the latest position the client invalidated ({@code dev.cdccache.client.position.ReplicaFence} calls it). Every
 * load on this thread stamped before the call is then returned to its caller but not cached, as if an
 * invalidation of its key had been applied while it ran.
 *
 * <p>A stamp that stands for an earlier moment (a {@link CacheTransaction}'s begin, or an
 * {@link InvalidationSequence} value an ORM session drew when it began) is taken after the connection checkout the
 * fence runs at, so the counter alone would not show it a behind read between that moment and the stamp: such a
 * stamp is not cacheable if this thread saw a behind read after its sequence value was drawn
 * ({@link #behindSince(long)}).
 *
 * <p>Per thread: a read on another thread (an asynchronous loader) is not seen. Cheap: a thread-local pair of
 * numbers, read only when a load is stamped and when its value is stored.
 */
public final class ReplicaReads {

    /** Per thread: {count of behind() calls, the InvalidationSequence value drawn by the latest}. */
    private static final ThreadLocal<long[]> BEHIND = new ThreadLocal<>();

    private ReplicaReads() {
    }

    /** A read on this thread may be behind: loads stamped before now on this thread are not cached. */
    public static void behind() {
        // Drawn here, so it is larger than the value of every stamp or transaction begun before this call.
        long at = InvalidationSequence.next();
        long[] state = BEHIND.get();
        if (state == null) {
            BEHIND.set(new long[] {1, at});
        } else {
            state[0]++;
            state[1] = at;
        }
    }

    /**
     * A fence is about to read the positions it waits for on a connection of this thread. Inside a
     * {@link CacheTransaction} at READ COMMITTED, whose loads are otherwise stamped when they run, later loads then
     * stand for the first such fence of the transaction: a replica connection checked out at the transaction's begin
     * and fenced then is not fenced again, and has not necessarily applied invalidations applied since. Call it
     * before reading the positions. Outside a transaction it does nothing.
     */
    public static void fencing() {
        if (CacheTransaction.current() != null) {
            // Drawn before the positions are read: an invalidation that recorded a smaller value recorded its
            // position before, so the fence waits for it.
            CacheTransaction.fenced(InvalidationSequence.next());
        }
    }

    /** The number of {@link #behind()} calls on this thread so far: a stamp keeps it, a store compares. */
    static long mark() {
        long[] state = BEHIND.get();
        return state == null ? 0 : state[0];
    }

    /**
     * Whether a read on this thread was marked behind after {@code sequence} was drawn: a load stamped as of that
     * value may have read it, so it is not cached.
     */
    static boolean behindSince(long sequence) {
        long[] state = BEHIND.get();
        return state != null && state[1] > sequence;
    }
}
