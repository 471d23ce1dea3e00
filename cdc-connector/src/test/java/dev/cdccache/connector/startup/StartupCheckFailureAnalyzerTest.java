package dev.cdccache.connector.startup;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.context.ApplicationContextException;

class StartupCheckFailureAnalyzerTest {

    @Test
    void failedCheckDeepInTheStartFailureBecomesProblemAndFix() {
        StartupCheckException check = new StartupCheckException("The binary log is off on db:3306 (log_bin=OFF).",
                "Enable it: log-bin=mysql-bin, binlog_format=ROW.");
        Throwable startFailure = new ApplicationContextException("Failed to start bean 'changeEventEngine'", check);

        FailureAnalysis analysis = new StartupCheckFailureAnalyzer().analyze(startFailure);

        assertThat(analysis.getDescription()).isEqualTo("CDC connector cannot start: The binary log is off on db:3306 (log_bin=OFF).");
        assertThat(analysis.getAction()).isEqualTo("Enable it: log-bin=mysql-bin, binlog_format=ROW.");
    }

    @Test
    void otherFailuresAreLeftToSpringBoot() {
        assertThat(new StartupCheckFailureAnalyzer().analyze(new IllegalStateException("x"))).isNull();
    }
}
