package dev.cdccache.connector.continuity;

/**
 * The engine stopped at a binlog event it cannot pass until an operator acts (the log line and the continuity health
 * say what to do): started again as it is, it stops at the same event. The connector exits with code 4 for it, so that
 * a supervisor can tell it from a failure a restart cures (code 3).
 */
public final class StoppedAtEvent extends IllegalStateException {

    public StoppedAtEvent(String explanation) {
        super(explanation);
    }

    /** Whether {@code failure} or one of its causes is one. */
    public static boolean isCauseOf(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof StoppedAtEvent) {
                return true;
            }
        }
        return false;
    }
}
