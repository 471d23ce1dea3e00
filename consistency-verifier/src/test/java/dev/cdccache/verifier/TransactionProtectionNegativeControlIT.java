package dev.cdccache.verifier;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.junit.LocalStackExtension;
import dev.cdccache.verifier.report.Report;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The verifier's negative control for loads inside transactions: the same workload as the short form, without
 * faults, with a third of the reads inside REPEATABLE READ transactions that the caches are NOT told about (no
 * {@code CacheTransaction}). Old snapshots and rolled-back writes then reach the caches, and the verifier must
 * report FAIL; if it passed, its transactional readers would prove nothing. The report is written to
 * {@code target/consistency-report-negative-control.md}.
 */
@ExtendWith(LocalStackExtension.class)
class TransactionProtectionNegativeControlIT {

    @Test
    void readsInTransactionsTheCachesDoNotKnowAboutMakeTheVerifierFail(LocalStack stack) throws Exception {
        VerifierSettings settings = VerifierSettings.shortForm().withoutTransactionProtection(30)
                .report(Path.of("target/consistency-report-negative-control.md"));
        // 15 s is plenty: unprotected transactions put never-committed values into the caches within seconds
        // (a 30 s run left hundreds of wrong entries), and those stay until the row changes again
        settings.duration = Duration.ofSeconds(15);
        settings.faults = new ArrayList<>();
        settings.bulkEvery = Duration.ofMinutes(10);
        settings.truncateFirstAt = Duration.ofMinutes(10);
        settings.schemaChangeEvery = Duration.ofMinutes(10);
        settings.convergenceTimeout = Duration.ofSeconds(10); // it cannot converge: do not wait long for it
        // the wrong entries are never evicted (nothing tells the caches), so waiting for them to settle shows nothing
        settings.mismatchSettleTimeout = Duration.ofSeconds(2);

        Report report = new VerificationRun(settings, stack).run();
        report.write(settings.report());

        assertThat(report.passed()).as("the verifier must catch caches fed by unprotected transactions").isFalse();
        assertThat(report.problems()).as("what it found").anySatisfy(problem ->
                assertThat(problem).containsAnyOf("stale by more than", "never committed", "differ from the database"));
    }
}
