package dev.cdccache.connector.continuity;

import java.time.Clock;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connector's current {@link Continuity}, set by {@link ContinuityCheck} before the engine starts and read by
 * the heartbeat writer and health. Thread-safe.
 */
public final class ContinuityState {

    private static final Logger LOG = LoggerFactory.getLogger(ContinuityState.class);

    private final AtomicReference<Continuity> current = new AtomicReference<>();
    private final AtomicReference<String> engineFailure = new AtomicReference<>();
    /** A statement the binlog held instead of rows, not yet answered by a new epoch; null when none is pending. */
    private final AtomicReference<String> statementSeen = new AtomicReference<>();

    /** Records the verdict of a start-up check. */
    public void set(Continuity continuity) {
        current.set(continuity);
        engineFailure.set(null);
    }

    /** The verdict of the last start-up check, empty before the first. */
    public Optional<Continuity> current() {
        return Optional.ofNullable(current.get());
    }

    /** The epoch heartbeats carry; null until the start-up check decided it (no heartbeat is written before). */
    public String epochOrNull() {
        Continuity c = current.get();
        return c == null ? null : c.epoch();
    }

    /**
     * Records that the binlog held a row change as a statement: the next heartbeat carries a new epoch. The heartbeat
     * is written after this call, so it lands in the binlog after the statement and every client drops what it
     * cached of the captured tables once it has read up to the statement.
     */
    public void statementInBinlog(String sql) {
        statementSeen.set(sql);
    }

    /**
     * The epoch the next heartbeat carries: a new one if a statement was seen since the last heartbeat, else the
     * current one; null until the start-up check decided it.
     */
    public String epochForHeartbeat(Clock clock) {
        String sql = statementSeen.getAndSet(null);
        Continuity c = current.get();
        if (sql == null || c == null) {
            return c == null ? null : c.epoch();
        }
        String epoch = UUID.randomUUID().toString();
        Continuity renewed = new Continuity(epoch, Continuity.Verdict.STATEMENT_IN_BINLOG,
                "A row change reached the binlog as an SQL statement, not as rows (" + abbreviate(sql) + "): the"
                        + " connector cannot read which rows it changed. A new epoch " + epoch + " replaced " + c.epoch()
                        + ": every client drops its cached entries of the captured tables.",
                "Set binlog_format=ROW globally (SET GLOBAL binlog_format='ROW' and in the server's configuration) and"
                        + " find the writer that runs with STATEMENT or MIXED: sessions opened before a global change keep"
                        + " the old format, and a user with BINLOG ADMIN or SUPER can change it per session. Until then"
                        + " every such statement drops the clients' caches of the captured tables.",
                clock.instant());
        current.set(renewed);
        LOG.error("Continuity gap: {} What to do: {}", renewed.message(), renewed.action());
        return epoch;
    }

    /** The statement's kind and table only: its values may hold personal data. */
    static String abbreviate(String sql) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                "^\\s*(INSERT\\s+(?:IGNORE\\s+)?INTO|REPLACE\\s+INTO|UPDATE|DELETE\\s+FROM)\\s+([`\\w.]+)",
                java.util.regex.Pattern.CASE_INSENSITIVE).matcher(sql);
        return m.find() ? m.group(1).replaceAll("\\s+", " ").toUpperCase(java.util.Locale.ROOT) + " " + m.group(2) + " ..."
                : "a statement";
    }

    /** Records that the engine refused to go on: its position is gone, or its lease was lost (message and remedy). */
    public void engineFailed(String explanation) {
        engineFailure.set(explanation);
    }

    /** Why the engine stopped on a lost position or lease, if it did. */
    public Optional<String> engineFailure() {
        return Optional.ofNullable(engineFailure.get());
    }
}
