package dev.cdccache.client.parsing;

import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * One parsed Debezium change event.
 *
 * @param topic the Kafka topic it came from
 * @param partition its partition
 * @param offset its offset
 * @param operation what happened to the row
 * @param before the row before the change (an object node), or {@code null}; the consumer parses only the
 *        columns its caches derive keys from unless an {@code InvalidationListener} is registered, in which case
 *        it holds every column
 * @param after the row after the change (an object node), or {@code null}; columns as for {@code before}
 * @param database {@code source.db}, or {@code null} if absent
 * @param table {@code source.table}, or {@code null} if absent
 * @param sourceTimestampMillis {@code source.ts_ms}: the commit time in the binlog, which MariaDB records
 *        with one-second resolution; {@code -1} if absent
 * @param eventTimestampMillis the envelope's {@code ts_ms}: when the connector processed the event; {@code -1}
 * @param truncatedColumns the envelope's top-level {@code truncated_columns}: columns the connector removed
 *        from {@code before}/{@code after} because the event was too large for Kafka (docs/contract.md,
 *        "Oversized events"); empty for a complete event
 * @param gtid {@code source.gtid}: the change's commit position ({@code 0-1-451} on MariaDB, {@code uuid:n} on
 *        MySQL), or {@code null} if absent
 * @param coalesced the envelope's top-level {@code coalesced} marker: a table-wide eviction the connector published
 *        instead of the remaining row events of a large transaction (docs/contract.md, "Large transactions");
 *        {@code null} for any other event
 */
public record ChangeEvent(String topic, int partition, long offset, Operation operation, JsonNode before,
        JsonNode after, String database, String table, long sourceTimestampMillis, long eventTimestampMillis,
        Set<String> truncatedColumns, String gtid, Coalesced coalesced) {

    /**
     * What a coalesced eviction says (docs/contract.md, "Large transactions").
     *
     * @param transaction the transaction it stands for (its GTID, or {@code file:pos}); empty if not given
     * @param eviction the publication it belongs to, shared by its copies on the topic's partitions; empty if not
     *        given (then every copy evicts)
     * @param rowsPublished how many row events of the table the transaction published before the eviction, as the
     *        connector counted them (informative: a client does not need it); {@code -1} if not given
     */
    public record Coalesced(String transaction, String eviction, long rowsPublished) {
        public Coalesced {
            transaction = transaction == null ? "" : transaction;
            eviction = eviction == null ? "" : eviction;
        }

        /** A marker without {@code rows_published}. */
        public Coalesced(String transaction, String eviction) {
            this(transaction, eviction, -1);
        }
    }

    public ChangeEvent {
        truncatedColumns = truncatedColumns == null ? Set.of() : Set.copyOf(truncatedColumns);
    }

    /** An event that is not a coalesced eviction. */
    public ChangeEvent(String topic, int partition, long offset, Operation operation, JsonNode before,
            JsonNode after, String database, String table, long sourceTimestampMillis, long eventTimestampMillis,
            Set<String> truncatedColumns, String gtid) {
        this(topic, partition, offset, operation, before, after, database, table, sourceTimestampMillis,
                eventTimestampMillis, truncatedColumns, gtid, null);
    }

    /** An event without a commit position. */
    public ChangeEvent(String topic, int partition, long offset, Operation operation, JsonNode before,
            JsonNode after, String database, String table, long sourceTimestampMillis, long eventTimestampMillis,
            Set<String> truncatedColumns) {
        this(topic, partition, offset, operation, before, after, database, table, sourceTimestampMillis,
                eventTimestampMillis, truncatedColumns, null);
    }

    /** A complete event (no columns removed). */
    public ChangeEvent(String topic, int partition, long offset, Operation operation, JsonNode before,
            JsonNode after, String database, String table, long sourceTimestampMillis, long eventTimestampMillis) {
        this(topic, partition, offset, operation, before, after, database, table, sourceTimestampMillis,
                eventTimestampMillis, Set.of());
    }

    /** Whether the connector removed columns from the row images (an oversized event). */
    public boolean truncated() {
        return !truncatedColumns.isEmpty();
    }
}
