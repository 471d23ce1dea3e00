package dev.cdccache.verifier;

import dev.cdccache.infra.LocalStack;
import dev.cdccache.verifier.report.Report;

/**
 * The consistency verifier as a program: starts a private MariaDB and Kafka broker, the connector as a
 * separate process and three client instances, runs writes, reads and faults together for the given time,
 * prints the report and writes it as Markdown.
 *
 * <pre>
 * ./mvnw -B -pl consistency-verifier -am install -DskipTests
 * ./mvnw -B -pl consistency-verifier exec:java -Dexec.args="--duration 10m"
 * </pre>
 *
 * Options: see {@link VerifierSettings#parse(String[])}. Fails (a non-zero exit through Maven) when the
 * run finds a stale value beyond the bound, a cached value that differs after convergence, or a lost change.
 */
public final class ConsistencyVerifier {

    private ConsistencyVerifier() {
    }

    public static void main(String[] args) throws Exception {
        VerifierSettings settings = VerifierSettings.parse(args);
        VerificationRun.requireJar(settings);
        LocalStack stack = LocalStack.shared();
        Report report;
        try {
            report = new VerificationRun(settings, stack).run();
        } finally {
            stack.close();
        }
        report.write(settings.report());
        System.out.println(report.markdown());
        System.out.println("Report written to " + settings.report().toAbsolutePath());
        if (!report.passed()) {
            throw new IllegalStateException("Consistency verification FAILED: " + report.problems());
        }
    }
}
