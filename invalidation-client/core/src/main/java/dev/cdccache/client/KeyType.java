package dev.cdccache.client;

/**
 * The Java type of a cache's keys, to which the key column values of change events are converted, so that
 * the keys events evict are {@code equals} to the keys the application caches under.
 *
 * <p>Debezium's JSON (schemas disabled) carries integer columns as JSON numbers, text, DECIMAL (with
 * {@code decimal.handling.mode=string}) and most other types as JSON strings.
 */
public enum KeyType {
    /**
     * The default. One key column: a JSON integer becomes a {@link Long}, a JSON string a {@link String}, a
     * boolean a {@link Boolean}; so a cache over {@code BIGINT}/{@code INT} ids is keyed by {@code Long} and
     * a cache over a {@code VARCHAR} column by {@code String}. Several key columns: as {@link #COMPOSITE},
     * each component converted as for one column.
     */
    AUTO,
    /** A {@link Long}: from a JSON integer, or from a string holding a decimal integer. */
    LONG,
    /** An {@link Integer}: from a JSON integer or a string holding one, within the int range. */
    INTEGER,
    /** A {@link String}: a JSON string as is; a number or boolean as its JSON text. */
    STRING,
    /**
     * One key object made of every key column in the configured order, each converted as for {@link #AUTO};
     * by default a {@link dev.cdccache.client.keymapping.CompositeKey} (the Spring starter uses Spring's
     * {@code SimpleKey}, which is what {@code @Cacheable} builds for a method with several parameters).
     */
    COMPOSITE
}
