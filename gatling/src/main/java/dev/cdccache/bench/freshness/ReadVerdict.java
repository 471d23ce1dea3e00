package dev.cdccache.bench.freshness;

/**
 * How a read compared with what was committed when it started.
 *
 * @param rowChanged whether the row had been changed by the writer before the read started (reads of rows
 *        never changed yet prove nothing about freshness)
 * @param stale whether a newer version had committed before the read started
 * @param staleNanos for a stale read, how long before the read the value it got had been replaced
 */
public record ReadVerdict(boolean rowChanged, boolean stale, long staleNanos) {

    /** A read of a row the writer had not changed yet. */
    public static final ReadVerdict UNCHANGED_ROW = new ReadVerdict(false, false, 0);
    /** A read of a changed row that got its latest committed version. */
    public static final ReadVerdict FRESH = new ReadVerdict(true, false, 0);

    public static ReadVerdict stale(long staleNanos) {
        return new ReadVerdict(true, true, staleNanos);
    }
}
