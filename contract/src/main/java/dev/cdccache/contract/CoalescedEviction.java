package dev.cdccache.contract;

/**
 * A table-wide eviction that stands for the remaining row events of one large transaction (docs/contract.md,
 * "Large transactions"). Once a transaction has changed more rows of a table than the connector's threshold, the
 * connector stops publishing that table's row events of the transaction and publishes instead ONE eviction, a copy
 * on every partition of the table's topic, each in the place of that partition the suppressed rows would have had.
 *
 * <p>Its shape is a {@link ReducedEvent}: the envelope of the first suppressed row ({@code op}, {@code source},
 * {@code ts_ms}) with {@code before} and {@code after} {@code null}, {@value ReducedEvent#TRUNCATED_COLUMNS}
 * {@code ["*"]} (so a client that does not know this field still evicts every cache of the table), plus the
 * top-level object {@value #FIELD}:
 *
 * <pre>{@code "coalesced": {"transaction": "0-1-77", "eviction": "6f1c...", "rows_published": 10000, "partitions": 3}}</pre>
 *
 * A client evicts every cache bound to the table once per {@value #EVICTION} (the copies on the other partitions
 * only move those partitions' positions on), and counts it as a table-wide eviction, not as an error.
 */
public final class CoalescedEviction {

    /** Top-level field: the object that marks a coalesced eviction. */
    public static final String FIELD = "coalesced";
    /** The transaction: its GTID ({@code source.gtid}) where the server has one, else {@code file:pos} of its start. */
    public static final String TRANSACTION = "transaction";
    /**
     * Unique per publication: the copies of one eviction on the partitions of a topic share it; the same transaction
     * evicted again after a connector restart gets a new one (and evicts again).
     */
    public static final String EVICTION = "eviction";
    /** How many row events of the table the transaction published before the eviction (informative). */
    public static final String ROWS_PUBLISHED = "rows_published";
    /** How many copies were published: the topic's partition count (informative). */
    public static final String PARTITIONS = "partitions";

    private CoalescedEviction() {
    }
}
