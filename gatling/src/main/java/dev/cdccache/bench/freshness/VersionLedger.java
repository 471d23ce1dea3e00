package dev.cdccache.bench.freshness;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The writer's log of what was committed: for each row, its versions in commit order with the
 * {@code System.nanoTime()} taken right after {@code commit()} returned. Readers classify what they were
 * served against it. Versions of one row must be logged in increasing order (one writer per row).
 * Thread-safe.
 *
 * <p>A read that started at {@code t} and was served version {@code v} is <b>fresh</b> if no newer version of
 * the row had committed before {@code t}, and <b>stale</b> otherwise, by {@code t} minus the commit time of the
 * first newer version: how long the value it got had already been replaced. The commit stamp is taken
 * after {@code commit()} returns, a little after the real commit, so stale ages are under-stated by at most
 * one commit round trip (well under a millisecond on localhost).
 */
public final class VersionLedger {

    private final Map<Long, List<long[]>> commits = new ConcurrentHashMap<>();

    /** Logs that {@code version} of row {@code id} committed at {@code commitNanos}. */
    public void committed(long id, long version, long commitNanos) {
        List<long[]> versions = commits.computeIfAbsent(id, k -> new ArrayList<>());
        synchronized (versions) {
            versions.add(new long[] {version, commitNanos});
        }
    }

    /** Whether any version of {@code id} was logged. */
    public boolean changed(long id) {
        return commits.containsKey(id);
    }

    /**
     * Classifies a read of row {@code id} that started at {@code readStartNanos} and was served
     * {@code servedVersion} (0 for the row as it was before the writer touched it).
     */
    public ReadVerdict classify(long id, long servedVersion, long readStartNanos) {
        List<long[]> versions = commits.get(id);
        if (versions == null) {
            return ReadVerdict.UNCHANGED_ROW;
        }
        synchronized (versions) {
            boolean changedBefore = false;
            for (long[] entry : versions) {
                if (entry[1] < readStartNanos) {
                    changedBefore = true;
                }
                if (entry[0] > servedVersion) {
                    // the first version newer than the one served
                    return entry[1] < readStartNanos
                            ? ReadVerdict.stale(readStartNanos - entry[1])
                            : changedBefore ? ReadVerdict.FRESH : ReadVerdict.UNCHANGED_ROW;
                }
            }
            return changedBefore ? ReadVerdict.FRESH : ReadVerdict.UNCHANGED_ROW;
        }
    }
}
