package dev.cdccache.connector.continuity;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recognises Debezium stopping because the binlog position it should resume from is gone, and turns it into a
 * message that says what happened and what to do. Debezium says so in two ways: its own validation ("... is no
 * longer available on the server ...", file positions) and, on MariaDB, where it connects by GTID and its
 * validation passes, the server's replication error 1236 ("Could not find GTID state requested by slave in any
 * binlog files. Probably ... required binlog files have been purged", or "Could not find first log file name in
 * binary log index file").
 *
 * <p>{@link ContinuityCheck} handles a purged position before the engine starts; Debezium still refuses when the
 * position disappears between that check and the engine's start, or when its own validation (GTID sets) judges
 * differently from the binlog file list.
 */
public final class LostPositionFailure {

    private static final Logger log = LoggerFactory.getLogger(LostPositionFailure.class);

    private LostPositionFailure() {
    }

    /** Whether the failure is Debezium's "position no longer available"; if so, the explanation is in the text. */
    public static boolean matches(String message, Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (isLostPosition(t.getMessage())) {
                return true;
            }
        }
        return isLostPosition(message);
    }

    /** The operator's explanation of a lost position. */
    public static String explanation() {
        return "Debezium stopped: the binlog position this connector stopped at is no longer on the"
                + " database server (purged while the connector was down), so the changes committed in between cannot"
                + " be read. What to do: " + ContinuityCheck.lostPositionRemedy();
    }

    /**
     * Logs the explanation and records it in the health state when the failure is a lost position.
     *
     * @return whether it was one (then it has been logged)
     */
    static boolean explain(ContinuityState state, String message, Throwable error) {
        if (!matches(message, error)) {
            return false;
        }
        state.engineFailed(explanation());
        log.error("{} (Debezium: {})", explanation(), message, error);
        return true;
    }

    /** For the engine, which holds the check rather than the state. */
    public static boolean explain(ContinuityCheck check, String message, Throwable error) {
        return explain(check.state(), message, error);
    }

    private static boolean isLostPosition(String text) {
        return text != null && (text.contains("no longer available on the server")
                || text.contains("binlog files have been purged")
                || text.contains("Could not find first log file name in binary log index file"));
    }
}
