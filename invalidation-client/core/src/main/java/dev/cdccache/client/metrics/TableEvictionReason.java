package dev.cdccache.client.metrics;

import dev.cdccache.client.Internal;

/**
 * Why every cache bound to a table was evicted at once by a change event; the {@code reason} tag of
 * {@code cdc.client.table.evictions}. Not an error: the stream said so.
 */
@Internal
public enum TableEvictionReason {
    /**
     * A large transaction: the connector replaced its remaining row events of the table by one table-wide eviction
     * (docs/contract.md, "Large transactions"). Counted once per eviction, not once per partition copy.
     */
    COALESCED_TRANSACTION("coalesced_transaction"),
    /** {@code TRUNCATE TABLE}. */
    TRUNCATE("truncate");

    private final String tag;

    TableEvictionReason(String tag) {
        this.tag = tag;
    }

    public String tag() {
        return tag;
    }
}
