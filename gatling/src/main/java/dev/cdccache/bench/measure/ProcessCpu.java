package dev.cdccache.bench.measure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalDouble;

/**
 * CPU time (user + system) a process has used so far, from {@code /proc/<pid>/stat}. Read at the two ends of a
 * measured window, the difference is the CPU the process spent in that window only, without its start-up
 * and warm-up.
 */
public final class ProcessCpu {

    private ProcessCpu() {
    }

    /**
     * Parses one {@code /proc/<pid>/stat} line: utime and stime (fields 14 and 15) in seconds.
     *
     * @param statLine the file's content
     * @param ticksPerSecond the kernel's clock ticks per second ({@code getconf CLK_TCK}, 100 on Linux/x86)
     */
    public static double cpuSeconds(String statLine, long ticksPerSecond) {
        // the command name (field 2) is in parentheses and may itself hold spaces or parentheses: count
        // fields from the last closing one, after which field 3 (the state) comes
        int close = statLine.lastIndexOf(')');
        if (close < 0) {
            throw new IllegalArgumentException("not a /proc/<pid>/stat line: " + statLine);
        }
        String[] rest = statLine.substring(close + 1).trim().split("\\s+");
        // rest[0] is field 3, so field n is rest[n - 3]
        if (rest.length < 13) {
            throw new IllegalArgumentException("too few fields in /proc/<pid>/stat line: " + statLine);
        }
        long ticks = Long.parseLong(rest[14 - 3]) + Long.parseLong(rest[15 - 3]);
        return (double) ticks / ticksPerSecond;
    }

    /** The CPU seconds of process {@code pid}, or empty when it cannot be read (gone, not Linux). */
    public static OptionalDouble read(long pid, long ticksPerSecond) {
        try {
            return OptionalDouble.of(cpuSeconds(Files.readString(Path.of("/proc", Long.toString(pid), "stat")),
                    ticksPerSecond));
        } catch (IOException | RuntimeException e) {
            return OptionalDouble.empty();
        }
    }
}
