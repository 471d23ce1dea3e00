package dev.cdccache.client.hibernate;

import dev.cdccache.client.InvalidConfigurationException;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.SettingSuggestion;
import dev.cdccache.client.StalenessCheck;
import dev.cdccache.client.StalenessPolicy;
import dev.cdccache.contract.ChangeTopics;
import dev.cdccache.contract.KafkaSecurity;
import dev.cdccache.contract.SettingProblem;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The region factory's settings, read from Hibernate's configuration values (in Spring Boot:
 * {@code spring.jpa.properties.*}). The client's own settings keep the names of the Spring starter's
 * {@code cdc.invalidation.*}; the Hibernate-specific ones live under {@code cdc.invalidation.hibernate.*}.
 */
final class HibernateCacheSettings {

    static final String PREFIX = "cdc.invalidation.";
    static final String BOOTSTRAP_SERVERS = PREFIX + "bootstrap-servers";
    static final String TOPIC_PREFIX = PREFIX + "topic-prefix";
    static final String MAX_STALENESS = PREFIX + "max-staleness";
    static final String ON_STALENESS = PREFIX + "on-staleness";
    static final String STALENESS_CHECK = PREFIX + "staleness-check";
    static final String HEARTBEAT_REQUIRED = PREFIX + "heartbeat.required";
    static final String CLIENT_ID = PREFIX + "client-id";
    static final String AWAIT_READY = PREFIX + "await-ready";
    static final String KAFKA_PROPERTIES = PREFIX + "kafka.properties.";
    static final String KAFKA_SECURITY = PREFIX + "kafka.security.";
    static final String DATABASE = PREFIX + "hibernate.database";
    static final String SPEC = PREFIX + "hibernate.spec";
    static final String REGION_SPEC_PREFIX = PREFIX + "hibernate.regions.";
    static final String QUERY_RESULTS_SPEC = PREFIX + "hibernate.query-results.spec";
    static final String METER_REGISTRY = PREFIX + "hibernate.meter-registry";
    static final String CONFIG_CUSTOMIZER = PREFIX + "hibernate.config-customizer";

    static final String DEFAULT_SPEC = "maximumSize=10000";

    /** Every single-valued setting this module reads; the families (kafka.*, hibernate.regions.*) are checked apart. */
    static final List<String> SETTINGS = List.of(BOOTSTRAP_SERVERS, TOPIC_PREFIX, MAX_STALENESS, ON_STALENESS,
            STALENESS_CHECK, HEARTBEAT_REQUIRED, CLIENT_ID, AWAIT_READY, DATABASE, SPEC, QUERY_RESULTS_SPEC,
            METER_REGISTRY, CONFIG_CUSTOMIZER);

    final String bootstrapServers;
    final String topicPrefix;
    final Duration maxStaleness;
    final StalenessPolicy onStaleness;
    final StalenessCheck stalenessCheck;
    final boolean heartbeatRequired;
    final String clientId;
    final Duration awaitReady;
    final Map<String, Object> kafkaProperties = new LinkedHashMap<>();
    final KafkaSecurity kafkaSecurity;
    final String database;
    final String spec;
    final Map<String, String> regionSpecs = new LinkedHashMap<>();
    final String queryResultsSpec;
    final MeterRegistry meterRegistry;
    final Consumer<InvalidationClientConfig.Builder> customizer;

