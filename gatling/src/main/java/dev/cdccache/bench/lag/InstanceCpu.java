package dev.cdccache.bench.lag;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;

/**
 * CPU time of each client instance's own threads in this JVM, read with the JVM's {@link ThreadMXBean} at the two
 * ends of a measured phase. An instance's threads are named after its client id ({@code <client-id>-<n>-consumer},
 * {@code ...-staleness-check}): the consumer thread polls, parses and evicts, which is the work each instance
 * repeats. What the instances share (GC, the JIT compiler, the writer) is only in the JVM's total, reported beside.
 */
final class InstanceCpu {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final Map<Long, Long> startNanos;
    private final long startProcessNanos;
    private final long startWall = System.nanoTime();

    private InstanceCpu(Map<Long, Long> startNanos, long startProcessNanos) {
        this.startNanos = startNanos;
        this.startProcessNanos = startProcessNanos;
    }

    /** Starts a phase: the CPU every live thread and the process have used so far. */
    static InstanceCpu start() {
        Map<Long, Long> nanos = new HashMap<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            long cpu = THREADS.getThreadCpuTime(thread.getId());
            if (cpu >= 0) {
                nanos.put(thread.getId(), cpu);
            }
        }
        return new InstanceCpu(nanos, processCpuNanos());
    }

    /** Ends the phase: the share of one core each named instance's threads used in it, by thread-name prefix. */
    Result end(Iterable<String> threadNamePrefixes) {
        double wall = System.nanoTime() - startWall;
        Map<String, Double> perInstance = new HashMap<>();
        for (String prefix : threadNamePrefixes) {
            perInstance.put(prefix, 0.0);
        }
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            long cpu = THREADS.getThreadCpuTime(thread.getId());
            if (cpu < 0) {
                continue;
            }
            long spent = cpu - startNanos.getOrDefault(thread.getId(), 0L);
            for (String prefix : threadNamePrefixes) {
                if (thread.getName().startsWith(prefix)) {
                    perInstance.merge(prefix, spent / wall, Double::sum);
                }
            }
        }
        long process = processCpuNanos();
        double processShare = process < 0 || startProcessNanos < 0 ? -1 : (process - startProcessNanos) / wall;
        return new Result(perInstance, processShare);
    }

    private static long processCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /**
     * @param perInstance share of one core (1.0 = a whole core) per thread-name prefix
     * @param process the whole JVM's share of one core over the phase, -1 when the JVM does not tell
     */
    record Result(Map<String, Double> perInstance, double process) {
    }
}
