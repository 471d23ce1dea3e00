package dev.cdccache.bench.simulation;

import static io.gatling.javaapi.core.CoreDsl.constantConcurrentUsers;
import static io.gatling.javaapi.core.CoreDsl.constantUsersPerSec;
import static io.gatling.javaapi.core.CoreDsl.rampConcurrentUsers;
import static io.gatling.javaapi.core.CoreDsl.rampUsersPerSec;

import dev.cdccache.bench.measure.ResultFile;
import dev.cdccache.bench.measure.StepCpu;
import dev.cdccache.bench.measure.StepRecorder;
import io.gatling.javaapi.core.ClosedInjectionStep;
import io.gatling.javaapi.core.OpenInjectionStep;
import io.gatling.javaapi.core.PopulationBuilder;
import io.gatling.javaapi.core.ScenarioBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The load shapes the simulations use, chosen with {@code -Dprofile}:
 * <ul>
 * <li>{@code constant} (open): {@code -Drate} users/s, one request each, for {@code -DdurationSeconds}
 *     after a warm-up of {@code -DwarmupSeconds} that ramps from 1 user/s to the rate in its first half
 *     and holds the rate in the second; the figures cover the part after the warm-up.</li>
 * <li>{@code staircase} (open): a warm-up ramping from 1 user/s to the first rate (or to {@code -DwarmupRate}, to
 *     warm a service at the rates its steps will bring when the first step is a low reference rate), then each of
 *     {@code -Drates} for {@code -DstepSeconds}; figures per step. Stops adding load once the system no longer keeps up
 *     (requests in flight beyond {@code -DsaturationSeconds} of queueing), so saturation is found without
 *     drowning the machine. With {@code -DcpuPids=name:pid,...}, the CPU time of those processes per step.</li>
 * <li>{@code closed}: {@code -Dusers} concurrent users back to back.</li>
 * <li>{@code reference} (closed): the ticket service's reference profile, ramp 1 to 5 users over 10 s, hold 5 for 40 s, ramp
 *     5 to 1 over 30 s, after a warm-up; {@code -DtimeScale} shortens it for smoke runs.</li>
 * </ul>
 */
final class LoadProfile {

    final String name;
    final int warmupSeconds;
    final int durationSeconds;
    final double rate;
    final int users;
    final List<Double> rates;
    /** The rate a staircase's warm-up ramps to and holds (its first rate unless {@code -DwarmupRate} is given). */
    final double warmupRate;
    final int stepSeconds;
    final double saturationSeconds;
    final double timeScale;
    final StepRecorder steps;

    private LoadProfile(String defaultProfile, String defaultRates) {
        this.name = SimulationSettings.string("profile", defaultProfile);
        this.warmupSeconds = SimulationSettings.integer("warmupSeconds", 10);
        this.durationSeconds = SimulationSettings.integer("durationSeconds", 30);
        this.rate = SimulationSettings.decimal("rate", 100);
        this.users = SimulationSettings.integer("users", 8);
        this.rates = SimulationSettings.decimals("rates", defaultRates);
        this.warmupRate = SimulationSettings.decimal("warmupRate", rates.isEmpty() ? rate : rates.get(0));
        this.stepSeconds = SimulationSettings.integer("stepSeconds", 10);
        this.saturationSeconds = SimulationSettings.decimal("saturationSeconds", 2);
        this.timeScale = SimulationSettings.decimal("timeScale", 1);
        // -DcpuPids=name:pid,...: the services whose CPU time is read at every step boundary (CPU per request
        // over each step alone); -DclockTicks: the kernel's clock ticks per second (getconf CLK_TCK)
        this.steps = name.equals("staircase")
                ? new StepRecorder(rates, stepSeconds, StepCpu.parse(SimulationSettings.string("cpuPids", ""),
                        rates.size(), SimulationSettings.integer("clockTicks", 100)))
                : null;
    }

    static LoadProfile fromSystemProperties(String defaultProfile, String defaultRates) {
        return new LoadProfile(defaultProfile, defaultRates);
    }

    /** Seconds from the first request after which requests are measured. */
    int measuredAfterSeconds() {
        return warmupSeconds;
    }

    boolean isOpen() {
        return name.equals("constant") || name.equals("staircase");
    }

    PopulationBuilder inject(ScenarioBuilder scenario) {
        switch (name) {
            case "constant" -> {
                List<OpenInjectionStep> injection = new ArrayList<>(warmUpTo(rate));
                injection.add(constantUsersPerSec(rate).during(Duration.ofSeconds(durationSeconds)));
                return scenario.injectOpen(injection);
            }
            case "staircase" -> {
                List<OpenInjectionStep> injection = new ArrayList<>(warmUpTo(warmupRate));
                for (double r : rates) {
                    injection.add(constantUsersPerSec(r).during(Duration.ofSeconds(stepSeconds)));
                }
                return scenario.injectOpen(injection);
            }
            case "closed" -> {
                return scenario.injectClosed(
                        constantConcurrentUsers(users).during(Duration.ofSeconds(warmupSeconds + durationSeconds)));
            }
            case "reference" -> {
                List<ClosedInjectionStep> injection = new ArrayList<>();
                if (warmupSeconds > 0) {
                    injection.add(constantConcurrentUsers(2).during(Duration.ofSeconds(warmupSeconds)));
                }
                injection.add(rampConcurrentUsers(1).to(5).during(scaled(10)));
                injection.add(constantConcurrentUsers(5).during(scaled(40)));
                injection.add(rampConcurrentUsers(5).to(1).during(scaled(30)));
                return scenario.injectClosed(injection);
            }
            default -> throw new IllegalArgumentException(
                    "unknown -Dprofile=" + name + " (constant, staircase, closed, reference)");
        }
    }

    /**
     * A cold service (no JIT, empty caches) hit at full rate at once queues requests faster than it
     * drains them, and every mode then measures its recovery from that pile-up rather than its steady
     * state; ramping first gives every mode the same gentle start.
     */
    private List<OpenInjectionStep> warmUpTo(double target) {
        if (warmupSeconds <= 0) {
            return List.of();
        }
        // at least a second of ramp: Gatling's injector divides by the ramp's whole seconds and, when that
        // is zero, crashes and leaves the simulation waiting forever with no user started
        Duration ramp = Duration.ofMillis(Math.max(1000, warmupSeconds * 500L));
        Duration hold = Duration.ofSeconds(warmupSeconds).minus(ramp);
        List<OpenInjectionStep> steps = new ArrayList<>(List.of(rampUsersPerSec(1).to(target).during(ramp)));
        if (!hold.isZero() && !hold.isNegative()) {
            steps.add(constantUsersPerSec(target).during(hold));
        }
        return steps;
    }

    private Duration scaled(int seconds) {
        return Duration.ofMillis(Math.max(1000, Math.round(seconds * 1000 * timeScale)));
    }

    void describe(ResultFile file, String prefix) {
        file.put(prefix + ".profile", name);
        file.put(prefix + ".warmup_s", warmupSeconds);
        switch (name) {
            case "constant" -> file.put(prefix + ".rate", rate).put(prefix + ".duration_s", durationSeconds);
            case "staircase" -> file.put(prefix + ".rates", rates.toString()).put(prefix + ".step_s", stepSeconds)
                    .put(prefix + ".warmup_rate", warmupRate);
            case "closed" -> file.put(prefix + ".users", users).put(prefix + ".duration_s", durationSeconds);
            case "reference" -> file.put(prefix + ".time_scale", timeScale);
            default -> { }
        }
    }
}
