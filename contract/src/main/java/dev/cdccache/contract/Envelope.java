package dev.cdccache.contract;

/**
 * The fields of a change event's value (docs/contract.md, "The envelope"): Debezium's envelope as JSON with schemas
 * disabled, {@code {"before":{...},"after":{...},"source":{...},"op":"u","ts_ms":...}}, plus the connector's own
 * top-level {@link ReducedEvent#TRUNCATED_COLUMNS} on an oversized event.
 */
public final class Envelope {

    /** The row before the change: set for updates and deletes, {@code null} for inserts and TRUNCATE. */
    public static final String BEFORE = "before";
    /** The row after the change: set for inserts, updates and snapshot reads, {@code null} for deletes and TRUNCATE. */
    public static final String AFTER = "after";
    /** Where the change comes from: {@code db}, {@code table}, {@code ts_ms} (commit time), binlog position. */
    public static final String SOURCE = "source";
    /** The operation code: {@code c}, {@code u}, {@code d}, {@code r}, {@code t}. */
    public static final String OP = "op";
    /** When the connector processed the event (epoch milliseconds). */
    public static final String TS_MS = "ts_ms";
    /** {@code source.db}: the database of the changed row. */
    public static final String SOURCE_DB = "db";
    /** {@code source.table}: the table of the changed row. */
    public static final String SOURCE_TABLE = "table";
    /**
     * {@code source.gtid}: the commit position of the change's transaction, {@code domain-server-sequence} on
     * MariaDB ({@code 0-1-451}), {@code uuid:n} on MySQL; clients wait for it on read replicas.
     */
    public static final String SOURCE_GTID = "gtid";

    private Envelope() {
    }
}
