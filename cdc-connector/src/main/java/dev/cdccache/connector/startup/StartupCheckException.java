package dev.cdccache.connector.startup;

/**
 * A start-up check found a problem the operator must fix; carries what is wrong and how to fix it.
 * The application exits non-zero with both (see {@link StartupCheckFailureAnalyzer}).
 */
public class StartupCheckException extends RuntimeException {

    private final String fix;

    public StartupCheckException(String problem, String fix) {
        this(problem, fix, null);
    }

    public StartupCheckException(String problem, String fix, Throwable cause) {
        super(problem, cause);
        this.fix = fix;
    }

    /** What the operator should do. */
    public String fix() {
        return fix;
    }
}
