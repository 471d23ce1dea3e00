package dev.cdccache.client;

/** What a change of a source table evicts from a cache ({@code evict} of a cache or of one of its sources). */
public enum Evict {
    /** The default: the entries whose keys are made of the row's key columns, before and after the change. */
    KEYS,
    /** Every entry of the cache, on any change of the table (caches of lists or aggregates). */
    ALL
}
