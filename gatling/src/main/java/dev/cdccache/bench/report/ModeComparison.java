package dev.cdccache.bench.report;

import dev.cdccache.bench.measure.LatencySummary;
import dev.cdccache.bench.measure.ResultFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;

/**
 * The report of a repeated, alternated comparison of cache modes (and of a baseline build against the
 * current one): every raw run, then per build, mode and offered rate the median and the range over the
 * repeats, capacities at the p99 bound, and which differences the ranges support. A difference is stated
 * only when the two ranges do not overlap (every run of one side beat every run of the other); otherwise
 * the report says that the runs do not show one, whatever the medians.
 *
 * <p>Reads {@code method.properties} (command, date, builds, machine, pinning) and the {@code run-*.properties}
 * files of one run directory, each a staircase result with {@code run.build}, {@code run.mode},
 * {@code run.repeat} and {@code run.order} added by {@code gatling/bin/compare-modes}.
 */
public final class ModeComparison {

    /** One step of one run; {@code cpuMsPerRequest} is NaN when the step's CPU was not sampled. */
    public record RunStep(double offered, double achieved, long failed, LatencySummary latency, double cpuMsPerRequest) {
        Capacity.Step asCapacityStep() {
            return new Capacity.Step(offered, achieved, failed, latency);
        }
    }

    /** One measured staircase: which build and mode, in which place of the run order. */
    public record Run(int order, String build, String mode, int repeat, List<RunStep> steps, String loadAverage,
            String gatlingExit, boolean stoppedSaturated) {
        String group() {
            return build + " " + mode;
        }
    }

    /** A run's capacity at the bound; {@code atLeast} when the last step still held it (the ladder ended first). */
    record RunCapacity(double value, boolean atLeast, boolean belowLadder, double lowestOffered) {
        String text() {
            return belowLadder ? "< " + fmt("%.0f", lowestOffered) : (atLeast ? "≥ " : "") + fmt("%.0f", value);
        }
    }

    private final ResultFile method;
    private final List<Run> runs;
    private final long p99BoundMicros;
    private final StringBuilder out = new StringBuilder();

    public ModeComparison(ResultFile method, List<Run> runs, long p99BoundMicros) {
        this.method = method;
        this.runs = runs.stream().sorted(Comparator.comparingInt(Run::order)).toList();
        this.p99BoundMicros = p99BoundMicros;
    }

    /** Reads a run written by {@code compare-modes}: its staircase steps are under {@code prefix.staircase}. */
    public static Run readRun(ResultFile file, String prefix) {
        String stairs = prefix + ".staircase";
        List<RunStep> steps = new ArrayList<>();
        for (String key : Capacity.stepKeys(file, stairs)) {
            Capacity.Step step = Capacity.step(file, key);
            steps.add(new RunStep(step.offered(), step.achieved(), step.failed(), step.latency(),
                    file.getDouble(key + ".cpu_ms_per_req", Double.NaN)));
        }
        return new Run((int) file.getLong("run.order", 0), file.get("run.build", "current"), file.get("run.mode", "?"),
                (int) file.getLong("run.repeat", 0), steps, file.get("run.loadavg_before", "?"),
                file.get("run.gatling_exit", "?"), Boolean.parseBoolean(file.get(stairs + ".stopped_saturated", "false")));
    }

    /** The Markdown report. */
    public String render() {
        header();
        rawRuns();
        perRate();
        capacities();
        verdicts();
        return out.toString();
    }

    private void header() {
        line("### Cache modes side by side, repeated and alternated (" + method.get("date", "?") + ")");
        line("");
        line("- command: `" + method.get("command", "?") + "`");
        line("- date: " + method.get("date", "?") + (method.has("date.end") ? " to " + method.get("date.end") : ""));
        line("- builds: " + method.get("builds", "?"));
        line("- machine: " + method.get("machine.cpu", "?") + ", " + method.get("machine.cores", "?") + " cores, "
                + method.get("machine.memory", "?") + ", " + method.get("machine.java", "?")
                + "; load average (1, 5, 15 min) at the start " + method.get("loadavg.start", "?") + ", at the end "
                + method.get("loadavg.end", "?") + "; shared with other builds and sessions: " + method.get("machine.shared", "unknown"));
        line("- load generator: " + method.get("pinning", "not recorded"));
        line("- method: " + method.get("method", "?"));
        line("- p99 bound for capacities: " + p99BoundMicros / 1000 + " ms");
        line("");
    }

