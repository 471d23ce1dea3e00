package dev.cdccache.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.bench.measure.LatencySummary;
import java.util.List;
import org.junit.jupiter.api.Test;

class FineLadderTest {

    private static Capacity.Step step(double offered, double achieved, long p99Micros) {
        return new Capacity.Step(offered, achieved, 0, new LatencySummary(100, 0, 1, 1, p99Micros, p99Micros));
    }

    @Test
    void kneeIsTheLastCoarseStepWithinTheBound() {
        List<Capacity.Step> coarse = List.of(step(500, 500, 10_000), step(1000, 998, 60_000), step(2000, 1500, 900_000));
        assertThat(FineLadder.knee(coarse, 100_000)).isEqualTo(1000);
    }

    @Test
    void kneeFallsBackToTheLowestRateWhenNoStepHeldTheBound() {
        assertThat(FineLadder.knee(List.of(step(200, 200, 500_000), step(400, 300, 900_000)), 100_000)).isEqualTo(200);
    }

    @Test
    void ladderStepsByAFewPercentAroundTheKnee() {
        assertThat(FineLadder.around(1000, 5, 2, 3)).containsExactly(900L, 950L, 1000L, 1050L, 1100L, 1150L);
    }

    @Test
    void ladderDropsDuplicateAndNonPositiveRates() {
        assertThat(FineLadder.around(4, 10, 12, 1)).containsExactly(1L, 2L, 3L, 4L);
    }
}
