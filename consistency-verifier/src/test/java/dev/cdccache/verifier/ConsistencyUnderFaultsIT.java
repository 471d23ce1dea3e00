package dev.cdccache.verifier;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.junit.LocalStackExtension;
import dev.cdccache.verifier.fault.FaultKind;
import dev.cdccache.verifier.fault.FaultRecord;
import dev.cdccache.verifier.instance.ClientInstance;
import dev.cdccache.verifier.report.Report;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The short form of the consistency verifier (docs/consistency.md): about two minutes of writes, reads on three client
 * instances and faults (connector kill -9, Kafka restart, client restart, consumer pause, MariaDB restart)
 * against the real MariaDB, Kafka and connector process. The report is written to
 * {@code target/consistency-report-short.md}.
 */
@ExtendWith(LocalStackExtension.class)
class ConsistencyUnderFaultsIT {

    private static final int CONSISTENT = ClientInstance.SAMPLE_OUTCOMES.indexOf("consistent");

    @Test
    void cachesStayWithinTheStalenessBoundLoseNothingAndConvergeUnderFaults(LocalStack stack) throws Exception {
        VerifierSettings settings = VerifierSettings.shortForm()
                .report(Path.of(System.getProperty("verifier.report", "target/consistency-report-short.md")));

        Report report = new VerificationRun(settings, stack).run();
        report.write(settings.report());
        System.out.println(report.markdown());

        assertThat(report.faults()).extracting(FaultRecord::kind)
                .contains(FaultKind.CONNECTOR_KILL, FaultKind.KAFKA_RESTART, FaultKind.CLIENT_RESTART,
                        FaultKind.MARIADB_RESTART);
        assertThat(report.servedValues()).as("values served and classified").isGreaterThan(10_000);
        assertThat(report.samples("consistent")).as("consistent samples of the clients' samplers").isGreaterThan(100);
        assertThat(report.samplerCounts()).hasSize(settings.instances).allSatisfy((instance, counts) ->
                assertThat(counts.values().stream().mapToLong(c -> c[CONSISTENT]).sum())
                        .as("consistent samples of %s", instance).isPositive());
        assertThat(report.samples("stale")).as("stale samples of the clients' samplers").isZero();
        assertThat(report.problems()).as("problems found (report: %s)", settings.report().toAbsolutePath())
                .isEmpty();
        assertThat(report.passed()).isTrue();
    }
}
