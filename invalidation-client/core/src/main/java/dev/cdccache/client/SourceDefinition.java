package dev.cdccache.client;

import dev.cdccache.contract.ChangeTopics;
import java.util.List;
import java.util.Objects;

/**
 * One table whose changes evict entries of a cache: either the entries whose keys are made of the row's
 * {@link #keyColumns() key columns} (taken from both the row before and after the change), or, for a cache
 * of lists or aggregates, every entry ({@link #evictAll()}).
 *
 * <p>Immutable. Validated when the {@link InvalidationClientConfig} is built.
 */
public final class SourceDefinition {

    private final String table;
    private final List<String> keyColumns;
    private final boolean evictAll;
    private final String topic;

    private SourceDefinition(String table, List<String> keyColumns, boolean evictAll, String topic) {
        this.table = table;
        this.keyColumns = keyColumns == null ? List.of() : List.copyOf(keyColumns);
        this.evictAll = evictAll;
        this.topic = topic;
    }

    /** Changes of {@code table} ({@code database.table}) evict the entry keyed by the given columns. */
    public static SourceDefinition keys(String table, String... keyColumns) {
        return new SourceDefinition(table, List.of(keyColumns), false, null);
    }

    /** Changes of {@code table} ({@code database.table}) evict the entry keyed by the given columns. */
    public static SourceDefinition keys(String table, List<String> keyColumns) {
        return new SourceDefinition(table, keyColumns, false, null);
    }

    /** Any change of {@code table} ({@code database.table}) evicts every entry of the cache. */
    public static SourceDefinition evictAll(String table) {
        return new SourceDefinition(table, List.of(), true, null);
    }

    /**
     * The same source read from an explicitly named topic instead of {@code <topic-prefix>.<database>.<table>}
     * (for connectors that reroute topics).
     */
    public SourceDefinition withTopic(String topic) {
        return new SourceDefinition(table, keyColumns, evictAll, topic);
    }

    /** {@code database.table}. */
    public String table() {
        return table;
    }

    /** The key columns in key order; empty for an evict-all source. */
    public List<String> keyColumns() {
        return keyColumns;
    }

    public boolean evictAll() {
        return evictAll;
    }

    /** The explicitly configured topic, or {@code null} for the default name. */
    public String topic() {
        return topic;
    }

    /** The topic this source is read from, given the client's topic prefix. */
    public String topic(String topicPrefix) {
        return topic != null ? topic : ChangeTopics.of(topicPrefix, table);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SourceDefinition other && table.equals(other.table) && keyColumns.equals(other.keyColumns)
                && evictAll == other.evictAll && Objects.equals(topic, other.topic);
    }

    @Override
    public int hashCode() {
        return Objects.hash(table, keyColumns, evictAll, topic);
    }

    @Override
    public String toString() {
        return table + (evictAll ? " (evict all)" : " " + keyColumns) + (topic != null ? " from " + topic : "");
    }
}
