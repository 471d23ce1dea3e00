package dev.cdccache.bench.measure;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.SynchronizedHistogram;
import org.HdrHistogram.Histogram;

/**
 * Per-step figures of an open-model staircase (constant arrival rate per step, steps back to back): each
 * request counts for the step in which it started, so a step's latency includes the queueing its own
 * arrival rate caused. Also tracks requests in flight, which is how a simulation notices that the system
 * has saturated (by Little's law, in-flight = rate x latency) and stops adding load.
 */
public final class StepRecorder {

    private static final long HIGHEST_MICROS = TimeUnit.MINUTES.toMicros(10);

    private final List<Step> steps;
    private final long stepNanos;
    private final AtomicLong origin = new AtomicLong(Long.MIN_VALUE);
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger maxInFlight = new AtomicInteger();
    private final StepCpu cpu;

    /**
     * @param ratesPerSecond the offered arrival rate of each step, in order
     * @param stepSeconds how long each step lasts
     */
    public StepRecorder(List<Double> ratesPerSecond, int stepSeconds) {
        this(ratesPerSecond, stepSeconds, null);
    }

    /**
     * @param ratesPerSecond the offered arrival rate of each step, in order
     * @param stepSeconds how long each step lasts
     * @param cpu samples the services' CPU time at every step boundary from the first request on; may be null
     */
    public StepRecorder(List<Double> ratesPerSecond, int stepSeconds, StepCpu cpu) {
        if (ratesPerSecond.isEmpty() || stepSeconds <= 0) {
            throw new IllegalArgumentException("need at least one step and a positive step duration");
        }
        this.steps = new ArrayList<>();
        for (double rate : ratesPerSecond) {
            steps.add(new Step(rate));
        }
        this.stepNanos = TimeUnit.SECONDS.toNanos(stepSeconds);
        this.cpu = cpu;
    }

    /** Marks a request start; the first call fixes the staircase's time origin. */
    public void started(long startNanos) {
        if (origin.compareAndSet(Long.MIN_VALUE, startNanos) && cpu != null) {
            cpu.startAt(startNanos, stepNanos);
        }
        maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
    }

    /** Records the end of a request started at {@code startNanos}. */
    public void finished(long startNanos, long endNanos, boolean ok) {
        inFlight.decrementAndGet();
        int index = stepOf(startNanos);
        if (index < 0) {
            return;
        }
        Step step = steps.get(index);
        if (ok) {
            step.histogram.recordValue(Math.min(HIGHEST_MICROS, Math.max(0, (endNanos - startNanos) / 1_000)));
            step.ok.increment();
        } else {
            step.ko.increment();
        }
    }

    /** The step a request started at {@code startNanos} belongs to; -1 before the origin or after the last. */
    int stepOf(long startNanos) {
        long o = origin.get();
        if (o == Long.MIN_VALUE || startNanos < o) {
            return -1;
        }
        long index = (startNanos - o) / stepNanos;
        return index < steps.size() ? (int) index : -1;
    }

    public int inFlight() {
        return inFlight.get();
    }

    /**
     * Whether the requests in flight exceed what {@code maxLatencySeconds} of queueing at the current
     * step's rate would explain: the system no longer keeps up.
     */
    public boolean saturated(long nowNanos, double maxLatencySeconds) {
        long o = origin.get();
        if (o == Long.MIN_VALUE) {
            return false;
        }
        int index = (int) Math.min(steps.size() - 1, Math.max(0, (nowNanos - o) / stepNanos));
        return inFlight.get() > Math.max(50, steps.get(index).rate * maxLatencySeconds);
    }

    /**
     * Writes {@code prefix.steps} and per step {@code prefix.step.<i>.offered_rps / achieved_rps / ko / *_us}, and
     * with a CPU sampler {@code prefix.step.<i>.cpu_s} and {@code .cpu_ms_per_req} (see {@link StepCpu#writeTo}).
     */
    public void writeTo(ResultFile file, String prefix) {
        double seconds = stepNanos / 1e9;
        if (cpu != null) {
            // figures are written once the load has ended: the step under way then ends now
            cpu.finish();
        }
        int written = 0;
        for (int i = 0; i < steps.size(); i++) {
            Step step = steps.get(i);
            if (step.ok.sum() + step.ko.sum() == 0) {
                continue;
            }
            String key = prefix + ".step." + i;
            file.put(key + ".offered_rps", String.format(Locale.ROOT, "%.1f", step.rate));
            file.put(key + ".achieved_rps", String.format(Locale.ROOT, "%.1f", step.ok.sum() / seconds));
            file.put(key + ".ko", step.ko.sum());
            LatencySummary.of(step.histogram).writeTo(file, key);
            if (cpu != null) {
                cpu.writeTo(file, key, i, step.ok.sum() + step.ko.sum());
            }
            written = i + 1;
        }
        file.put(prefix + ".steps", written);
        file.put(prefix + ".step_s", (long) seconds);
        file.put(prefix + ".max_in_flight", maxInFlight.get());
    }

    private static final class Step {
        final double rate;
        final Histogram histogram = new SynchronizedHistogram(HIGHEST_MICROS, 3);
        final LongAdder ok = new LongAdder();
        final LongAdder ko = new LongAdder();

        Step(double rate) {
            this.rate = rate;
        }
    }
}
