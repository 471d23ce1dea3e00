package dev.cdccache.connector.continuity;

import java.util.Objects;

/**
 * A change the binlog holds in a form the connector cannot publish as the row events clients evict by, noticed by
 * {@link StatementEventDetector} on the thread that reads the binlog. Each kind replaces the epoch
 * ({@link ContinuityState#renewFor}).
 *
 * @param kind what the binlog holds
 * @param detail the statement's SQL ({@link Kind#STATEMENT}, {@link Kind#XA_COMMIT}, {@link Kind#SCHEMA_CHANGE}) or what the event may have
 *     changed ({@link Kind#UNREADABLE_EVENT}, {@link Kind#UNREADABLE_QUERY_EVENT}); may hold row values, so only ever logged abbreviated
 * @param database the statement's default database (its session's {@code USE}), empty when unknown or none
 * @param at where the event starts in the binlog, for an {@link Kind#INCIDENT} and an {@link Kind#UNREADABLE_QUERY_EVENT};
 *     {@code null} when unknown or not needed
 */
public record UnreadableChange(Kind kind, String detail, String database, BinlogPosition at) {

    public UnreadableChange {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(detail, "detail");
        Objects.requireNonNull(database, "database");
    }

    /** A change with a default database and no place in the binlog. */
    public UnreadableChange(Kind kind, String detail, String database) {
        this(kind, detail, database, null);
    }

    /** A change without a default database: {@code database} is empty. */
    public UnreadableChange(Kind kind, String detail) {
        this(kind, detail, "", null);
    }

    /** The forms. */
    public enum Kind {
        /** A row change logged as an SQL statement ({@code LOAD DATA} included): which rows it changed is unknown. */
        STATEMENT,
        /** An event among a table's row events that the binlog reader cannot decode (a compressed row event). */
        UNREADABLE_EVENT,
        /**
         * An event outside a table's row events that the binlog reader cannot decode (a compressed query event). It
         * may be a schema change of a captured table: Debezium's view of the table's columns would then be out of
         * date, and a new epoch would not set that right.
         */
        UNREADABLE_QUERY_EVENT,
        /**
         * The commit of a prepared XA transaction. Its rows reached the binlog, and the clients, at {@code XA PREPARE},
         * while readers still saw the old rows, which a client may have loaded and cached since; the commit itself
         * carries no rows.
         */
        XA_COMMIT,
        /**
         * A schema change that names a captured table ({@code ALTER}, {@code RENAME}, {@code DROP},
         * {@code CREATE OR REPLACE TABLE}, {@code DROP DATABASE}): it may replace or rewrite the table's rows (a
         * table swapped in by {@code RENAME TABLE}, a dropped table, a column converted) without row events.
         */
        SCHEMA_CHANGE,
        /**
         * An incident event: the server could not write some changes to the binlog ({@code LOST_EVENTS}), and
         * Debezium reads on past it.
         */
        INCIDENT
    }
}
