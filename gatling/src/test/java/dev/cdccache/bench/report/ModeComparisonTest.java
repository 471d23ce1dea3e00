package dev.cdccache.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.bench.measure.LatencySummary;
import dev.cdccache.bench.measure.ResultFile;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ModeComparisonTest {

    private static ModeComparison.RunStep step(double offered, double achieved, long p99Micros, double cpu) {
        return new ModeComparison.RunStep(offered, achieved, 0, new LatencySummary(100, 0, 1_000, 1_000, p99Micros, p99Micros), cpu);
    }

    /** A run whose steps at 100 and 200 req/s keep up; the one at 300 holds the 100 ms bound only if p99At300 does. */
    private static ModeComparison.Run run(int order, String build, String mode, int repeat, long p99At300, double cpu) {
        return new ModeComparison.Run(order, build, mode, repeat,
                List.of(step(100, 100, 5_000, cpu), step(200, 199, 20_000, cpu), step(300, 298, p99At300, cpu), step(400, 250, 900_000, cpu)),
                "0.50 0.40 0.30", "0", false);
    }

    private static ResultFile method() {
        return new ResultFile().put("command", "gatling/bin/compare-modes --quick").put("date", "2026-11-26 12:00 UTC")
                .put("builds", "current = abc1234, baseline = def5678").put("machine.cpu", "AMD EPYC").put("machine.cores", 2)
                .put("pinning", "Gatling on CPU 1, everything else on CPU 0 (taskset)").put("modes", "none,local");
    }

    @Test
    void everyRawRunIsPrintedWithTheMachineAndWhereTheLoadGeneratorRan() {
        String report = new ModeComparison(method(), List.of(run(1, "current", "none", 1, 50_000, 2.0),
                run(2, "current", "local", 1, 50_000, 1.0)), 100_000).render();
        assertThat(report).contains("gatling/bin/compare-modes --quick", "AMD EPYC, 2 cores",
                "Gatling on CPU 1, everything else on CPU 0 (taskset)", "current = abc1234, baseline = def5678");
        // 2 runs x 4 steps, one table row each
        assertThat(report.lines().filter(l -> l.matches("\\| [12] \\| current \\|.*"))).hasSize(8);
    }

    @Test
    void disjointRangesAreStatedWithTheRatioOfMedians() {
        List<ModeComparison.Run> runs = new ArrayList<>();
        for (int r = 1; r <= 3; r++) {
            runs.add(run(2 * r - 1, "current", "none", r, 500_000, 2.0 + r * 0.01));  // capacity: the 200 step
            runs.add(run(2 * r, "current", "local", r, 50_000, 1.0 + r * 0.01));      // capacity: the 300 step
        }
        String report = new ModeComparison(method(), runs, 100_000).render();
        assertThat(report).contains("- current none vs current local: capacity ranges disjoint, the second higher in every run: "
                + "199 vs 298 req/s", "ratio of medians 1.50", "come up 10% of the time");
        assertThat(report).contains("CPU per request at 100 req/s: ranges disjoint, the first higher in every run");
        assertThat(report).contains("| current | `local` | 300 | 3 | 298.0 (298.0-298.0) | 1.00 (1.00-1.00) | 50.00 (50.00-50.00) |");
    }

    @Test
    void overlappingRangesShowNoDifferenceAndNoRatio() {
        List<ModeComparison.Run> runs = List.of(
                run(1, "baseline", "local", 1, 500_000, 1.0), run(2, "current", "local", 1, 50_000, 1.1),
                run(3, "current", "local", 2, 500_000, 0.9), run(4, "baseline", "local", 2, 50_000, 1.05));
        String report = new ModeComparison(method(), runs, 100_000).render();
        assertThat(report).contains("- baseline local vs current local: capacity ranges overlap, no difference shown");
        assertThat(report.lines().filter(l -> l.startsWith("- baseline local vs current local")))
                .noneMatch(l -> l.contains("ratio"));
    }

    @Test
    void aCapacityAtTheTopOfTheLadderIsOnlyALowerBound() {
        ModeComparison.Run run = new ModeComparison.Run(1, "current", "local", 1,
                List.of(step(100, 100, 5_000, 1), step(200, 200, 5_000, 1)), "?", "0", false);
        ModeComparison comparison = new ModeComparison(method(), List.of(run), 100_000);
        assertThat(comparison.capacity(run).text()).isEqualTo("≥ 200");
    }

    @Test
    void capacitiesAtTheTopOfTheirLaddersGetNeitherAnOrderNorARatio() {
        List<ModeComparison.Run> runs = new ArrayList<>();
        for (int r = 1; r <= 3; r++) {
            runs.add(new ModeComparison.Run(2 * r - 1, "current", "none", r, List.of(step(50, 50, 30_000, 6), step(53, 53, 30_000, 6)),
                    "?", "0", false));
            runs.add(new ModeComparison.Run(2 * r, "current", "local", r, List.of(step(100, 100, 30_000, 4), step(105, 105, 30_000, 4)),
                    "?", "0", false));
        }
        String report = new ModeComparison(method(), runs, 100_000).render();
        String verdict = report.lines().filter(l -> l.startsWith("- current none vs current local")).findFirst().orElseThrow();
        assertThat(verdict).contains("not decided: some capacities lie outside the ladder").doesNotContain("ratio of medians");
    }

    @Test
    void aSingleRunPerSideDecidesNothing() {
        assertThat(ModeComparison.compareValues(new double[] {1}, new double[] {2}, "%.0f", "ms")).startsWith("too few runs to decide");
    }

    @Test
    void disjointRangesByChanceAreTwoOrderingsInAll() {
        assertThat(ModeComparison.chanceOfDisjoint(3, 3)).isEqualTo(0.1);
        assertThat(ModeComparison.chanceOfDisjoint(2, 2)).isCloseTo(1.0 / 3, org.assertj.core.data.Offset.offset(1e-12));
    }
}
