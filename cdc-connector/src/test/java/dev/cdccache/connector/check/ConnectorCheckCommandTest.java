package dev.cdccache.connector.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@code check} says before it connects anywhere: usage errors and settings that do not bind. */
class ConnectorCheckCommandTest {

    private final ByteArrayOutputStream output = new ByteArrayOutputStream();

    private int run(String... args) {
        return ConnectorCheckCommand.run(args, new PrintStream(output, true, StandardCharsets.UTF_8));
    }

    private String output() {
        return output.toString(StandardCharsets.UTF_8);
    }

    @Test
    void onlyTheFirstArgumentCheckSelectsTheCommand() {
        assertThat(ConnectorCheckCommand.requestedBy(new String[] {"check", "--config", "x.yml"})).isTrue();
        assertThat(ConnectorCheckCommand.requestedBy(new String[] {"--cdc.connector.name=check"})).isFalse();
        assertThat(ConnectorCheckCommand.requestedBy(new String[0])).isFalse();
    }

    @Test
    void withoutAConfigFileItPrintsTheUsageAndExitsWithTwo() {
        assertThat(run("check")).isEqualTo(2);
        assertThat(output()).contains("--config <file> is required", "usage: java -jar cdc-connector-exec.jar check --config");
    }

    @Test
    void aProbeTimeoutThatIsNotAPositiveDurationIsAUsageError(@TempDir Path dir) throws IOException {
        Path config = Files.writeString(dir.resolve("c.yml"), "cdc: {}\n");
        for (String bad : List.of("--probe-timeout=0s", "--probe-timeout=-5s", "--probe-timeout=soon")) {
            output.reset();
            assertThat(run("check", "--config", config.toString(), bad)).as(bad).isEqualTo(2);
            assertThat(output()).as(bad).contains("--probe-timeout needs a positive duration", "usage:");
        }
        output.reset();
        assertThat(run("check", "--config", config.toString(), "--probe-timeout")).isEqualTo(2);
        assertThat(output()).contains("was ''");
    }

    @Test
    void aProbeTimeoutIsReadInSpringBootsNotationWithBareNumbersInSeconds() {
        assertThat(ConnectorCheckCommand.probeTimeout("45s")).isEqualTo(Duration.ofSeconds(45));
        assertThat(ConnectorCheckCommand.probeTimeout("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(ConnectorCheckCommand.probeTimeout("PT2M")).isEqualTo(Duration.ofMinutes(2));
        assertThat(ConnectorCheckCommand.probeTimeout("90")).isEqualTo(Duration.ofSeconds(90));
        assertThat(ConnectorCheckCommand.DEFAULT_PROBE_TIMEOUT).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void aMissingConfigFileIsNamed(@TempDir Path dir) {
        assertThat(run("check", "--config", dir.resolve("nope.yml").toString())).isEqualTo(2);
        assertThat(output()).contains("no such file: " + dir.resolve("nope.yml"));
    }

    @Test
    void aMisspelledSettingFailsWithoutConnectingAnywhere(@TempDir Path dir) throws IOException {
        Path config = Files.writeString(dir.resolve("c.yml"), String.join("\n", "cdc:", "  connector:",
                "    database: { host: 127.0.0.1, user: u, password: p }", "    tables: [shop.coupon]",
                "    kafka: { bootstrap-servers: '127.0.0.1:1' }", "    topic-prefx: shop", ""));
        assertThat(run("check", "--config=" + config)).isEqualTo(1);
        assertThat(output()).contains("[FAIL] settings", "topic-prefx", "1 problem(s) found");
    }

    @Test
    void aProbeSkippedAfterOnlyTheTablesCheckFailedNamesThatCheckAlone() {
        CheckReport report = new CheckReport(new PrintStream(output, true, StandardCharsets.UTF_8));
        report.ok("database", "10.11 at 127.0.0.1:3306");
        report.fail("tables", "shop.coupon does not exist", "create it");
        report.ok("kafka", "reachable");

        String skipped = ConnectorCheckCommand.probeSkipped(report.failedChecks());

        assertThat(skipped).contains("the tables check above failed").doesNotContain("database").doesNotContain("Kafka");
    }

    @Test
    void aProbeSkippedAfterSeveralFailuresNamesEachFailedCheckOnce() {
        CheckReport report = new CheckReport(new PrintStream(output, true, StandardCharsets.UTF_8));
        report.fail("grants", "missing RELOAD", null);
        report.fail("topic", "shop.shop.coupon: no Write", null);
        report.fail("topic", "shop.cdc_meta.heartbeat: no Write", null);

        assertThat(report.failedChecks()).containsExactly("grants", "topic");
        assertThat(ConnectorCheckCommand.probeSkipped(report.failedChecks()))
                .contains("the grants and topic checks above failed");
        assertThat(ConnectorCheckCommand.probeSkipped(List.of("database", "grants", "kafka")))
                .contains("the database, grants and kafka checks above failed");
    }
}
