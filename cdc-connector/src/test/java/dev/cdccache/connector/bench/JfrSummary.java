package dev.cdccache.connector.bench;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Summarises the CPU samples ({@code jdk.ExecutionSample}) of a JFR recording: samples per thread,
 * and per busy thread the methods on top of the stack (self) and the methods anywhere on it
 * (inclusive, counted once per sample). The same as {@code jfr print --events jdk.ExecutionSample}
 * folded by hand, in a form that fits a benchmark log.
 *
 * <p>Run on its own: {@code java -cp target/test-classes dev.cdccache.connector.bench.JfrSummary rec.jfr [top]}.
 */
public final class JfrSummary {

    private JfrSummary() {
    }

    public static void main(String[] args) throws Exception {
        print(Path.of(args[0]), args.length > 1 ? Integer.parseInt(args[1]) : 15);
    }

    /** Prints the summary of {@code recording}, {@code top} lines per list. */
    public static void print(Path recording, int top) throws Exception {
        Map<String, Integer> perThread = new HashMap<>();
        Map<String, Map<String, Integer>> self = new HashMap<>();
        Map<String, Map<String, Integer>> inclusive = new HashMap<>();
        int total = 0;
        Map<String, Long> allocated = new HashMap<>();
        long allocatedTotal = 0;
        int compilations = 0;
        long compileMillis = 0;
        int deoptimizations = 0;
        for (RecordedEvent event : RecordingFile.readAllEvents(recording)) {
            String type = event.getEventType().getName();
            if (type.equals("jdk.ObjectAllocationSample")) {
                long weight = event.getLong("weight");
                allocatedTotal += weight;
                RecordedStackTrace stack = event.getStackTrace();
                if (stack != null) {
                    // the first frame outside the JDK says which code allocated
                    String where = stack.getFrames().stream().filter(f -> !f.getMethod().getType().getName().startsWith("java."))
                            .findFirst().map(JfrSummary::name).orElse("?");
                    allocated.merge(where, weight, Long::sum);
                }
                continue;
            }
            if (type.equals("jdk.Compilation")) {
                compilations++;
                compileMillis += event.getDuration().toMillis();
                continue;
            }
            if (type.equals("jdk.Deoptimization")) {
                deoptimizations++;
                continue;
            }
            if (!type.equals("jdk.ExecutionSample")) {
                continue;
            }
            RecordedStackTrace stack = event.getStackTrace();
            if (stack == null || stack.getFrames().isEmpty()) {
                continue;
            }
            String thread = event.getThread("sampledThread") == null ? "?"
                    : String.valueOf(event.getThread("sampledThread").getJavaName()).replaceAll("\\d+", "N");
            total++;
            perThread.merge(thread, 1, Integer::sum);
            List<RecordedFrame> frames = stack.getFrames();
            self.computeIfAbsent(thread, t -> new HashMap<>()).merge(name(frames.get(0)), 1, Integer::sum);
            Set<String> seen = new HashSet<>();
            for (RecordedFrame frame : frames) {
                String method = name(frame);
                if (seen.add(method)) {
                    inclusive.computeIfAbsent(thread, t -> new HashMap<>()).merge(method, 1, Integer::sum);
                }
            }
        }
        int all = total;
        System.out.printf("  %d CPU samples (%s); %d JIT compilations (%d ms), %d deoptimizations; %d MB allocated (sampled)%n",
                all, recording.getFileName(), compilations, compileMillis, deoptimizations, allocatedTotal >> 20);
        long allocatedAll = Math.max(1, allocatedTotal);
        allocated.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue(), a.getValue())).limit(top)
                .forEach(a -> System.out.printf("    alloc %4.1f%%  %s%n", 100.0 * a.getValue() / allocatedAll, a.getKey()));
        perThread.entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue()).limit(6).forEach(t -> {
            System.out.printf("  thread %-40s %5d samples (%4.1f%%)%n", t.getKey(), t.getValue(), 100.0 * t.getValue() / all);
            if (t.getValue() * 20 < all) {
                return; // under 5% of the samples: the thread line is enough
            }
            System.out.println("    self:");
            self.get(t.getKey()).entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue()).limit(top)
                    .forEach(m -> System.out.printf("      %4.1f%%  %s%n", 100.0 * m.getValue() / t.getValue(), m.getKey()));
            System.out.println("    inclusive:");
            inclusive.get(t.getKey()).entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue())
                    .filter(m -> m.getValue() < t.getValue()) // drop the frames every sample has (run(), the loop)
                    .limit(top)
                    .forEach(m -> System.out.printf("      %4.1f%%  %s%n", 100.0 * m.getValue() / t.getValue(), m.getKey()));
        });
    }

    private static String name(RecordedFrame frame) {
        String type = frame.getMethod().getType().getName();
        return type.substring(type.lastIndexOf('.') + 1) + "." + frame.getMethod().getName();
    }
}
