package dev.cdccache.bench.freshness;

import dev.cdccache.bench.measure.LatencySummary;
import dev.cdccache.bench.measure.ResultFile;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.SynchronizedHistogram;
import org.HdrHistogram.Histogram;

/** Counts read verdicts and keeps the distribution of stale ages (microseconds). Thread-safe. */
public final class FreshnessTally {

    private final LongAdder reads = new LongAdder();
    private final LongAdder readsOfChangedRows = new LongAdder();
    private final LongAdder fresh = new LongAdder();
    private final LongAdder stale = new LongAdder();
    private final LongAdder unparseable = new LongAdder();
    private final Histogram staleAges = new SynchronizedHistogram(TimeUnit.HOURS.toMicros(1), 3);

    public void add(ReadVerdict verdict) {
        reads.increment();
        if (!verdict.rowChanged()) {
            return;
        }
        readsOfChangedRows.increment();
        if (verdict.stale()) {
            stale.increment();
            staleAges.recordValue(Math.min(TimeUnit.HOURS.toMicros(1), verdict.staleNanos() / 1_000));
        } else {
            fresh.increment();
        }
    }

    /** Counts a response whose version could not be read (it is reported, never silently dropped). */
    public void addUnparseable() {
        unparseable.increment();
    }

    public long stale() {
        return stale.sum();
    }

    public long readsOfChangedRows() {
        return readsOfChangedRows.sum();
    }

    /** Stale reads over reads of changed rows; 0 when no changed row was read. */
    public double staleFraction() {
        long changed = readsOfChangedRows.sum();
        return changed == 0 ? 0 : (double) stale.sum() / changed;
    }

    public LatencySummary staleAges() {
        return LatencySummary.of(staleAges);
    }

    /** Writes {@code prefix.reads}, {@code .changed_reads}, {@code .fresh}, {@code .stale}, {@code .stale_fraction}, {@code .stale_age.*}. */
    public void writeTo(ResultFile file, String prefix) {
        file.put(prefix + ".reads", reads.sum());
        file.put(prefix + ".changed_reads", readsOfChangedRows.sum());
        file.put(prefix + ".fresh", fresh.sum());
        file.put(prefix + ".stale", stale.sum());
        file.put(prefix + ".unparseable", unparseable.sum());
        file.put(prefix + ".stale_fraction", String.format(Locale.ROOT, "%.6f", staleFraction()));
        staleAges().writeTo(file, prefix + ".stale_age");
    }
}
