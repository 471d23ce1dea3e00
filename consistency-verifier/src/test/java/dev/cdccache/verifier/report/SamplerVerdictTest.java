package dev.cdccache.verifier.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** How a run judges one instance's consistency sampler against the history check (docs/consistency.md, criterion 5). */
class SamplerVerdictTest {

    private static final Map<String, Long> NOTHING_FOUND = Map.of();

    @Test
    void consistentSamplesAndNoStaleOneAreNoProblem() {
        assertThat(problems(Map.of("itemById", new long[] {120, 0, 3}, "itemStats", new long[] {9, 0, 0}),
                NOTHING_FOUND)).isEmpty();
    }

    @Test
    void aSamplerThatClassifiedNothingConsistentFailsTheRun() {
        assertThat(problems(Map.of("itemById", new long[] {0, 0, 0}), NOTHING_FOUND)).singleElement().asString()
                .contains("instance-1").contains("classified no sample consistent");
        assertThat(problems(Map.of(), NOTHING_FOUND)).singleElement().asString().contains("no cache sampled");
    }

    @Test
    void aStaleSampleTheHistoryCheckDidNotFindFailsTheRun() {
        assertThat(problems(Map.of("itemById", new long[] {120, 1, 0}), NOTHING_FOUND)).singleElement().asString()
                .contains("1 stale sample(s) of cache itemById").contains("disagree");
    }

    @Test
    void aStaleSampleMustCoincideWithTheHistoryCheckOnTheSameCache() {
        assertThat(problems(Map.of("itemById", new long[] {120, 1, 0}), Map.of("itemById", 4L))).isEmpty();
        assertThat(problems(Map.of("itemById", new long[] {120, 1, 0}), Map.of("itemStats", 4L))).singleElement()
                .asString().contains("itemById");
    }

    private static java.util.List<String> problems(Map<String, long[]> counts, Map<String, Long> historyStale) {
        return Report.samplerProblems("instance-1", 20, new java.util.TreeMap<>(counts),
                cache -> historyStale.getOrDefault(cache, 0L));
    }
}
