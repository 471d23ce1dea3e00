package dev.cdccache.connector.continuity;

import java.time.Instant;
import java.util.Objects;

/**
 * What the connector could prove about its position at start: the epoch it publishes in its heartbeat row, and
 * why that epoch was kept or replaced. Immutable.
 *
 * @param epoch the continuity epoch (docs/contract.md, "Epochs"); clients drop what they cannot prove when it changes
 * @param verdict why the epoch is what it is
 * @param message what happened, for logs and health
 * @param action what the operator should do, empty when nothing
 * @param decidedAt when the verdict was reached
 */
public record Continuity(String epoch, Verdict verdict, String message, String action, Instant decidedAt) {

    public Continuity {
        Objects.requireNonNull(epoch, "epoch");
        Objects.requireNonNull(verdict, "verdict");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(decidedAt, "decidedAt");
    }

    /** Whether the stream may have a gap behind it (the epoch was replaced for a reason other than a first start). */
    public boolean gap() {
        return verdict.gap();
    }

    /** The possible outcomes of the start-up check. */
    public enum Verdict {
        /** Stored offsets found, their binlog position still on the server: the epoch is kept. */
        RESUMED(false),
        /** No offsets and no trace of an earlier run of this connector: a new epoch, nothing was missed. */
        FIRST_START(false),
        /** Stored offsets found but the heartbeat row with the epoch is gone: a new epoch to be safe. */
        EPOCH_UNKNOWN(false),
        /** No stored offsets, but this connector's heartbeat row shows it ran before: its offsets were lost. */
        OFFSETS_LOST(true),
        /** No stored offsets under this name, but another connector's row covered the same tables: a rename. */
        RENAMED(true),
        /** The stored binlog position was purged from the server: the changes in between cannot be read. */
        POSITION_PURGED(true),
        /** The stored position was read from another database server (a failover): it means nothing here. */
        SERVER_CHANGED(true),
        /** The server's binlog no longer holds the history the stored position was taken from (a reset binlog). */
        BINLOG_RESET(true),
        /** The stored offsets were written while the connector captured other tables (or by another process). */
        CONFIGURATION_CHANGED(true),
        /**
         * While streaming, a row change reached the binlog as an SQL statement (a writer not in {@code binlog_format=ROW}):
         * which rows it changed cannot be read, so a new epoch replaced the running one.
         */
        STATEMENT_IN_BINLOG(true),
        /**
         * While streaming, the binlog held an event that may have changed rows but that Debezium skips (a compressed
         * MariaDB event, while {@code log_bin_compress=ON}): which rows it changed cannot be read, so a new epoch
         * replaced the running one.
         */
        UNREADABLE_EVENT_IN_BINLOG(true),
        /**
         * While streaming, a prepared XA transaction was committed: its rows were published at {@code XA PREPARE},
         * before readers could see them, so a client may have cached the old rows since; a new epoch replaced the
         * running one.
         */
        XA_COMMIT_AFTER_PREPARE(true),
        /**
         * While streaming, a schema change named a captured table ({@code ALTER}, {@code RENAME}, {@code DROP},
         * {@code CREATE OR REPLACE TABLE}, {@code DROP DATABASE}): it may have replaced or rewritten the table's rows
         * without row events, so a new epoch replaced the running one.
         */
        SCHEMA_CHANGE_OF_CAPTURED_TABLE(true),
        /**
         * While streaming, the binlog held an incident event: the server could not log some changes ({@code
         * LOST_EVENTS}), so a new epoch replaced the running one.
         */
        SERVER_INCIDENT(true),
        /**
         * While streaming, a binlog or replication filter was found to leave a captured table's changes out of the
         * binlog the connector reads: heartbeat rows are held back while it is in place (on a replica that skipped
         * changes, until a restart, which is refused until the offsets are deleted), and a new epoch replaced the
         * running one (not a renewal of it, and recorded with the offsets: no later start resumes an epoch of before).
         */
        FILTERED_FROM_BINLOG(true),
        /**
         * While streaming, the filter that held heartbeat rows back is gone: the changes made while it was in place never
         * reached the binlog, so a new epoch replaced the one of the hold and heartbeat rows are written again.
         */
        FILTER_REMOVED(true),
        /**
         * Stored offsets found, but the process that wrote them found such a filter while streaming: the changes it
         * kept out are in no binlog, so no epoch of that process is resumed; a new epoch starts.
         */
        FILTERED_BEFORE_START(true);

        private final boolean gap;

        Verdict(boolean gap) {
            this.gap = gap;
        }

        /** Whether changes may have been missed. */
        public boolean gap() {
            return gap;
        }
    }
}
