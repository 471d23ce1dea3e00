package dev.cdccache.verifier;

/**
 * The one clock of a run: {@link System#nanoTime()} for every stamp (monotonic, shared by writer, readers
 * and listeners of this JVM), with the wall-clock time of the run's start to relate stamps to the client's
 * epoch-millisecond watermark.
 */
public final class RunClock {

    private final long startNanos = System.nanoTime();
    private final long startWallMillis = System.currentTimeMillis();

    public long now() {
        return System.nanoTime();
    }

    /** Epoch milliseconds of a stamp. */
    public long wallMillis(long nanos) {
        return startWallMillis + (nanos - startNanos) / 1_000_000;
    }

    /** A stamp as seconds since the run started, e.g. {@code +12.345s}. */
    public String format(long nanos) {
        if (nanos == Long.MIN_VALUE) {
            return "before the run";
        }
        if (nanos == Long.MAX_VALUE) {
            return "pending";
        }
        return String.format(java.util.Locale.ROOT, "+%.3fs", (nanos - startNanos) / 1e9);
    }

    /** A duration in nanoseconds as milliseconds with one decimal. */
    public static String millis(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.1f ms", nanos / 1e6);
    }
}
