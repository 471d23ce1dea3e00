package dev.cdccache.connector.startup;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Prints a failed start-up check as "Description / Action" instead of a stack trace. */
public class StartupCheckFailureAnalyzer extends AbstractFailureAnalyzer<StartupCheckException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, StartupCheckException cause) {
        return new FailureAnalysis("CDC connector cannot start: " + cause.getMessage(), cause.fix(), cause);
    }
}