    @SuppressWarnings("unchecked")
    HibernateCacheSettings(Map<String, Object> values) {
        rejectMisspelledSettings(values.keySet());
        this.bootstrapServers = string(values, BOOTSTRAP_SERVERS, null);
        if (bootstrapServers == null || bootstrapServers.isBlank()) {
            throw new InvalidConfigurationException(BOOTSTRAP_SERVERS,
                    "is required by the CDC second-level cache (Kafka bootstrap servers, host:port[,host:port])");
        }
        this.topicPrefix = string(values, TOPIC_PREFIX, ChangeTopics.DEFAULT_PREFIX);
        this.maxStaleness = duration(values, MAX_STALENESS, InvalidationClientConfig.DEFAULT_MAX_STALENESS);
        this.onStaleness = enumValue(values, ON_STALENESS, StalenessPolicy.class, StalenessPolicy.BYPASS_CACHE);
        this.stalenessCheck = enumValue(values, STALENESS_CHECK, StalenessCheck.class, StalenessCheck.EVERY_HIT);
        this.heartbeatRequired = Boolean.parseBoolean(string(values, HEARTBEAT_REQUIRED, "true"));
        this.clientId = string(values, CLIENT_ID, "cdc-hibernate");
        this.awaitReady = duration(values, AWAIT_READY, Duration.ofSeconds(10));
        this.database = string(values, DATABASE, null);
        this.spec = string(values, SPEC, DEFAULT_SPEC);
        this.queryResultsSpec = string(values, QUERY_RESULTS_SPEC, DEFAULT_SPEC);
        values.forEach((key, value) -> {
            if (key.startsWith(KAFKA_PROPERTIES) && value != null) {
                kafkaProperties.put(key.substring(KAFKA_PROPERTIES.length()), value);
            }
            if (key.startsWith(REGION_SPEC_PREFIX) && key.endsWith(".spec") && value != null) {
                regionSpecs.put(key.substring(REGION_SPEC_PREFIX.length(), key.length() - ".spec".length()),
                        value.toString());
            }
        });
        this.kafkaSecurity = kafkaSecurity(values);
        Object registry = values.get(METER_REGISTRY);
        if (registry != null && !(registry instanceof MeterRegistry)) {
            throw new InvalidConfigurationException(METER_REGISTRY, "must be a Micrometer MeterRegistry object, was "
                    + registry.getClass().getName());
        }
        this.meterRegistry = (MeterRegistry) registry;
        Object customizer = values.get(CONFIG_CUSTOMIZER);
        if (customizer != null && !(customizer instanceof Consumer)) {
            throw new InvalidConfigurationException(CONFIG_CUSTOMIZER,
                    "must be a Consumer<InvalidationClientConfig.Builder> object, was " + customizer.getClass().getName());
        }
        this.customizer = customizer == null ? builder -> { } : (Consumer<InvalidationClientConfig.Builder>) customizer;
    }

