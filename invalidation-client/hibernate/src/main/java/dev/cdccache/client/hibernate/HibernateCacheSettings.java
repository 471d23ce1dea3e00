package dev.cdccache.client.hibernate;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidConfigurationException;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.SettingSuggestion;
import dev.cdccache.client.settings.ClientSettings;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The region factory's settings, read from Hibernate's configuration values (in Spring Boot:
 * {@code spring.jpa.properties.*}, or a service's own map of them).
 *
 * <p>The client's settings are every {@code cdc.invalidation.*} setting of the client (docs/client.md,
 * "Settings"), read by the core's {@link ClientSettings}, the same reader with the same defaults and rules as the
 * Spring starter's: a service can hand over all of its {@code cdc.invalidation.*} settings at once. Two kinds of keys
 * are not the client's here: {@code cdc.invalidation.caches.*} (the starter's cache definitions; this module's caches
 * are the cached roles, from Hibernate's mapping) is left alone, and the module's own settings live under
 * {@code cdc.invalidation.hibernate.*}. Every other key under {@code cdc.invalidation.} that is no setting fails
 * start-up naming the setting it most likely meant.
 */
public final class HibernateCacheSettings {

    static final String PREFIX = ClientSettings.PREFIX;
    static final String HIBERNATE = PREFIX + "hibernate.";
    static final String CACHES = PREFIX + "caches.";
    static final String DATABASE = HIBERNATE + "database";
    static final String SPEC = HIBERNATE + "spec";
    static final String REGION_SPEC_PREFIX = HIBERNATE + "regions.";
    static final String QUERY_RESULTS_SPEC = HIBERNATE + "query-results.spec";
    static final String METER_REGISTRY = HIBERNATE + "meter-registry";
    static final String CONFIG_CUSTOMIZER = HIBERNATE + "config-customizer";

    /** This module's own single-valued settings; the regions' specs are a family of their own. */
    static final List<String> SETTINGS = List.of(DATABASE, SPEC, QUERY_RESULTS_SPEC, METER_REGISTRY, CONFIG_CUSTOMIZER);

    private final Map<String, Object> clientSettings = new LinkedHashMap<>();
    /** The client's settings as configured (without caches): what the region factory needs before it has roles. */
    final InvalidationClientConfig client;
    final String database;
    final String spec;
    final Map<String, String> regionSpecs = new LinkedHashMap<>();
    final String queryResultsSpec;
    final MeterRegistry meterRegistry;
    final Consumer<InvalidationClientConfig.Builder> customizer;

    /**
     * Reads and checks the settings.
     *
     * @param values Hibernate's configuration values (other keys are ignored)
     * @throws InvalidConfigurationException naming the full key of the first wrong setting
     */
    @SuppressWarnings("unchecked")
    public HibernateCacheSettings(Map<String, ?> values) {
        Map<String, Object> own = new LinkedHashMap<>();
        values.forEach((key, value) -> {
            if (key.startsWith(HIBERNATE)) {
                own.put(key, value);
            } else if (key.startsWith(PREFIX) && !key.startsWith(CACHES)) {
                clientSettings.put(key, value);
            }
        });
        rejectMisspelledSettings(own.keySet());
        this.client = named(() -> clientConfig().build());
        this.database = string(own, DATABASE, null);
        String defaultSpec = CacheDefinition.DEFAULT_SPEC;
        this.spec = string(own, SPEC, defaultSpec);
        this.queryResultsSpec = string(own, QUERY_RESULTS_SPEC, defaultSpec);
        own.forEach((key, value) -> {
            if (key.startsWith(REGION_SPEC_PREFIX) && value != null) {
                regionSpecs.put(key.substring(REGION_SPEC_PREFIX.length(), key.length() - ".spec".length()),
                        value.toString());
            }
        });
        Object registry = own.get(METER_REGISTRY);
        if (registry != null && !(registry instanceof MeterRegistry)) {
            throw new InvalidConfigurationException(METER_REGISTRY, "must be a Micrometer MeterRegistry object, was "
                    + registry.getClass().getName());
        }
        this.meterRegistry = (MeterRegistry) registry;
        Object customizer = own.get(CONFIG_CUSTOMIZER);
        if (customizer != null && !(customizer instanceof Consumer)) {
            throw new InvalidConfigurationException(CONFIG_CUSTOMIZER,
                    "must be a Consumer<InvalidationClientConfig.Builder> object, was " + customizer.getClass().getName());
        }
        this.customizer = customizer == null ? builder -> { } : (Consumer<InvalidationClientConfig.Builder>) customizer;
    }

    /**
     * Under {@code cdc.invalidation.hibernate.*} (this module's own) every unknown key fails: a misspelled
     * {@code hibernate.regions.X.spce} must not silently keep the default size.
     */
    static void rejectMisspelledSettings(Iterable<String> keys) {
        for (String key : keys) {
            if (SETTINGS.contains(key)) {
                continue;
            }
            if (key.startsWith(REGION_SPEC_PREFIX)) {
                if (!key.endsWith(".spec") || key.length() <= REGION_SPEC_PREFIX.length() + ".spec".length()) {
                    throw new InvalidConfigurationException(key, "is not a setting: a region's cache is set with "
                            + REGION_SPEC_PREFIX + "<region name>.spec");
                }
                continue;
            }
            // Compared without the common prefix: it would make every key look like a near miss.
            var suggestion = SettingSuggestion.closest(key.substring(HIBERNATE.length()),
                    SETTINGS.stream().map(setting -> setting.substring(HIBERNATE.length())).toList())
                    .map(name -> HIBERNATE + name);
            throw new InvalidConfigurationException(key, "is not a setting of the CDC second-level cache"
                    + suggestion.map(s -> "; did you mean " + s + "?")
                    .orElse("; known: " + SETTINGS + ", " + REGION_SPEC_PREFIX + "<region>.spec"));
        }
    }

    /** The Caffeine specification of a role's cache in region {@code regionName}. */
    String specOf(String regionName) {
        return regionSpecs.getOrDefault(regionName, spec);
    }

    /**
     * The client configuration shared by every role, read from the {@code cdc.invalidation.*} settings by the core's
     * reader, with this module's meter registry; the caches are added by the caller.
     */
    public InvalidationClientConfig.Builder clientConfig() {
        return ClientSettings.read(clientSettings).meterRegistry(meterRegistry);
    }

    /** Runs {@code build}, naming a wrong setting by its full key as it is written in Hibernate's configuration. */
    static <T> T named(Supplier<T> build) {
        try {
            return build.get();
        } catch (InvalidConfigurationException e) {
            throw new InvalidConfigurationException(e.setting(PREFIX), e.problem());
        }
    }

    private static String string(Map<String, Object> values, String key, String fallback) {
        Object value = values.get(key);
        return value == null ? fallback : value.toString().strip();
    }
}
