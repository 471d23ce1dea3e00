package dev.cdccache.client;

import java.util.List;

/**
 * The settings of one table feeding a cache ({@code table}, {@code key-columns}, {@code evict}, {@code topic}): what
 * {@link SourceDefinition.Builder} takes, and what {@link CacheDefinition.Builder} takes for a cache fed by one
 * table (its short form). One interface, so that a reader of settings applies a source's settings the same way in
 * either place.
 *
 * @param <B> the builder type, returned for chaining
 */
public interface SourceSettings<B extends SourceSettings<B>> {

    /** The table, {@code database.table}. */
    B table(String table);

    /** The column(s) the cache key is made of, in key order; empty for {@link Evict#ALL}. */
    B keyColumns(List<String> columns);

    /** What a change of the table evicts; {@link Evict#KEYS} unless set. */
    B evict(Evict evict);

    /** The topic to read instead of {@code <topic-prefix>.<database>.<table>} (rerouted topics); {@code null} for that. */
    B topic(String topic);
}
