package dev.cdccache.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ShownPathTest {

    @Test
    void aResultsDirectoryUnderTheWorkingDirectoryIsShownRelativeToIt() {
        Path results = Path.of("").toAbsolutePath().resolve("target/bench/report-1/results");
        assertThat(BenchmarkReport.shown(results)).isEqualTo(Path.of("target/bench/report-1/results").toString());
    }

    @Test
    void aDirectoryElsewhereIsShownInFull() {
        Path elsewhere = Path.of("").toAbsolutePath().getRoot().resolve("elsewhere/results");
        assertThat(BenchmarkReport.shown(elsewhere)).isEqualTo(elsewhere.toString());
    }
}
