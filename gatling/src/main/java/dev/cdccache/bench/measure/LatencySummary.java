package dev.cdccache.bench.measure;

import org.HdrHistogram.AbstractHistogram;

/**
 * The figures a report quotes for one set of latencies, in microseconds.
 *
 * @param count number of recorded values
 * @param meanMicros arithmetic mean
 * @param p50Micros median
 * @param p95Micros 95th percentile
 * @param p99Micros 99th percentile
 * @param maxMicros largest value
 */
public record LatencySummary(long count, double meanMicros, long p50Micros, long p95Micros, long p99Micros,
        long maxMicros) {

    /** The summary of an empty set: every figure 0. */
    public static final LatencySummary EMPTY = new LatencySummary(0, 0, 0, 0, 0, 0);

    /** Summarises a histogram whose values are microseconds. */
    public static LatencySummary of(AbstractHistogram histogram) {
        // a SynchronizedHistogram locks on itself: holding the lock gives a consistent snapshot while
        // requests still in flight keep recording (e.g. after the load generator was stopped early)
        synchronized (histogram) {
            return summarise(histogram);
        }
    }

    private static LatencySummary summarise(AbstractHistogram histogram) {
        if (histogram.getTotalCount() == 0) {
            return EMPTY;
        }
        return new LatencySummary(histogram.getTotalCount(), histogram.getMean(),
                histogram.getValueAtPercentile(50), histogram.getValueAtPercentile(95),
                histogram.getValueAtPercentile(99), histogram.getMaxValue());
    }

    /** Writes the figures under {@code prefix} ({@code prefix.count}, {@code prefix.p99_us}, ...). */
    public void writeTo(ResultFile file, String prefix) {
        file.put(prefix + ".count", count);
        file.put(prefix + ".mean_us", Math.round(meanMicros));
        file.put(prefix + ".p50_us", p50Micros);
        file.put(prefix + ".p95_us", p95Micros);
        file.put(prefix + ".p99_us", p99Micros);
        file.put(prefix + ".max_us", maxMicros);
    }

    /** Reads what {@link #writeTo} wrote; {@link #EMPTY} when absent. */
    public static LatencySummary readFrom(ResultFile file, String prefix) {
        if (!file.has(prefix + ".count")) {
            return EMPTY;
        }
        return new LatencySummary(file.getLong(prefix + ".count"), file.getDouble(prefix + ".mean_us"),
                file.getLong(prefix + ".p50_us"), file.getLong(prefix + ".p95_us"),
                file.getLong(prefix + ".p99_us"), file.getLong(prefix + ".max_us"));
    }
}