    private void rawRuns() {
        line("#### Every raw run (in the order run)");
        line("");
        line("| # | build | mode | repeat | offered/s | achieved/s | p50 ms | p99 ms | failed | CPU ms/req | load avg before | gatling exit |");
        line("| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |");
        for (Run run : runs) {
            for (RunStep s : run.steps()) {
                line("| " + run.order() + " | " + run.build() + " | `" + run.mode() + "` | " + run.repeat() + " | "
                        + fmt("%.0f", s.offered()) + " | " + fmt("%.1f", s.achieved()) + " | " + ms(s.latency().p50Micros())
                        + " | " + ms(s.latency().p99Micros()) + " | " + s.failed() + " | " + cpu(s.cpuMsPerRequest()) + " | "
                        + run.loadAverage() + " | " + run.gatlingExit() + (run.stoppedSaturated() ? " (stopped: saturated)" : "")
                        + " |");
            }
            if (run.steps().isEmpty()) {
                line("| " + run.order() + " | " + run.build() + " | `" + run.mode() + "` | " + run.repeat()
                        + " | no step recorded | | | | | | " + run.loadAverage() + " | " + run.gatlingExit() + " |");
            }
        }
        line("");
    }

    private void perRate() {
        line("#### Per build, mode and offered rate: median (min-max) over the repeats");
        line("");
        line("| build | mode | offered/s | runs | achieved/s | p50 ms | p99 ms | CPU ms/req |");
        line("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
        groups().forEach((group, groupRuns) -> {
            for (double rate : rates(groupRuns)) {
                List<RunStep> at = stepsAt(groupRuns, rate);
                Run first = groupRuns.get(0);
                line("| " + first.build() + " | `" + first.mode() + "` | " + fmt("%.0f", rate) + " | " + at.size() + " | "
                        + spread(at, RunStep::achieved, "%.1f") + " | "
                        + spread(at, s -> s.latency().p50Micros() / 1000.0, "%.2f") + " | "
                        + spread(at, s -> s.latency().p99Micros() / 1000.0, "%.2f") + " | "
                        + spread(at, RunStep::cpuMsPerRequest, "%.3f") + " |");
            }
        });
        line("");
    }

    private void capacities() {
        line("#### Capacity at p99 <= " + p99BoundMicros / 1000 + " ms per run (highest achieved rate of a step that kept up"
                + " without a failed request): median (min-max)");
        line("");
        line("| build | mode | runs | each run | median (min-max) |");
        line("| --- | --- | ---: | --- | --- |");
        groups().forEach((group, groupRuns) -> {
            List<RunCapacity> caps = groupRuns.stream().map(this::capacity).toList();
            double[] values = caps.stream().mapToDouble(RunCapacity::value).toArray();
            line("| " + groupRuns.get(0).build() + " | `" + groupRuns.get(0).mode() + "` | " + caps.size() + " | "
                    + String.join(", ", caps.stream().map(RunCapacity::text).toList()) + " | "
                    + (values.length == 0 ? "-" : fmt("%.0f", median(values)) + " (" + fmt("%.0f", min(values)) + "-"
                    + fmt("%.0f", max(values)) + ")") + " |");
        });
        line("");
        line("≥: the ladder's last step still held the bound, so the capacity is at least that; <: not even the first step did.");
        line("");
    }

    private void verdicts() {
        line("#### What the ranges support");
        line("");
        line("A difference is stated only when the ranges do not overlap (every run of one side beat every run of the"
                + " other); a ratio of medians is quoted only then. Capacities are steps of the ladder, so two modes"
                + " whose knees lie within one step of each other cannot be told apart this way.");
        line("");
        Map<String, List<Run>> groups = groups();
        List<String> keys = new ArrayList<>(groups.keySet());
        for (int i = 0; i < keys.size(); i++) {
            for (int j = i + 1; j < keys.size(); j++) {
                List<Run> a = groups.get(keys.get(i));
                List<Run> b = groups.get(keys.get(j));
                boolean sameBuild = a.get(0).build().equals(b.get(0).build());
                boolean sameMode = a.get(0).mode().equals(b.get(0).mode());
                if (!sameBuild && !sameMode) {
                    continue;
                }
                line("- " + keys.get(i) + " vs " + keys.get(j) + ": capacity " + compare(
                        a.stream().map(this::capacity).toList(), b.stream().map(this::capacity).toList()));
                TreeSet<Double> common = new TreeSet<>(rates(a));
                common.retainAll(rates(b));
                for (double rate : common) {
                    double[] ca = stepsAt(a, rate).stream().mapToDouble(RunStep::cpuMsPerRequest).filter(v -> !Double.isNaN(v)).toArray();
                    double[] cb = stepsAt(b, rate).stream().mapToDouble(RunStep::cpuMsPerRequest).filter(v -> !Double.isNaN(v)).toArray();
                    if (ca.length > 0 && cb.length > 0) {
                        line("  - CPU per request at " + fmt("%.0f", rate) + " req/s: " + compareValues(ca, cb, "%.3f", "ms"));
                    }
                }
            }
        }
        line("");
    }

    private String compare(List<RunCapacity> a, List<RunCapacity> b) {
        boolean censored = Stream.concat(a.stream(), b.stream()).anyMatch(c -> c.atLeast() || c.belowLadder());
        if (!censored) {
            return compareValues(a.stream().mapToDouble(RunCapacity::value).toArray(),
                    b.stream().mapToDouble(RunCapacity::value).toArray(), "%.0f", "req/s");
        }
        // a capacity outside the ladder is only a bound: no ratio, and an order only where the bounds imply it
        String each = String.join(", ", a.stream().map(RunCapacity::text).toList()) + " vs "
                + String.join(", ", b.stream().map(RunCapacity::text).toList()) + " req/s";
        if (a.size() >= 2 && b.size() >= 2 && (lowest(a) > highest(b) || lowest(b) > highest(a))) {
            return "the " + (lowest(a) > highest(b) ? "first" : "second") + " higher in every run (" + each
                    + "), but some capacities lie outside the ladder, so no ratio can be given";
        }
        return "not decided: some capacities lie outside the ladder (" + each + "); a ladder reaching past both knees"
                + " is needed";
    }

    private static double lowest(List<RunCapacity> capacities) {
        return capacities.stream().mapToDouble(c -> c.belowLadder() ? 0 : c.value()).min().orElse(0);
    }

    private static double highest(List<RunCapacity> capacities) {
        return capacities.stream().mapToDouble(c -> c.atLeast() ? Double.POSITIVE_INFINITY
                : c.belowLadder() ? c.lowestOffered() : c.value()).max().orElse(0);
    }

    /**
     * "higher in every run ... ratio" when the ranges are disjoint, else "no difference shown"; {@code format}
     * formats one value, {@code unit} follows the figures.
     */
    static String compareValues(double[] a, double[] b, String format, String unit) {
        if (a.length == 0 || b.length == 0) {
            return "not measured on both sides";
        }
        String medians = fmt(format, median(a)) + " vs " + fmt(format, median(b)) + " " + unit + " (medians; ranges "
                + fmt(format, min(a)) + "-" + fmt(format, max(a)) + " and " + fmt(format, min(b)) + "-" + fmt(format, max(b)) + ")";
        if (a.length < 2 || b.length < 2) {
            return "too few runs to decide: " + medians;
        }
        if (max(a) < min(b) || max(b) < min(a)) {
            double ratio = median(a) > median(b) ? median(a) / median(b) : median(b) / median(a);
            String higher = median(a) > median(b) ? "first" : "second";
            return "ranges disjoint, the " + higher + " higher in every run: " + medians
                    + (Double.isFinite(ratio) ? ", ratio of medians " + fmt("%.2f", ratio) : "")
                    + "; with no real difference, disjoint ranges come up " + fmt("%.0f", 100 * chanceOfDisjoint(a.length, b.length))
                    + "% of the time";
        }
        return "ranges overlap, no difference shown: " + medians;
    }

    /**
     * The chance that {@code n} and {@code m} runs of the same distribution give disjoint ranges: 2 of the
     * C(n + m, n) equally likely orderings put one side wholly above the other.
     */
    static double chanceOfDisjoint(int n, int m) {
        double orderings = 1;
        for (int i = 1; i <= n; i++) {
            orderings = orderings * (m + i) / i;
        }
        return 2 / orderings;
    }

    RunCapacity capacity(Run run) {
        List<Capacity.Step> steps = run.steps().stream().map(RunStep::asCapacityStep).toList();
        Capacity.Step best = Capacity.atP99(steps, p99BoundMicros);
        if (best == null) {
            double lowest = steps.stream().mapToDouble(Capacity.Step::offered).min().orElse(0);
            return new RunCapacity(0, false, true, lowest);
        }
        double top = steps.stream().mapToDouble(Capacity.Step::offered).max().orElse(0);
        return new RunCapacity(best.achieved(), best.offered() >= top, false, 0);
    }

    private Map<String, List<Run>> groups() {
        Map<String, List<Run>> groups = new LinkedHashMap<>();
        runs.stream()
                .sorted(Comparator.comparing(Run::build).thenComparing(r -> modeRank(r.mode())).thenComparingInt(Run::order))
                .forEach(r -> groups.computeIfAbsent(r.group(), k -> new ArrayList<>()).add(r));
        return groups;
    }

    private int modeRank(String mode) {
        List<String> modes = Arrays.asList(method.get("modes", "").split(","));
        int i = modes.indexOf(mode);
        return i < 0 ? Integer.MAX_VALUE : i;
    }

    private static TreeSet<Double> rates(List<Run> runs) {
        TreeSet<Double> rates = new TreeSet<>();
        runs.forEach(r -> r.steps().forEach(s -> rates.add(s.offered())));
        return rates;
    }

    private static List<RunStep> stepsAt(List<Run> runs, double rate) {
        return runs.stream().flatMap(r -> r.steps().stream()).filter(s -> s.offered() == rate).toList();
    }

    private static String spread(List<RunStep> steps, ToDoubleFunction<RunStep> value, String format) {
        double[] v = steps.stream().mapToDouble(value).filter(x -> !Double.isNaN(x)).toArray();
        if (v.length == 0) {
            return "-";
        }
        return fmt(format, median(v)) + " (" + fmt(format, min(v)) + "-" + fmt(format, max(v)) + ")";
    }

    static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    private static double min(double[] v) {
        return Arrays.stream(v).min().orElse(Double.NaN);
    }

    private static double max(double[] v) {
        return Arrays.stream(v).max().orElse(Double.NaN);
    }

    private static String ms(long micros) {
        return fmt("%.2f", micros / 1000.0);
    }

    private static String cpu(double msPerRequest) {
        return Double.isNaN(msPerRequest) ? "-" : fmt("%.3f", msPerRequest);
    }

    private static String fmt(String format, double value) {
        return String.format(Locale.ROOT, format, value);
    }

    private void line(String text) {
        out.append(text).append('\n');
    }

    /**
     * Writes the report of one run directory: {@code ModeComparison RESULTS-DIR OUT.md [PREFIX] [P99-BOUND-MS]}
     * (prefix {@code coupon} by default, bound 100 ms).
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: ModeComparison RESULTS-DIR OUT.md [PREFIX] [P99-BOUND-MS]");
            System.exit(2);
        }
        Path dir = Path.of(args[0]);
        String prefix = args.length > 2 ? args[2] : "coupon";
        long bound = args.length > 3 ? Long.parseLong(args[3]) * 1000 : 100_000;
        List<Run> runs = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(p -> p.getFileName().toString().matches("run-.*\\.properties")).sorted().toList()) {
                runs.add(readRun(ResultFile.read(file), prefix));
            }
        }
        String report = new ModeComparison(ResultFile.read(dir.resolve("method.properties")), runs, bound).render();
        Files.writeString(Path.of(args[1]), report, StandardCharsets.UTF_8);
        System.out.print(report);
    }
}
