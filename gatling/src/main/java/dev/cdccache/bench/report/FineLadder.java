package dev.cdccache.bench.report;

import dev.cdccache.bench.measure.ResultFile;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The rates of a fine staircase around a knee: a coarse staircase with big jumps (1,800 to 2,200 req/s)
 * only brackets where latency breaks down; the fine pass then steps by a few percent around the highest
 * coarse step that held the p99 bound, so capacities of different modes or builds can be told apart.
 */
public final class FineLadder {

    private FineLadder() {
    }

    /**
     * The knee of a coarse staircase: the offered rate of its capacity step at the bound
     * ({@link Capacity#atP99}), or its lowest offered rate when no step held the bound.
     */
    public static double knee(List<Capacity.Step> coarse, long p99BoundMicros) {
        if (coarse.isEmpty()) {
            throw new IllegalArgumentException("the coarse staircase has no step");
        }
        Capacity.Step best = Capacity.atP99(coarse, p99BoundMicros);
        return best != null ? best.offered() : coarse.stream().mapToDouble(Capacity.Step::offered).min().orElseThrow();
    }

    /**
     * Rates {@code knee * (1 + k * stepPercent / 100)} for k from {@code -below} to {@code above}, rounded to
     * whole requests/s, ascending, without duplicates or rates below 1.
     */
    public static List<Long> around(double knee, double stepPercent, int below, int above) {
        if (stepPercent <= 0 || below < 0 || above < 0) {
            throw new IllegalArgumentException("need a positive step and non-negative step counts");
        }
        TreeSet<Long> rates = new TreeSet<>();
        for (int k = -below; k <= above; k++) {
            long rate = Math.round(knee * (1 + k * stepPercent / 100));
            if (rate >= 1) {
                rates.add(rate);
            }
        }
        return List.copyOf(rates);
    }

    /**
     * Prints the fine ladder of a coarse run as comma-separated rates:
     * {@code FineLadder RESULT-FILE STAIRCASE-PREFIX P99-BOUND-MS STEP-PERCENT BELOW ABOVE}
     * (e.g. {@code coarse.properties coupon.staircase 100 5 3 3}).
     */
    public static void main(String[] args) {
        if (args.length != 6) {
            System.err.println("usage: FineLadder RESULT-FILE STAIRCASE-PREFIX P99-BOUND-MS STEP-PERCENT BELOW ABOVE");
            System.exit(2);
        }
        List<Capacity.Step> coarse = Capacity.steps(ResultFile.read(Path.of(args[0])), args[1]);
        if (coarse.isEmpty()) {
            System.err.println("no staircase step in " + args[0]);
            System.exit(1);
        }
        double knee = knee(coarse, Long.parseLong(args[2]) * 1000);
        System.out.println(around(knee, Double.parseDouble(args[3]), Integer.parseInt(args[4]), Integer.parseInt(args[5]))
                .stream().map(String::valueOf).collect(Collectors.joining(",")));
    }
}
