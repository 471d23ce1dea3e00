package dev.cdccache.client;

import dev.cdccache.contract.ChangeTopics;
import java.util.List;
import java.util.Objects;

/**
 * One table whose changes evict entries of a cache: either the entries whose keys are made of the row's
 * {@link #keyColumns() key columns} (taken from both the row before and after the change), or, for a cache
 * of lists or aggregates, every entry ({@link #evictAll()}).
 *
 * <p>Immutable. Validated when the {@link InvalidationClientConfig} is built (so that the error names the setting
 * of the cache the source belongs to).
 */
public final class SourceDefinition {

    private final String table;
    private final List<String> keyColumns;
    private final Evict evict;
    private final String topic;

    private SourceDefinition(String table, List<String> keyColumns, Evict evict, String topic) {
        this.table = table;
        this.keyColumns = keyColumns == null ? List.of() : List.copyOf(keyColumns);
        this.evict = evict == null ? Evict.KEYS : evict;
        this.topic = topic;
    }

    /** Changes of {@code table} ({@code database.table}) evict the entry keyed by the given columns. */
    public static SourceDefinition keys(String table, String... keyColumns) {
        return new SourceDefinition(table, List.of(keyColumns), Evict.KEYS, null);
    }

    /** Changes of {@code table} ({@code database.table}) evict the entry keyed by the given columns. */
    public static SourceDefinition keys(String table, List<String> keyColumns) {
        return new SourceDefinition(table, keyColumns, Evict.KEYS, null);
    }

    /** Any change of {@code table} ({@code database.table}) evicts every entry of the cache. */
    public static SourceDefinition evictAll(String table) {
        return new SourceDefinition(table, List.of(), Evict.ALL, null);
    }

    /** A builder, for settings given one by one (as a reader of flat settings does). */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The same source read from an explicitly named topic instead of {@code <topic-prefix>.<database>.<table>}
     * (for connectors that reroute topics).
     */
    public SourceDefinition withTopic(String topic) {
        return new SourceDefinition(table, keyColumns, evict, topic);
    }

    /** {@code database.table}. */
    public String table() {
        return table;
    }

    /** The key columns in key order; empty for an evict-all source. */
    public List<String> keyColumns() {
        return keyColumns;
    }

    /** What a change of the table evicts. */
    public Evict evict() {
        return evict;
    }

    /** Whether any change of the table evicts the whole cache. */
    public boolean evictAll() {
        return evict == Evict.ALL;
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
        return o instanceof SourceDefinition other && Objects.equals(table, other.table)
                && keyColumns.equals(other.keyColumns) && evict == other.evict && Objects.equals(topic, other.topic);
    }

    @Override
    public int hashCode() {
        return Objects.hash(table, keyColumns, evict, topic);
    }

    @Override
    public String toString() {
        return table + (evictAll() ? " (evict all)" : " " + keyColumns) + (topic != null ? " from " + topic : "");
    }

    /** Builder of a {@link SourceDefinition}; not thread-safe. */
    public static final class Builder implements SourceSettings<Builder> {
        private String table;
        private List<String> keyColumns = List.of();
        private Evict evict = Evict.KEYS;
        private String topic;

        private Builder() {
        }

        @Override
        public Builder table(String table) {
            this.table = table;
            return this;
        }

        @Override
        public Builder keyColumns(List<String> columns) {
            this.keyColumns = columns == null ? List.of() : List.copyOf(columns);
            return this;
        }

        @Override
        public Builder evict(Evict evict) {
            this.evict = evict;
            return this;
        }

        @Override
        public Builder topic(String topic) {
            this.topic = topic;
            return this;
        }

        /** The source as given; checked when the configuration of its cache is built. */
        public SourceDefinition build() {
            return new SourceDefinition(table, keyColumns, evict, topic);
        }
    }
}
