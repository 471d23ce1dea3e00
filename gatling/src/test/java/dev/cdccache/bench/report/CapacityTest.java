package dev.cdccache.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.bench.measure.LatencySummary;
import java.util.List;
import org.junit.jupiter.api.Test;

class CapacityTest {

    private static Capacity.Step step(double offered, double achieved, long failed, long p99Micros) {
        return new Capacity.Step(offered, achieved, failed, new LatencySummary(100, 0, 1, 1, p99Micros, p99Micros));
    }

    @Test
    void capacityIsTheHighestStepThatKeptUpWithinTheP99Bound() {
        List<Capacity.Step> steps = List.of(
                step(100, 100, 0, 5_000),
                step(200, 199, 0, 20_000),
                step(400, 396, 0, 150_000),   // over the bound
                step(800, 500, 0, 90_000));   // did not keep up
        assertThat(Capacity.atP99(steps, 100_000).offered()).isEqualTo(200);
    }

    @Test
    void aStepWithAFailedRequestDoesNotCount() {
        assertThat(Capacity.atP99(List.of(step(100, 100, 1, 1_000)), 100_000)).isNull();
    }
}
