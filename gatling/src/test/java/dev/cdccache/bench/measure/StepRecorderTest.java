package dev.cdccache.bench.measure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class StepRecorderTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void requestCountsForTheStepItStartedInEvenWhenItEndsInTheNext() {
        StepRecorder recorder = new StepRecorder(List.of(10.0, 20.0), 5);
        recorder.started(0);
        recorder.finished(0, 1_000_000, true);             // step 0, 1 ms
        recorder.started(4 * SECOND);
        recorder.finished(4 * SECOND, 6 * SECOND, true);   // started in step 0, took 2 s
        recorder.started(7 * SECOND);
        recorder.finished(7 * SECOND, 7 * SECOND + 2_000_000, false);

        ResultFile file = new ResultFile();
        recorder.writeTo(file, "s");

        assertThat(file.getLong("s.steps")).isEqualTo(2);
        assertThat(file.getLong("s.step.0.count")).isEqualTo(2);
        assertThat(file.getLong("s.step.0.max_us")).isBetween(1_999_000L, 2_001_000L);
        assertThat(file.getDouble("s.step.0.achieved_rps")).isEqualTo(0.4);
        assertThat(file.getLong("s.step.1.ko")).isEqualTo(1);
        assertThat(file.getDouble("s.step.1.offered_rps")).isEqualTo(20.0);
    }

    @Test
    void saturatedWhenInFlightExceedsWhatTheRateAndTheLatencyBoundExplain() {
        StepRecorder recorder = new StepRecorder(List.of(100.0), 10);
        for (int i = 0; i < 150; i++) {
            recorder.started(i);
        }
        assertThat(recorder.saturated(200, 2)).isFalse();   // 150 <= 100/s x 2 s
        for (int i = 0; i < 60; i++) {
            recorder.started(200 + i);
        }
        assertThat(recorder.saturated(300, 2)).isTrue();    // 210 > 200
    }

    @Test
    void requestsOutsideTheStaircaseAreIgnored() {
        StepRecorder recorder = new StepRecorder(List.of(10.0), 1);
        recorder.started(0);
        recorder.finished(0, 10, true);
        recorder.started(5 * SECOND);
        recorder.finished(5 * SECOND, 5 * SECOND + 10, true);
        ResultFile file = new ResultFile();
        recorder.writeTo(file, "s");
        assertThat(file.getLong("s.step.0.count")).isEqualTo(1);
        assertThat(file.getLong("s.steps")).isEqualTo(1);
    }
}
