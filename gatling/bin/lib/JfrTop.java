import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Summarises a service's JFR recording (settings=profile) for docs/benchmarks.md: CPU samples per thread group,
 * and over the request threads ({@code http-nio-*}) the top methods on top of the stack (self), the project's and
 * Hibernate's methods anywhere on it (inclusive, once per sample), self samples per library, and the allocation
 * samples by allocated class and by the first frame outside {@code java.*}/{@code jdk.*}. Shares are of the request
 * threads' samples (allocations: of all sampled bytes).
 *
 * <p>{@code java gatling/bin/lib/JfrTop.java recording.jfr [top]} (a single-file program: no build needed).
 */
public final class JfrTop {

    public static void main(String[] args) throws Exception {
        int top = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        Map<String, Integer> groups = new HashMap<>();
        Map<String, Integer> self = new HashMap<>();
        Map<String, Integer> inclusive = new HashMap<>();
        Map<String, Integer> libraries = new HashMap<>();
        Map<String, Long> allocatedClass = new HashMap<>();
        Map<String, Long> allocatedSite = new HashMap<>();
        int all = 0;
        int requests = 0;
        long allocated = 0;
        for (RecordedEvent event : RecordingFile.readAllEvents(Path.of(args[0]))) {
            String type = event.getEventType().getName();
            if (type.equals("jdk.ObjectAllocationSample")) {
                long weight = event.getLong("weight");
                allocated += weight;
                allocatedClass.merge(event.getClass("objectClass").getName(), weight, Long::sum);
                if (event.getStackTrace() != null) {
                    String site = event.getStackTrace().getFrames().stream().filter(f -> !jdk(f)).findFirst()
                            .map(JfrTop::name).orElse("(JDK only)");
                    allocatedSite.merge(site, weight, Long::sum);
                }
            } else if (type.equals("jdk.ExecutionSample") && event.getStackTrace() != null) {
                all++;
                String thread = event.getThread("sampledThread").getJavaName();
                thread = thread == null ? "?" : thread.replaceAll("[0-9]+", "N");
                groups.merge(thread, 1, Integer::sum);
                if (!thread.startsWith("http-nio-")) {
                    continue;
                }
                requests++;
                List<RecordedFrame> frames = event.getStackTrace().getFrames();
                if (frames.isEmpty()) {
                    continue;
                }
                self.merge(name(frames.get(0)), 1, Integer::sum);
                libraries.merge(library(frames), 1, Integer::sum);
                Set<String> seen = new HashSet<>();
                for (RecordedFrame frame : frames) {
                    String type2 = frame.getMethod().getType().getName();
                    if ((type2.startsWith("dev.cdccache.") || type2.startsWith("org.hibernate.")) && seen.add(name(frame))) {
                        inclusive.merge(name(frame), 1, Integer::sum);
                    }
                }
            }
        }
        System.out.printf("execution samples: %d, of request threads (http-nio-*): %d%n", all, requests);
        print("samples per thread group (share of all)", groups, all, top);
        print("request threads, self (top frame)", self, requests, top);
        print("request threads, self per library (top frame outside java.*/jdk.*/sun.*)", libraries, requests, top);
        print("request threads, inclusive (dev.cdccache.*, org.hibernate.*)", inclusive, requests, top * 2);
        System.out.printf("%nallocation samples: %.1f MB sampled weight%n", allocated / 1e6);
        print("allocated bytes by class", allocatedClass, allocated, top);
        print("allocated bytes by site (first frame outside java.*/jdk.*)", allocatedSite, allocated, top);
    }

    private static boolean jdk(RecordedFrame frame) {
        String type = frame.getMethod().getType().getName();
        return type.startsWith("java.") || type.startsWith("jdk.") || type.startsWith("sun.");
    }

    /** The first library outside the JDK on the stack, by its first two package segments. */
    private static String library(List<RecordedFrame> frames) {
        for (RecordedFrame frame : frames) {
            if (!jdk(frame)) {
                String[] parts = frame.getMethod().getType().getName().split("\\.");
                return parts.length > 2 ? parts[0] + "." + parts[1] : parts[0];
            }
        }
        return "(JDK only)";
    }

    private static String name(RecordedFrame frame) {
        String type = frame.getMethod().getType().getName();
        return type.substring(type.lastIndexOf('.', type.lastIndexOf('.') - 1) + 1) + "." + frame.getMethod().getName();
    }

    private static <N extends Number> void print(String title, Map<String, N> counts, double total, int top) {
        System.out.printf("%n%s:%n", title);
        counts.entrySet().stream()
                .sorted((a, b) -> Double.compare(b.getValue().doubleValue(), a.getValue().doubleValue()))
                .limit(top)
                .forEach(e -> System.out.printf("  %5.1f%%  %s%n", 100 * e.getValue().doubleValue() / total, e.getKey()));
    }
}
