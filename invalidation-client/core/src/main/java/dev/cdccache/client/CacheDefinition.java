package dev.cdccache.client;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * One cache: its name, the table(s) whose changes evict its entries, the Java type of its keys and the
 * Caffeine specification of its bounds. Immutable; built with {@link #builder(String)}.
 *
 * <pre>{@code
 * CacheDefinition.builder("coupons").table("coupon_db.coupon").keyColumns("id").spec("maximumSize=100000").build();
 * CacheDefinition.builder("couponsWithAttributes")
 *     .source(SourceDefinition.keys("coupon_db.coupon", "id"))
 *     .source(SourceDefinition.keys("coupon_db.coupon_attribute", "coupon_id"))
 *     .build();
 * CacheDefinition.builder("couponStats").table("coupon_db.coupon").evictAll().build();
 * }</pre>
 */
public final class CacheDefinition {

    /** Default Caffeine specification when none is given. */
    public static final String DEFAULT_SPEC = "maximumSize=10000";

    private final String name;
    private final List<SourceDefinition> sources;
    private final boolean shortForm;
    private final boolean mixedForms;
    private final KeyType keyType;
    private final String spec;
    private final boolean cacheNulls;
    private final double refreshAhead;
    private final boolean sampled;
    private final Function<List<Object>, Object> compositeKeyFactory;
    private final KeyNormalization keyNormalization;

    private CacheDefinition(Builder b) {
        this.name = b.name;
        this.shortForm = b.shortFormUsed && b.sources.isEmpty();
        List<SourceDefinition> all = new ArrayList<>(b.sources);
        if (b.shortFormUsed) {
            all.add(0, b.shortForm.build());
        }
        this.sources = List.copyOf(all);
        this.mixedForms = b.shortFormUsed && !b.sources.isEmpty();
        this.keyType = b.keyType;
        this.spec = b.spec;
        this.cacheNulls = b.cacheNulls;
        this.refreshAhead = b.refreshAhead;
        this.sampled = b.sampled;
        this.compositeKeyFactory = b.compositeKeyFactory;
        this.keyNormalization = b.keyNormalization;
    }

    public static Builder builder(String name) {
        return new Builder(name);
    }

    public String name() {
        return name;
    }

    /** Every table feeding this cache, the short form ({@code table}/{@code key-columns}) first. */
    public List<SourceDefinition> sources() {
        return sources;
    }

    public KeyType keyType() {
        return keyType;
    }

    /** Caffeine specification ({@link com.github.benmanes.caffeine.cache.CaffeineSpec} syntax). */
    public String spec() {
        return spec;
    }

    /** Whether a loader result of {@code null} is cached as "absent" (an insert of the key evicts it). */
    public boolean cacheNulls() {
        return cacheNulls;
    }

    /**
     * Fraction of {@code expireAfterWrite} after which a hit through {@code get(key, loader)} starts one
     * asynchronous reload while still serving the cached value; {@code 0} when off.
     */
    public double refreshAhead() {
        return refreshAhead;
    }

    /**
     * Whether consistency sampling, when on for the client, re-reads hits of this cache ({@code true} by default).
     * Off for a cache whose loads must not run again unasked: side effects, a request scope, values without a
     * meaningful {@code equals}.
     */
    public boolean sampled() {
        return sampled;
    }

    /** Builds the key object of a {@link KeyType#COMPOSITE} (or multi-column {@link KeyType#AUTO}) key. */
    public Function<List<Object>, Object> compositeKeyFactory() {
        return compositeKeyFactory;
    }

    /**
     * How text keys are normalised, on lookups and on keys derived from events alike (e.g. lower-cased for a
     * column with a case-insensitive collation); {@link KeyNormalization#NONE} by default.
     */
    public KeyNormalization keyNormalization() {
        return keyNormalization;
    }

    /** The setting path of source {@code index} for error messages. */
    String sourceSetting(int index) {
        return shortForm ? "caches." + name : "caches." + name + ".sources[" + index + "]";
    }

    boolean mixedForms() {
        return mixedForms;
    }

    @Override
    public String toString() {
        return "cache " + name + " " + sources + " key " + keyType + " spec " + spec;
    }

    /**
     * Builder of a {@link CacheDefinition}; not thread-safe. A cache fed by one table takes that table's settings
     * itself (the short form, {@link SourceSettings}); a cache fed by several lists them with {@link #source}.
     */
    public static final class Builder implements SourceSettings<Builder> {
        private final String name;
        private final List<SourceDefinition> sources = new ArrayList<>();
        private boolean shortFormUsed;
        private final SourceDefinition.Builder shortForm = SourceDefinition.builder();
        private KeyType keyType = KeyType.AUTO;
        private String spec = DEFAULT_SPEC;
        private boolean cacheNulls = true;
        private double refreshAhead;
        private boolean sampled = true;
        private Function<List<Object>, Object> compositeKeyFactory = dev.cdccache.client.keymapping.CompositeKey::of;
        private KeyNormalization keyNormalization = KeyNormalization.NONE;

        private Builder(String name) {
            this.name = name;
        }

        /** Short form for a cache fed by one table: the table ({@code database.table}). */
        @Override
        public Builder table(String table) {
            shortForm.table(table);
            this.shortFormUsed = true;
            return this;
        }

        /** Short form: the key columns of {@link #table(String)}, in key order. */
        public Builder keyColumns(String... columns) {
            return keyColumns(List.of(columns));
        }

        /** Short form: the key columns of {@link #table(String)}, in key order. */
        @Override
        public Builder keyColumns(List<String> columns) {
            shortForm.keyColumns(columns);
            this.shortFormUsed = true;
            return this;
        }

        /** Short form: any change of {@link #table(String)} evicts the whole cache. */
        public Builder evictAll() {
            return evict(Evict.ALL);
        }

        /** Short form: what a change of {@link #table(String)} evicts. */
        @Override
        public Builder evict(Evict evict) {
            shortForm.evict(evict);
            this.shortFormUsed = true;
            return this;
        }

        /** Short form: the topic to read instead of {@code <topic-prefix>.<database>.<table>}. */
        @Override
        public Builder topic(String topic) {
            shortForm.topic(topic);
            this.shortFormUsed = true;
            return this;
        }

        /** Adds a table feeding this cache (for caches whose values are built from several tables). */
        public Builder source(SourceDefinition source) {
            sources.add(source);
            return this;
        }

        public Builder keyType(KeyType keyType) {
            this.keyType = keyType;
            return this;
        }

        /** Caffeine specification, e.g. {@code maximumSize=100000,expireAfterWrite=10m}. */
        public Builder spec(String spec) {
            this.spec = spec;
            return this;
        }

        public Builder cacheNulls(boolean cacheNulls) {
            this.cacheNulls = cacheNulls;
            return this;
        }

        /** Fraction (exclusive 0..1) of {@code expireAfterWrite} after which to refresh ahead; 0 turns it off. */
        public Builder refreshAhead(double fraction) {
            this.refreshAhead = fraction;
            return this;
        }

        /** Whether consistency sampling re-reads hits of this cache (default {@code true}); see {@link #sampled()}. */
        public Builder sampled(boolean sampled) {
            this.sampled = sampled;
            return this;
        }

        /** How a key of several columns is built from the converted column values (in key order). */
        public Builder compositeKeyFactory(Function<List<Object>, Object> factory) {
            this.compositeKeyFactory = factory;
            return this;
        }

        /**
         * Normalises text keys on lookups and on keys derived from events, so that keys equal under the column's
         * collation are equal in the cache (see {@link KeyNormalization}). Single-column text keys only.
         */
        public Builder keyNormalization(KeyNormalization keyNormalization) {
            this.keyNormalization = keyNormalization;
            return this;
        }

        public CacheDefinition build() {
            return new CacheDefinition(this);
        }
    }
}
