package dev.cdccache.bench.measure;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.SynchronizedHistogram;
import org.HdrHistogram.Histogram;

/**
 * Latencies (microseconds) and outcomes of requests, per request name and overall, recorded from any
 * thread. Simulations record with {@code System.nanoTime()} taken around each request, because Gatling's
 * own figures have millisecond resolution and an in-process cache answers in well under a millisecond.
 * Throughput is counted over the window from the first request start to the last request end.
 */
public final class RequestStats {

    private static final long HIGHEST_MICROS = TimeUnit.MINUTES.toMicros(10);

    private final Map<String, Outcomes> byName = new ConcurrentHashMap<>();
    private final Outcomes all = new Outcomes();
    private final AtomicLong firstStart = new AtomicLong(Long.MAX_VALUE);
    private final AtomicLong lastEnd = new AtomicLong(Long.MIN_VALUE);

    /** Records a successful request that ran from {@code startNanos} to {@code endNanos}. */
    public void recordOk(String name, long startNanos, long endNanos) {
        record(name, startNanos, endNanos, true);
    }

    /** Records a failed request (Gatling KO: error, timeout or failed check). */
    public void recordKo(String name, long startNanos, long endNanos) {
        record(name, startNanos, endNanos, false);
    }

    private void record(String name, long startNanos, long endNanos, boolean ok) {
        long micros = Math.max(0, (endNanos - startNanos) / 1_000);
        byName.computeIfAbsent(name, n -> new Outcomes()).record(micros, ok);
        all.record(micros, ok);
        firstStart.accumulateAndGet(startNanos, Math::min);
        lastEnd.accumulateAndGet(endNanos, Math::max);
    }

    /** Requests recorded so far, successful or not. */
    public long total() {
        return all.ok.sum() + all.ko.sum();
    }

    public long failed() {
        return all.ko.sum();
    }

    /** Summary of the successful requests of every name. */
    public LatencySummary overall() {
        return LatencySummary.of(all.histogram);
    }

    /** Summary of the successful requests named {@code name}. */
    public LatencySummary of(String name) {
        Outcomes outcomes = byName.get(name);
        return outcomes == null ? LatencySummary.EMPTY : LatencySummary.of(outcomes.histogram);
    }

    /** Seconds from the first start to the last end; 0 before two events. */
    public double windowSeconds() {
        long first = firstStart.get();
        long last = lastEnd.get();
        return last > first ? (last - first) / 1e9 : 0;
    }

    /**
     * Writes {@code prefix.ok}, {@code prefix.ko}, {@code prefix.window_s}, {@code prefix.throughput_rps}
     * (successful requests per second), {@code prefix.all.*} and {@code prefix.request.<name>.*}.
     */
    public void writeTo(ResultFile file, String prefix) {
        double window = windowSeconds();
        file.put(prefix + ".ok", all.ok.sum());
        file.put(prefix + ".ko", all.ko.sum());
        file.put(prefix + ".window_s", String.format(java.util.Locale.ROOT, "%.3f", window));
        file.put(prefix + ".throughput_rps",
                String.format(java.util.Locale.ROOT, "%.1f", window > 0 ? all.ok.sum() / window : 0));
        overall().writeTo(file, prefix + ".all");
        byName.forEach((name, outcomes) -> {
            String key = prefix + ".request." + keyOf(name);
            LatencySummary.of(outcomes.histogram).writeTo(file, key);
            file.put(key + ".ko", outcomes.ko.sum());
        });
    }

    /** A request name as a property-key segment: lower case, runs of other characters as one '_'. */
    public static String keyOf(String name) {
        return name.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9]+", "_").replaceAll("^_|_$", "");
    }

    private static final class Outcomes {
        final Histogram histogram = new SynchronizedHistogram(HIGHEST_MICROS, 3);
        final LongAdder ok = new LongAdder();
        final LongAdder ko = new LongAdder();

        void record(long micros, boolean success) {
            if (success) {
                histogram.recordValue(Math.min(micros, HIGHEST_MICROS));
                ok.increment();
            } else {
                ko.increment();
            }
        }
    }
}