    /**
     * A misspelled setting must fail start-up, not fall back to a default (a {@code max-stalenes} would keep the
     * default bound, a {@code hibernate.regions.X.spce} the default size). Under {@code cdc.invalidation.hibernate.*}
     * (this module's own) every unknown key fails. Other {@code cdc.invalidation.*} keys may be the Spring starter's
     * (Hibernate also sees system properties), so only a near miss of a setting read here fails.
     */
    static void rejectMisspelledSettings(Iterable<String> keys) {
        String hibernate = PREFIX + "hibernate.";
        for (String key : keys) {
            if (!key.startsWith(PREFIX) || SETTINGS.contains(key) || key.startsWith(KAFKA_PROPERTIES)
                    || key.startsWith(KAFKA_SECURITY)) {
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
            var suggestion = SettingSuggestion.closest(key.substring(PREFIX.length()),
                    SETTINGS.stream().map(setting -> setting.substring(PREFIX.length())).toList()).map(name -> PREFIX + name);
            if (key.startsWith(hibernate) || suggestion.isPresent()) {
                throw new InvalidConfigurationException(key, "is not a setting of the CDC second-level cache"
                        + suggestion.map(s -> "; did you mean " + s + "?").orElse("; known: " + SETTINGS
                        + ", " + REGION_SPEC_PREFIX + "<region>.spec, " + KAFKA_PROPERTIES + "*, " + KAFKA_SECURITY + "*"));
            }
        }
    }

    /** The Caffeine specification of a role's cache in region {@code regionName}. */
    String specOf(String regionName) {
        return regionSpecs.getOrDefault(regionName, spec);
    }

    /** The client configuration shared by every role; the caches are added by the caller. */
    InvalidationClientConfig.Builder clientConfig() {
        InvalidationClientConfig.Builder builder = InvalidationClientConfig.builder()
                .bootstrapServers(bootstrapServers)
                .topicPrefix(topicPrefix)
                .maxStaleness(maxStaleness)
                .stalenessPolicy(onStaleness)
                .stalenessCheck(stalenessCheck)
                .heartbeatRequired(heartbeatRequired)
                .clientId(clientId)
                .kafkaProperties(kafkaProperties)
                .kafkaSecurity(kafkaSecurity)
                .meterRegistry(meterRegistry);
        return builder;
    }

    /** {@code cdc.invalidation.kafka.security.*}, the same settings as the Spring starter's (docs/client.md). */
    private static KafkaSecurity kafkaSecurity(Map<String, Object> values) {
        List<String> known = List.of("protocol", "sasl.mechanism", "sasl.username", "sasl.password",
                "ssl.truststore-location", "ssl.truststore-password", "ssl.truststore-type", "ssl.keystore-location",
                "ssl.keystore-password", "ssl.keystore-type", "ssl.key-password", "ssl.endpoint-identification-algorithm");
        for (String key : values.keySet()) {
            if (key.startsWith(KAFKA_SECURITY) && !known.contains(key.substring(KAFKA_SECURITY.length()))) {
                // A typo here would silently fall back to PLAINTEXT.
                throw new InvalidConfigurationException(key, "is not a Kafka security setting; known: " + known);
            }
        }
        KafkaSecurity.Builder builder = KafkaSecurity.builder().protocol(enumValue(values, KAFKA_SECURITY + "protocol",
                KafkaSecurity.Protocol.class, KafkaSecurity.Protocol.PLAINTEXT));
        String username = string(values, KAFKA_SECURITY + "sasl.username", null);
        Object password = values.get(KAFKA_SECURITY + "sasl.password");
        if (username != null || password != null) {
            builder.sasl(enumValue(values, KAFKA_SECURITY + "sasl.mechanism", KafkaSecurity.Mechanism.class,
                    KafkaSecurity.Mechanism.SCRAM_SHA_512), username, password == null ? null : password.toString());
        }
        String truststore = string(values, KAFKA_SECURITY + "ssl.truststore-location", null);
        if (truststore != null) {
            builder.truststore(Path.of(truststore), secret(values, "ssl.truststore-password"),
                    string(values, KAFKA_SECURITY + "ssl.truststore-type", null));
        }
        String keystore = string(values, KAFKA_SECURITY + "ssl.keystore-location", null);
        if (keystore != null) {
            builder.keystore(Path.of(keystore), secret(values, "ssl.keystore-password"), secret(values, "ssl.key-password"),
                    string(values, KAFKA_SECURITY + "ssl.keystore-type", null));
        }
        Object endpointCheck = values.get(KAFKA_SECURITY + "ssl.endpoint-identification-algorithm");
        KafkaSecurity security = builder.endpointIdentificationAlgorithm(
                endpointCheck == null ? null : endpointCheck.toString().strip()).build();
        for (SettingProblem problem : security.problems(KAFKA_SECURITY)) {
            throw new InvalidConfigurationException(problem.setting(), problem.problem());
        }
        return security;
    }

    /** A password as given: not stripped, a space may belong to it. */
    private static String secret(Map<String, Object> values, String key) {
        Object value = values.get(KAFKA_SECURITY + key);
        return value == null ? null : value.toString();
    }

    private static String string(Map<String, Object> values, String key, String fallback) {
        Object value = values.get(key);
        return value == null ? fallback : value.toString().strip();
    }

    private static Duration duration(Map<String, Object> values, String key, Duration fallback) {
        Object value = values.get(key);
        if (value == null) {
            return fallback;
        }
        if (value instanceof Duration d) {
            return d;
        }
        String text = value.toString().strip().toLowerCase(Locale.ROOT);
        try {
            if (text.startsWith("p")) {
                return Duration.parse(text.toUpperCase(Locale.ROOT));
            }
            if (text.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
            }
            long amount = Long.parseLong(text.substring(0, text.length() - 1));
            return switch (text.charAt(text.length() - 1)) {
                case 's' -> Duration.ofSeconds(amount);
                case 'm' -> Duration.ofMinutes(amount);
                case 'h' -> Duration.ofHours(amount);
                default -> throw new NumberFormatException();
            };
        } catch (RuntimeException e) {
            throw new InvalidConfigurationException(key, "must be a duration such as 500ms, 5s or PT5S, was '"
                    + value + "'");
        }
    }

    private static <E extends Enum<E>> E enumValue(Map<String, Object> values, String key, Class<E> type,
            E fallback) {
        Object value = values.get(key);
        if (value == null) {
            return fallback;
        }
        if (type.isInstance(value)) {
            return type.cast(value);
        }
        String name = value.toString().strip().replace('-', '_').toUpperCase(Locale.ROOT);
        try {
            return Enum.valueOf(type, name);
        } catch (IllegalArgumentException e) {
            StringBuilder allowed = new StringBuilder();
            for (E constant : type.getEnumConstants()) {
                allowed.append(allowed.length() == 0 ? "" : ", ")
                        .append(constant.name().toLowerCase(Locale.ROOT).replace('_', '-'));
            }
            throw new InvalidConfigurationException(key, "must be one of " + allowed + ", was '" + value + "'");
        }
    }
}
