package dev.cdccache.bench.report;

import dev.cdccache.bench.measure.LatencySummary;
import dev.cdccache.bench.measure.ResultFile;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the steps of an open-model staircase and finds its capacity at a p99 bound: the highest
 * achieved throughput among steps that kept up (achieved at least 95% of the offered rate), had no failed
 * request, and whose p99 stayed within the bound. Comparing capacities at one bound is how the report
 * compares throughput "at equal p99".
 */
public final class Capacity {

    /** One step of a staircase. */
    public record Step(double offered, double achieved, long failed, LatencySummary latency) {
        boolean keptUp() {
            return achieved >= 0.95 * offered && failed == 0;
        }
    }

    private Capacity() {
    }

    public static List<Step> steps(ResultFile file, String prefix) {
        List<Step> steps = new ArrayList<>();
        for (String key : stepKeys(file, prefix)) {
            steps.add(step(file, key));
        }
        return steps;
    }

    /** The key prefixes ({@code prefix.step.<i>}) of the steps a staircase result holds, in order. */
    public static List<String> stepKeys(ResultFile file, String prefix) {
        List<String> keys = new ArrayList<>();
        long count = file.getLong(prefix + ".steps", 0);
        for (int i = 0; i < count; i++) {
            String key = prefix + ".step." + i;
            if (file.has(key + ".offered_rps")) {
                keys.add(key);
            }
        }
        return keys;
    }

    /** The step written under {@code key} (one of {@link #stepKeys}). */
    public static Step step(ResultFile file, String key) {
        return new Step(file.getDouble(key + ".offered_rps"), file.getDouble(key + ".achieved_rps"),
                file.getLong(key + ".ko", 0), LatencySummary.readFrom(file, key));
    }

    /** The best step within {@code p99BoundMicros}, or {@code null} if none qualifies. */
    public static Step atP99(List<Step> steps, long p99BoundMicros) {
        Step best = null;
        for (Step step : steps) {
            if (step.keptUp() && step.latency().p99Micros() <= p99BoundMicros
                    && (best == null || step.achieved() > best.achieved())) {
                best = step;
            }
        }
        return best;
    }
}
