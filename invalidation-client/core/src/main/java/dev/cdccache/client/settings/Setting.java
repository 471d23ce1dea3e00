package dev.cdccache.client.settings;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.SourceDefinition;
import dev.cdccache.client.SourceSettings;
import dev.cdccache.contract.KafkaSecurity;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * One setting of the invalidation client, as the catalogue {@link ClientSettings} lists it: its key under
 * {@code cdc.invalidation.}, the type of its value, its default and where its value lands in the
 * {@link InvalidationClientConfig}. Immutable.
 *
 * @param <T> the Java type of the value
 */
public final class Setting<T> {

    /** Where a setting's key lives. */
    public enum Scope {
        /** {@code cdc.invalidation.<key>}: the client as a whole. */
        CLIENT,
        /** {@code cdc.invalidation.caches.<name>.<key>}: one cache. */
        CACHE,
        /**
         * One table feeding a cache: {@code cdc.invalidation.caches.<name>.<key>} for a cache fed by one table (the
         * short form), {@code cdc.invalidation.caches.<name>.sources[<i>].<key>} for each of several.
         */
        SOURCE,
        /**
         * {@code cdc.invalidation.<key>}, read by a front end before it creates a client (the Spring Boot starter's
         * {@code enabled}); the client itself has no such setting, and other front ends accept and ignore it.
         */
        FRONT_END
    }

    /** What a client-wide setting is applied to: the configuration, and the Kafka security settings being read. */
    record ClientTarget(InvalidationClientConfig.Builder config, KafkaSecurity.Builder security) {
    }

    private final String key;
    private final Scope scope;
    private final SettingType<T> type;
    private final boolean family;
    private final String example;
    /** Whether the default is stated in words ({@link #derivedDefault}, {@code null} for none) rather than read. */
    private final boolean defaultStated;
    private final String derivedDefault;
    /** Takes the target and the value (for a family, a {@link Member}). */
    private final BiConsumer<Object, Object> apply;
    private final Function<Object, Object> read;

    @SuppressWarnings("unchecked")
    private Setting(String key, Scope scope, SettingType<T> type, boolean family, String example,
            boolean defaultStated, String derivedDefault, BiConsumer<?, ?> apply, Function<?, ?> read) {
        this.key = key;
        this.scope = scope;
        this.type = type;
        this.family = family;
        this.example = example;
        this.defaultStated = defaultStated;
        this.derivedDefault = derivedDefault;
        this.apply = (BiConsumer<Object, Object>) apply;
        this.read = (Function<Object, Object>) read;
    }

    static <T> Setting<T> client(String key, SettingType<T> type, String example,
            BiConsumer<ClientTarget, T> apply, Function<InvalidationClientConfig, ?> read) {
        return new Setting<>(key, Scope.CLIENT, type, false, example, false, null, apply, read);
    }

    static <T> Setting<T> family(String key, SettingType<T> type, String example,
            BiConsumer<ClientTarget, Member<T>> apply, Function<InvalidationClientConfig, ?> read) {
        return new Setting<>(key, Scope.CLIENT, type, true, example, true, null, apply, read);
    }

    static <T> Setting<T> cache(String key, SettingType<T> type, String example,
            BiConsumer<CacheDefinition.Builder, T> apply, Function<CacheDefinition, ?> read) {
        return new Setting<>(key, Scope.CACHE, type, false, example, false, null, apply, read);
    }

    static <T> Setting<T> source(String key, SettingType<T> type, String example,
            BiConsumer<SourceSettings<?>, T> apply, Function<SourceDefinition, ?> read) {
        return new Setting<>(key, Scope.SOURCE, type, false, example, false, null, apply, read);
    }

    static <T> Setting<T> frontEnd(String key, SettingType<T> type, String example, String defaultText) {
        return new Setting<>(key, Scope.FRONT_END, type, false, example, true, defaultText, (target, value) -> { },
                config -> null);
    }

    /**
     * The same setting with a default the documentation states in words, because it depends on other settings or
     * on the environment; {@code null} for a setting without a default.
     */
    Setting<T> derivedDefault(String text) {
        return new Setting<>(key, scope, type, family, example, true, text, apply, read);
    }

    /** One entry of a family of settings ({@code kafka.properties.<name>}). */
    record Member<T>(String name, T value) {
    }

    /**
     * The key, relative to {@code cdc.invalidation.} for {@link Scope#CLIENT} and {@link Scope#FRONT_END}, to the
     * cache for {@link Scope#CACHE}, to the source (or the cache, in the short form) for {@link Scope#SOURCE}; for a
     * {@linkplain #family() family}, the key its members' names follow.
     */
    public String key() {
        return key;
    }

    public Scope scope() {
        return scope;
    }

    /** Whether this is a family of settings, {@code <key>.<name>}, one per name (free-form Kafka properties). */
    public boolean family() {
        return family;
    }

    /** The Java type of the value. */
    public Class<T> valueType() {
        return type.javaType();
    }

    /**
     * A valid value other than the default, as the documentation would write it (for a family:
     * {@code name=value}). Every example together forms a valid configuration, except that {@code evict: all}
     * excludes key columns on the same source.
     */
    public String example() {
        return example;
    }

    /**
     * The value {@code text} stands for, as every front end reads it.
     *
     * @throws IllegalArgumentException whose message says what the value must look like
     */
    public T parse(Object text) {
        return type.read(text);
    }

    /**
     * The default as the documentation states it: the value an unset setting has in a configuration built with
     * nothing else set, or words when it depends on other settings; {@code null} when there is none (required, or
     * optional without a value).
     */
    public String defaultText() {
        if (defaultStated) {
            return derivedDefault;
        }
        Object value = switch (scope) {
            case CLIENT -> valueIn(ClientSettings.minimalConfig());
            case CACHE -> valueIn(ClientSettings.minimalConfig().caches().get(0));
            case SOURCE -> valueIn(ClientSettings.minimalConfig().caches().get(0).sources().get(0));
            case FRONT_END -> null;
        };
        @SuppressWarnings("unchecked")
        T typed = (T) value;
        return value == null ? null : type.format(typed);
    }

    /** This client-wide setting's value in {@code config}. */
    public Object valueIn(InvalidationClientConfig config) {
        require(Scope.CLIENT);
        return read.apply(config);
    }

    /** This cache setting's value in {@code cache}. */
    public Object valueIn(CacheDefinition cache) {
        require(Scope.CACHE);
        return read.apply(cache);
    }

    /** This source setting's value in {@code source}. */
    public Object valueIn(SourceDefinition source) {
        require(Scope.SOURCE);
        return read.apply(source);
    }

    void applyTo(Object target, Object value) {
        apply.accept(target, type.read(value));
    }

    void applyMember(ClientTarget target, String name, Object value) {
        apply.accept(target, new Member<>(name, type.read(value)));
    }

    private void require(Scope expected) {
        if (scope != expected) {
            throw new IllegalStateException(key + " is a " + scope + " setting, not a " + expected + " one");
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Setting<?> other && key.equals(other.key) && scope == other.scope;
    }

    @Override
    public int hashCode() {
        return Objects.hash(key, scope);
    }

    @Override
    public String toString() {
        return key;
    }
}
