package dev.cdccache.connector.check;

import dev.cdccache.connector.startup.StartupCheckException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@code cdc-connector check} found, printed as it goes: one line per check ({@code ok}, {@code warn},
 * {@code FAIL} or {@code skip}), a failure followed by what to fix.
 */
final class CheckReport {

    private final PrintStream out;
    private int problems;
    private int warnings;
    private final List<String> failedChecks = new ArrayList<>();

    CheckReport(PrintStream out) {
        this.out = out;
    }

    void ok(String check, String detail) {
        line("ok  ", check, detail);
    }

    void warn(String check, String detail) {
        warnings++;
        line("warn", check, detail);
    }

    void skip(String check, String detail) {
        line("skip", check, detail);
    }

    void fail(String check, String problem, String fix) {
        problems++;
        if (!failedChecks.contains(check)) {
            failedChecks.add(check);
        }
        line("FAIL", check, problem);
        if (fix != null && !fix.isBlank()) {
            out.println("         fix: " + fix);
        }
    }

    void fail(String check, StartupCheckException failure) {
        fail(check, failure.getMessage(), failure.fix());
    }

    int problems() {
        return problems;
    }

    /** The names of the checks that failed so far, in the order they first failed. */
    List<String> failedChecks() {
        return List.copyOf(failedChecks);
    }

    /** Prints the summary; returns the exit code: 0 without problems (warnings allowed), 1 otherwise. */
    int finish() {
        out.println();
        if (problems == 0) {
            out.println("All checks passed" + (warnings > 0 ? " (" + warnings + " warning(s) above)" : "") + ".");
            return 0;
        }
        out.println(problems + " problem(s) found: fix them and run the check again.");
        return 1;
    }

    private void line(String status, String check, String detail) {
        out.printf("[%s] %-16s %s%n", status, check, detail);
        out.flush();
    }
}
