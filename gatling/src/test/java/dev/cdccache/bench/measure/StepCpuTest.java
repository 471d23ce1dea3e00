package dev.cdccache.bench.measure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class StepCpuTest {

    private final Map<Long, Double> cpuNow = new ConcurrentHashMap<>();

    private StepCpu sampler(int steps) {
        return new StepCpu(List.of(new StepCpu.Process("a", 1), new StepCpu.Process("b", 2)), steps,
                pid -> cpuNow.containsKey(pid) ? OptionalDouble.of(cpuNow.get(pid)) : OptionalDouble.empty());
    }

    @Test
    void aStepCountsOnlyTheCpuSpentBetweenItsOwnBoundaries() {
        StepCpu cpu = sampler(2);
        // 40 s of start-up and warm-up already spent: must not count
        cpuNow.put(1L, 40.0);
        cpuNow.put(2L, 10.0);
        cpu.sample(0);
        cpuNow.put(1L, 43.0);
        cpuNow.put(2L, 11.0);
        cpu.sample(1);
        cpuNow.put(1L, 49.0);
        cpuNow.put(2L, 12.0);
        cpu.sample(2);

        ResultFile file = new ResultFile();
        cpu.writeTo(file, "s.step.0", 0, 1000);
        cpu.writeTo(file, "s.step.1", 1, 1000);
        assertThat(file.get("s.step.0.cpu_s.a")).isEqualTo("3.00");
        assertThat(file.get("s.step.0.cpu_s")).isEqualTo("4.00");
        assertThat(file.get("s.step.0.cpu_ms_per_req")).isEqualTo("4.000");
        assertThat(file.get("s.step.1.cpu_ms_per_req")).isEqualTo("7.000");
    }

    @Test
    void aStepWhoseEndWasNeverReadHasNoCpuFigure() {
        StepCpu cpu = sampler(2);
        cpuNow.put(1L, 1.0);
        cpuNow.put(2L, 1.0);
        cpu.sample(0);
        cpu.sample(1);
        ResultFile file = new ResultFile();
        cpu.writeTo(file, "s.step.1", 1, 100);
        assertThat(file.has("s.step.1.cpu_s")).isFalse();
    }

    @Test
    void staircaseWritesCpuPerRequestOfEachStepSampledFromItsOrigin() throws Exception {
        cpuNow.put(1L, 5.0);
        cpuNow.put(2L, 5.0);
        StepRecorder recorder = new StepRecorder(List.of(10.0), 1, sampler(1));
        long start = System.nanoTime();
        recorder.started(start);
        recorder.finished(start, start + 1_000_000, true);
        Thread.sleep(300);
        cpuNow.put(1L, 6.0);
        Thread.sleep(1_200);
        ResultFile file = new ResultFile();
        recorder.writeTo(file, "s");
        assertThat(file.get("s.step.0.cpu_s")).isEqualTo("1.00");
        assertThat(file.get("s.step.0.cpu_ms_per_req")).isEqualTo("1000.000");
    }

    @Test
    void theStepUnderWayWhenTheLoadEndsIsReadThenAndLaterStepsStayEmpty() {
        StepCpu cpu = sampler(3);
        // boundaries an hour away: the sampler thread reads none of them within this test
        cpu.startAt(System.nanoTime() + TimeUnit.HOURS.toNanos(1), TimeUnit.SECONDS.toNanos(1));
        cpuNow.put(1L, 2.0);
        cpuNow.put(2L, 2.0);
        cpu.sample(0);
        cpuNow.put(1L, 2.5);
        cpu.finish();

        ResultFile file = new ResultFile();
        cpu.writeTo(file, "s.step.0", 0, 10);
        cpu.writeTo(file, "s.step.1", 1, 10);
        assertThat(file.get("s.step.0.cpu_s")).isEqualTo("0.50");
        assertThat(file.has("s.step.1.cpu_s")).isFalse();
    }

    @Test
    void parsesNamePidPairsAndNothingFromBlank() {
        assertThat(StepCpu.parse(" ", 3, 100)).isNull();
        StepCpu cpu = StepCpu.parse("coupon-service-1:" + ProcessHandle.current().pid(), 1, 100);
        cpu.sample(0);
        cpu.sample(1);
        assertThat(cpu.cpuSeconds(0, 0)).isGreaterThanOrEqualTo(0);
    }
}
