package dev.cdccache.bench.measure;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;

/**
 * The CPU time of named processes (the services under load) per step of a staircase: their CPU seconds are
 * read at every step boundary, so a step's figure covers that step only, not the processes' start-up, the
 * warm-up or the other steps. Divided by the requests of the step, it is the CPU per request at that rate.
 */
public final class StepCpu {

    /** One process to sample: a label for the figures and its PID. */
    public record Process(String name, long pid) {
    }

    private final List<Process> processes;
    private final LongFunction<OptionalDouble> reader;
    /** samples[boundary][process]: CPU seconds at the start of step {@code boundary} (NaN: not read). */
    private final double[][] samples;
    private boolean started;

    /**
     * @param processes the processes to sample
     * @param steps the number of steps (so {@code steps + 1} boundaries)
     * @param reader CPU seconds of a PID so far (e.g. {@link ProcessCpu#read}); empty when unreadable
     */
    public StepCpu(List<Process> processes, int steps, LongFunction<OptionalDouble> reader) {
        this.processes = List.copyOf(processes);
        this.reader = reader;
        this.samples = new double[steps + 1][processes.size()];
        for (double[] row : samples) {
            Arrays.fill(row, Double.NaN);
        }
    }

    /**
     * Parses {@code name:pid,name:pid} (e.g. the {@code -DcpuPids} setting); empty or blank text gives no
     * sampler ({@code null}).
     */
    public static StepCpu parse(String spec, int steps, long ticksPerSecond) {
        if (spec == null || spec.isBlank()) {
            return null;
        }
        List<Process> processes = new ArrayList<>();
        for (String part : spec.split(",")) {
            String[] nameAndPid = part.trim().split(":");
            if (nameAndPid.length != 2) {
                throw new IllegalArgumentException("cpuPids: expected name:pid, got '" + part + "'");
            }
            processes.add(new Process(nameAndPid[0], Long.parseLong(nameAndPid[1])));
        }
        return new StepCpu(processes, steps, pid -> ProcessCpu.read(pid, ticksPerSecond));
    }

    /** Reads every process's CPU time now, as the value at step boundary {@code boundary}. */
    public synchronized void sample(int boundary) {
        if (boundary < 0 || boundary >= samples.length) {
            return;
        }
        for (int p = 0; p < processes.size(); p++) {
            samples[boundary][p] = reader.apply(processes.get(p).pid()).orElse(Double.NaN);
        }
    }

    /**
     * Called once the load has ended: reads now the end of the step that was under way (the first boundary not
     * read yet), since the sampler thread may not have reached it: the last step ends when its last request
     * does, which can come a little before its nominal end. Later boundaries stay unread (steps never run).
     */
    public synchronized void finish() {
        if (!started) {
            return;
        }
        for (int boundary = 1; boundary < samples.length; boundary++) {
            if (Double.isNaN(samples[boundary][0])) {
                if (!Double.isNaN(samples[boundary - 1][0])) {
                    sample(boundary);
                }
                return;
            }
        }
    }

    /**
     * Samples at every boundary {@code origin + i * stepNanos} from a daemon thread (so an early end of the
     * load leaves the later boundaries unread and their steps without a CPU figure).
     */
    public void startAt(long originNanos, long stepNanos) {
        synchronized (this) {
            started = true;
        }
        Thread thread = new Thread(() -> {
            for (int boundary = 0; boundary < samples.length; boundary++) {
                long wait = originNanos + boundary * stepNanos - System.nanoTime();
                if (wait > 0) {
                    try {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                synchronized (this) {
                    if (Double.isNaN(samples[boundary][0])) {
                        sample(boundary);
                    }
                }
            }
        }, "step-cpu-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    /** CPU seconds of process {@code p} within step {@code step}; NaN when a boundary was not read. */
    public synchronized double cpuSeconds(int step, int p) {
        return samples[step + 1][p] - samples[step][p];
    }

    /**
     * Writes per step {@code key.cpu_s.<process>} and, given the step's requests, {@code key.cpu_ms_per_req}
     * (every process's CPU summed, in milliseconds per request); nothing for a step not fully sampled.
     */
    public void writeTo(ResultFile file, String key, int step, long requests) {
        double total = 0;
        for (int p = 0; p < processes.size(); p++) {
            double seconds = cpuSeconds(step, p);
            if (Double.isNaN(seconds)) {
                return;
            }
            total += seconds;
        }
        for (int p = 0; p < processes.size(); p++) {
            file.put(key + ".cpu_s." + processes.get(p).name(), String.format(Locale.ROOT, "%.2f", cpuSeconds(step, p)));
        }
        file.put(key + ".cpu_s", String.format(Locale.ROOT, "%.2f", total));
        if (requests > 0) {
            file.put(key + ".cpu_ms_per_req", String.format(Locale.ROOT, "%.3f", total * 1000 / requests));
        }
    }
}
