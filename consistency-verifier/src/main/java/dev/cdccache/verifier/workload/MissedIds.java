package dev.cdccache.verifier.workload;

import java.util.concurrent.ArrayBlockingQueue;

/**
 * Ids that readers looked up and found absent (so a client may hold a cached absence): the writer inserts
 * them, which is the case where a negative cache entry must be evicted.
 */
public final class MissedIds {

    private final ArrayBlockingQueue<Long> ids = new ArrayBlockingQueue<>(4096);

    /** Offered by readers; dropped when full. */
    public void offer(long id) {
        ids.offer(id);
    }

    /** The oldest offered id, or -1. */
    public long poll() {
        Long id = ids.poll();
        return id == null ? -1 : id;
    }
}
