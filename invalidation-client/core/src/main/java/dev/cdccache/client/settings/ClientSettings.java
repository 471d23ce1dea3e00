package dev.cdccache.client.settings;

import static dev.cdccache.client.settings.SettingType.BOOLEAN;
import static dev.cdccache.client.settings.SettingType.BYTES;
import static dev.cdccache.client.settings.SettingType.DURATION;
import static dev.cdccache.client.settings.SettingType.INTEGER;
import static dev.cdccache.client.settings.SettingType.LIST;
import static dev.cdccache.client.settings.SettingType.NUMBER;
import static dev.cdccache.client.settings.SettingType.PATH;
import static dev.cdccache.client.settings.SettingType.SECRET;
import static dev.cdccache.client.settings.SettingType.STRING;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.Evict;
import dev.cdccache.client.InvalidConfigurationException;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.KeyNormalization;
import dev.cdccache.client.KeyType;
import dev.cdccache.client.SourceDefinition;
import dev.cdccache.client.StalenessCheck;
import dev.cdccache.client.StalenessPolicy;
import dev.cdccache.client.position.ReplicaFence;
import dev.cdccache.client.settings.Setting.ClientTarget;
import dev.cdccache.client.settings.Setting.Scope;
import dev.cdccache.contract.KafkaSecurity;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The catalogue of the invalidation client's settings ({@code cdc.invalidation.*}) and the one reader of them.
 *
 * <p>Every setting is listed here once, with its key, its type, an example and where its value lands in the
 * {@link InvalidationClientConfig}; its default is the {@link InvalidationClientConfig.Builder}'s and every rule is
 * checked when that builder builds. Every front end goes through this: the Spring Boot starter binds
 * {@code cdc.invalidation.*} and hands the values to {@link #read(Map, Consumer)}; the Hibernate module reads them
 * from Hibernate's configuration with the same method; a plain Java application can pass a map of its own
 * properties. So a setting added here reaches every front end, with one default and one set of rules.
 *
 * <pre>{@code
 * InvalidationClientConfig config = ClientSettings.read(Map.of(
 *         "cdc.invalidation.bootstrap-servers", "kafka:9092",
 *         "cdc.invalidation.max-staleness", "3s",
 *         "cdc.invalidation.caches.coupons.table", "coupon_db.coupon",
 *         "cdc.invalidation.caches.coupons.key-columns", "id")).build();
 * }</pre>
 *
 * <p>Reference documentation: docs/client.md, "Settings".
 */
public final class ClientSettings {

    /** The prefix of every key. */
    public static final String PREFIX = "cdc.invalidation.";

    /** Spring Boot starter: whether to auto-configure the client at all. */
    public static final Setting<Boolean> ENABLED = Setting.frontEnd("enabled", BOOLEAN, "false", "true");

    /** Kafka bootstrap servers, {@code host:port[,host:port]}; required. */
    public static final Setting<String> BOOTSTRAP_SERVERS = Setting.client("bootstrap-servers", STRING,
            "localhost:9092", (t, v) -> t.config().bootstrapServers(v),
            InvalidationClientConfig::bootstrapServers).derivedDefault(null);
    /** The connector's topic prefix: topics are {@code <prefix>.<database>.<table>}. */
    public static final Setting<String> TOPIC_PREFIX = Setting.client("topic-prefix", STRING, "shop",
            (t, v) -> t.config().topicPrefix(v), InvalidationClientConfig::topicPrefix);
    /** The staleness bound. */
    public static final Setting<java.time.Duration> MAX_STALENESS = Setting.client("max-staleness", DURATION, "7s",
            (t, v) -> t.config().maxStaleness(v), InvalidationClientConfig::maxStaleness);
    /** What happens to entries older than the bound while freshness cannot be shown. */
    public static final Setting<StalenessPolicy> ON_STALENESS = Setting.client("on-staleness",
            SettingType.of(StalenessPolicy.class), "serve-stale", (t, v) -> t.config().stalenessPolicy(v),
            InvalidationClientConfig::stalenessPolicy);
    /** How a hit checks the bound. */
    public static final Setting<StalenessCheck> STALENESS_CHECK = Setting.client("staleness-check",
            SettingType.of(StalenessCheck.class), "every-hit", (t, v) -> t.config().stalenessCheck(v),
            InvalidationClientConfig::stalenessCheck);
    /** With the scheduled check, how late the background check may run. */
    public static final Setting<java.time.Duration> STALENESS_CHECK_SLACK = Setting.client("staleness-check-slack",
            DURATION, "500ms", (t, v) -> t.config().stalenessCheckSlack(v),
            InvalidationClientConfig::stalenessCheckSlack).derivedDefault("a quarter of max-staleness");
    /** Whether a subscribed topic that does not exist counts as "cannot prove freshness". */
    public static final Setting<Boolean> REQUIRE_TOPICS = Setting.client("require-topics", BOOLEAN, "false",
            (t, v) -> t.config().requireTopics(v), InvalidationClientConfig::requireTopics);
    /** Largest change-event value parsed. */
    public static final Setting<Integer> MAX_MESSAGE_SIZE = Setting.client("max-message-size", BYTES, "64KB",
            (t, v) -> t.config().maxMessageBytes(v), InvalidationClientConfig::maxMessageBytes);
    /** Kafka poll timeout. */
    public static final Setting<java.time.Duration> POLL_TIMEOUT = Setting.client("poll-timeout", DURATION, "250ms",
            (t, v) -> t.config().pollTimeout(v), InvalidationClientConfig::pollTimeout);
    /** How often the consumer compares its positions with the log end. */
    public static final Setting<java.time.Duration> POSITION_CHECK_INTERVAL = Setting.client(
            "position-check-interval", DURATION, "300ms", (t, v) -> t.config().positionCheckInterval(v),
            InvalidationClientConfig::positionCheckInterval);
    /** How long start-up waits for the client to be ready. */
    public static final Setting<java.time.Duration> AWAIT_READY = Setting.client("await-ready", DURATION, "0s",
            (t, v) -> t.config().awaitReady(v), InvalidationClientConfig::awaitReady);
    /** How far a connector's database clock may be measurably ahead of this host's before it is reported. */
    public static final Setting<java.time.Duration> MAX_CLOCK_SKEW = Setting.client("max-clock-skew", DURATION, "1s",
            (t, v) -> t.config().maxClockSkew(v), InvalidationClientConfig::maxClockSkew);
    /** Kafka client id prefix and {@code client} metric tag. */
    public static final Setting<String> CLIENT_ID = Setting.client("client-id", STRING, "coupon-service",
            (t, v) -> t.config().clientId(v), InvalidationClientConfig::clientId);
    /** Whether to record {@code cdc.client.commit.lag} per table. */
    public static final Setting<Boolean> COMMIT_LAG_BY_TABLE = Setting.client("commit-lag-by-table", BOOLEAN, "true",
            (t, v) -> t.config().commitLagByTable(v), InvalidationClientConfig::commitLagByTable);
    /** The connector's heartbeat topic. */
    public static final Setting<String> HEARTBEAT_TOPIC = Setting.client("heartbeat.topic", STRING,
            "shop.meta.heartbeat", (t, v) -> t.config().heartbeatTopic(v), InvalidationClientConfig::heartbeatTopic)
            .derivedDefault("<topic-prefix>.cdc_meta.heartbeat");
    /** Whether freshness needs heartbeats. */
    public static final Setting<Boolean> HEARTBEAT_REQUIRED = Setting.client("heartbeat.required", BOOLEAN, "false",
            (t, v) -> t.config().heartbeatRequired(v), InvalidationClientConfig::heartbeatRequired);
    /** Further Kafka consumer properties, one setting per property name. */
    public static final Setting<String> KAFKA_PROPERTIES = Setting.family("kafka.properties", STRING,
            "client.rack=rack-a", (t, member) -> t.config().kafkaProperty(member.name(), member.value()),
            InvalidationClientConfig::kafkaProperties);
    /** Kafka's {@code security.protocol}. */
    public static final Setting<KafkaSecurity.Protocol> KAFKA_SECURITY_PROTOCOL = Setting.client(
            "kafka.security.protocol", SettingType.of(KafkaSecurity.Protocol.class), "SASL_SSL",
            (t, v) -> t.security().protocol(v), c -> c.kafkaSecurity().protocol());
    /** The SASL mechanism. */
    public static final Setting<KafkaSecurity.Mechanism> KAFKA_SECURITY_SASL_MECHANISM = Setting.client(
            "kafka.security.sasl.mechanism", SettingType.of(KafkaSecurity.Mechanism.class), "SCRAM_SHA_256",
            (t, v) -> t.security().mechanism(v), c -> c.kafkaSecurity().sasl().mechanism());
    /** The Kafka user. */
    public static final Setting<String> KAFKA_SECURITY_SASL_USERNAME = Setting.client("kafka.security.sasl.username",
            STRING, "coupon-service", (t, v) -> t.security().username(v), c -> c.kafkaSecurity().sasl().username());
    /** The Kafka user's password. */
    public static final Setting<String> KAFKA_SECURITY_SASL_PASSWORD = Setting.client("kafka.security.sasl.password",
            SECRET, "sasl-password", (t, v) -> t.security().password(v), c -> c.kafkaSecurity().sasl().password());
    /** The trust store with the CA that signed the brokers' certificates. */
    public static final Setting<java.nio.file.Path> KAFKA_SECURITY_SSL_TRUSTSTORE_LOCATION = Setting.client(
            "kafka.security.ssl.truststore-location", PATH, "/etc/kafka/truststore.p12",
            (t, v) -> t.security().truststoreLocation(v), c -> c.kafkaSecurity().ssl().truststoreLocation())
            .derivedDefault("the JVM's default");
    /** The trust store's password. */
    public static final Setting<String> KAFKA_SECURITY_SSL_TRUSTSTORE_PASSWORD = Setting.client(
            "kafka.security.ssl.truststore-password", SECRET, "truststore-password",
            (t, v) -> t.security().truststorePassword(v), c -> c.kafkaSecurity().ssl().truststorePassword());
    /** The trust store's format. */
    public static final Setting<String> KAFKA_SECURITY_SSL_TRUSTSTORE_TYPE = Setting.client(
            "kafka.security.ssl.truststore-type", STRING, "PKCS12", (t, v) -> t.security().truststoreType(v),
            c -> c.kafkaSecurity().ssl().truststoreType());
    /** The key store with the client's certificate. */
    public static final Setting<java.nio.file.Path> KAFKA_SECURITY_SSL_KEYSTORE_LOCATION = Setting.client(
            "kafka.security.ssl.keystore-location", PATH, "/etc/kafka/keystore.p12",
            (t, v) -> t.security().keystoreLocation(v), c -> c.kafkaSecurity().ssl().keystoreLocation());
    /** The key store's password. */
    public static final Setting<String> KAFKA_SECURITY_SSL_KEYSTORE_PASSWORD = Setting.client(
            "kafka.security.ssl.keystore-password", SECRET, "keystore-password",
            (t, v) -> t.security().keystorePassword(v), c -> c.kafkaSecurity().ssl().keystorePassword());
    /** The key store's format. */
    public static final Setting<String> KAFKA_SECURITY_SSL_KEYSTORE_TYPE = Setting.client(
            "kafka.security.ssl.keystore-type", STRING, "PKCS12", (t, v) -> t.security().keystoreType(v),
            c -> c.kafkaSecurity().ssl().keystoreType());
    /** The private key's password. */
    public static final Setting<String> KAFKA_SECURITY_SSL_KEY_PASSWORD = Setting.client(
            "kafka.security.ssl.key-password", SECRET, "key-password", (t, v) -> t.security().keyPassword(v),
            c -> c.kafkaSecurity().ssl().keyPassword());
    /** Host name check of the brokers' certificates. */
    public static final Setting<String> KAFKA_SECURITY_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM = Setting.client(
            "kafka.security.ssl.endpoint-identification-algorithm", STRING, "",
            (t, v) -> t.security().endpointIdentificationAlgorithm(v),
            c -> c.kafkaSecurity().ssl().endpointIdentificationAlgorithm()).derivedDefault("Kafka's https");
    /** Health status while not ready or not fresh for a reason that clears by itself. */
    public static final Setting<String> HEALTH_STALE_STATUS = Setting.client("health.stale-status", STRING,
            "OUT_OF_SERVICE", (t, v) -> t.config().healthStaleStatus(v), InvalidationClientConfig::healthStaleStatus);
    /** Health status while a problem needs an operator. */
    public static final Setting<String> HEALTH_PROBLEM_STATUS = Setting.client("health.problem-status", STRING,
            "OUT_OF_SERVICE", (t, v) -> t.config().healthProblemStatus(v),
            InvalidationClientConfig::healthProblemStatus);

    /** Spring Boot starter: the DataSource beans that read a replica (their connections are fenced). */
    public static final Setting<List<String>> REPLICA_DATA_SOURCES = Setting.frontEnd("replica.data-sources", LIST,
            "replicaDataSource", "none");
    /** Spring Boot starter: how long a replica connection's checkout waits before its reads are served uncached. */
    public static final Setting<java.time.Duration> REPLICA_WAIT_TIMEOUT = Setting.frontEnd("replica.wait-timeout",
            DURATION, "20ms", ReplicaFence.DEFAULT_WAIT_TIMEOUT.toMillis() + "ms");

    /** The Java type of a cache's keys. */
    public static final Setting<KeyType> KEY_TYPE = Setting.cache("key-type", SettingType.of(KeyType.class),
            "string", CacheDefinition.Builder::keyType, CacheDefinition::keyType);
    /** How text keys are normalised. */
    public static final Setting<KeyNormalization> KEY_NORMALIZATION = Setting.cache("key-normalization",
            SettingType.of(KeyNormalization.class), "lower-case", CacheDefinition.Builder::keyNormalization,
            CacheDefinition::keyNormalization);
    /** The Caffeine specification of a cache's bounds. */
    public static final Setting<String> SPEC = Setting.cache("spec", STRING, "maximumSize=500,expireAfterWrite=10m",
            CacheDefinition.Builder::spec, CacheDefinition::spec);
    /** Whether "no such row" is cached. */
    public static final Setting<Boolean> CACHE_NULLS = Setting.cache("cache-nulls", BOOLEAN, "false",
            CacheDefinition.Builder::cacheNulls, CacheDefinition::cacheNulls);
    /** Fraction of {@code expireAfterWrite} after which a hit reloads ahead. */
    public static final Setting<Double> REFRESH_AHEAD = Setting.cache("refresh-ahead", NUMBER, "0.5",
            CacheDefinition.Builder::refreshAhead, CacheDefinition::refreshAhead);

    /** Whether consistency sampling re-reads hits of a cache. */
    public static final Setting<Boolean> SAMPLED = Setting.cache("sampled", BOOLEAN, "false",
            CacheDefinition.Builder::sampled, CacheDefinition::sampled);

    /** The table whose changes evict a cache's entries, {@code database.table}. */
    public static final Setting<String> TABLE = Setting.source("table", STRING, "shop.item",
            (s, v) -> s.table(v), SourceDefinition::table).derivedDefault(null);
    /** The column(s) a cache's key is made of, in key order. */
    public static final Setting<List<String>> KEY_COLUMNS = Setting.source("key-columns", LIST, "code",
            (s, v) -> s.keyColumns(v), SourceDefinition::keyColumns).derivedDefault(null);
    /** What a change of the table evicts. */
    public static final Setting<Evict> EVICT = Setting.source("evict", SettingType.of(Evict.class), "all",
            (s, v) -> s.evict(v), SourceDefinition::evict);
    /** The topic to read instead of the derived one. */
    public static final Setting<String> TOPIC = Setting.source("topic", STRING, "shop.items.v2",
            (s, v) -> s.topic(v), SourceDefinition::topic).derivedDefault("<topic-prefix>.<database>.<table>");

    /** How long a read under a read floor waits for it to be applied before it bypasses the cache. */
    public static final Setting<java.time.Duration> READ_YOUR_WRITES_MAX_WAIT = Setting.client(
            "read-your-writes.max-wait", DURATION, "20ms", (t, v) -> t.config().readYourWritesMaxWait(v),
            InvalidationClientConfig::readYourWritesMaxWait);
    /** Consistency sampling: re-read one cache hit in this many, on average, off the request path; 0 is off. */
    public static final Setting<Integer> SAMPLING_ONE_IN = Setting.client("sampling.one-in", INTEGER, "1000",
            (t, v) -> t.config().samplingOneIn(v), InvalidationClientConfig::samplingOneIn);
    /** Consistency sampling: at most this many re-reads a second, over all caches of the instance. */
    public static final Setting<Integer> SAMPLING_MAX_PER_SECOND = Setting.client("sampling.max-per-second",
            INTEGER, "50", (t, v) -> t.config().samplingMaxPerSecond(v),
            InvalidationClientConfig::samplingMaxPerSecond);
    /** Consistency sampling: the span over which the consistency nines and the stale health problem look back. */
    public static final Setting<java.time.Duration> SAMPLING_WINDOW = Setting.client("sampling.window", DURATION,
            "30m", (t, v) -> t.config().samplingWindow(v), InvalidationClientConfig::samplingWindow);
    /** Spring Boot starter: whether a committed write makes its position this instance's read floor. */
    public static final Setting<Boolean> READ_YOUR_WRITES_ENABLED = Setting.frontEnd("read-your-writes.enabled",
            BOOLEAN, "true", "false");
    /** Spring Boot starter, servlet applications: the Cdc-Position request and response header. */
    public static final Setting<Boolean> READ_YOUR_WRITES_POSITION_HEADER = Setting.frontEnd(
            "read-your-writes.position-header", BOOLEAN, "true", "false");

    private static final List<Setting<?>> ALL = List.of(ENABLED, BOOTSTRAP_SERVERS, TOPIC_PREFIX, MAX_STALENESS,
            ON_STALENESS, STALENESS_CHECK, STALENESS_CHECK_SLACK, REQUIRE_TOPICS, MAX_MESSAGE_SIZE, POLL_TIMEOUT,
            POSITION_CHECK_INTERVAL, AWAIT_READY, MAX_CLOCK_SKEW, CLIENT_ID, COMMIT_LAG_BY_TABLE, HEARTBEAT_TOPIC, HEARTBEAT_REQUIRED,
            KAFKA_PROPERTIES, KAFKA_SECURITY_PROTOCOL, KAFKA_SECURITY_SASL_MECHANISM, KAFKA_SECURITY_SASL_USERNAME,
            KAFKA_SECURITY_SASL_PASSWORD, KAFKA_SECURITY_SSL_TRUSTSTORE_LOCATION, KAFKA_SECURITY_SSL_TRUSTSTORE_PASSWORD,
            KAFKA_SECURITY_SSL_TRUSTSTORE_TYPE, KAFKA_SECURITY_SSL_KEYSTORE_LOCATION,
            KAFKA_SECURITY_SSL_KEYSTORE_PASSWORD, KAFKA_SECURITY_SSL_KEYSTORE_TYPE, KAFKA_SECURITY_SSL_KEY_PASSWORD,
            KAFKA_SECURITY_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM, HEALTH_STALE_STATUS, HEALTH_PROBLEM_STATUS,
            REPLICA_DATA_SOURCES, REPLICA_WAIT_TIMEOUT, READ_YOUR_WRITES_ENABLED, READ_YOUR_WRITES_MAX_WAIT,
            READ_YOUR_WRITES_POSITION_HEADER, SAMPLING_ONE_IN, SAMPLING_MAX_PER_SECOND, SAMPLING_WINDOW,
            TABLE, KEY_COLUMNS, EVICT, TOPIC, KEY_TYPE, KEY_NORMALIZATION, SPEC, CACHE_NULLS, REFRESH_AHEAD, SAMPLED);

    private static final SettingTree TREE = new SettingTree(ALL);

    private ClientSettings() {
    }

    /** Every setting, client-wide ones first. */
    public static List<Setting<?>> all() {
        return ALL;
    }

    /** The settings of one scope. */
    public static List<Setting<?>> of(Scope scope) {
        return ALL.stream().filter(setting -> setting.scope() == scope).toList();
    }

    /** The setting a key names ({@code caches.coupons.key-columns}, relative to {@link #PREFIX}), if any. */
    public static Optional<Setting<?>> find(String key) {
        try {
            return Optional.of(TREE.locate(key).setting());
        } catch (SettingTree.UnknownKeyException e) {
            return Optional.empty();
        }
    }

    /**
     * Why {@code key} (relative to {@link #PREFIX}) names no setting and what it most likely meant; empty when it
     * names one.
     */
    public static Optional<UnknownSetting> diagnose(String key) {
        try {
            TREE.locate(key);
            return Optional.empty();
        } catch (SettingTree.UnknownKeyException e) {
            return Optional.of(e.unknown);
        }
    }

    /** {@link #read(Map, Consumer)} with the caches as read. */
    public static InvalidationClientConfig.Builder read(Map<String, ?> values) {
        return read(values, cache -> { });
    }

    /**
     * Reads every {@code cdc.invalidation.*} key of {@code values} (other keys are ignored, {@code null} values
     * too) into a configuration builder, which the caller may extend (listeners, a meter registry, more caches)
     * before {@link InvalidationClientConfig.Builder#build() building} it; the build checks the rules. A value is
     * either text, read as in Spring Boot ({@code 5s}, {@code 64KB}, {@code serve-stale}, {@code id,code}), or
     * already of the setting's type. List settings may also be given item by item ({@code key-columns[0]}).
     *
     * @param eachCache called with every cache's builder before it is built (e.g. for the composite key factory)
     * @throws InvalidConfigurationException naming the full key of a key that is no setting (with the setting it
     *         most likely meant) or of a value that is not of its setting's type
     */
    public static InvalidationClientConfig.Builder read(Map<String, ?> values,
            Consumer<CacheDefinition.Builder> eachCache) {
        Map<SettingTree.Located, Object> located = new LinkedHashMap<>();
        Map<SettingTree.Located, TreeMap<Integer, Object>> items = new LinkedHashMap<>();
        for (Map.Entry<String, ?> entry : values.entrySet()) {
            String key = entry.getKey();
            if (key == null || !key.startsWith(PREFIX) || entry.getValue() == null) {
                continue;
            }
            SettingTree.Located at;
            try {
                at = TREE.locate(key.substring(PREFIX.length()));
            } catch (SettingTree.UnknownKeyException e) {
                throw new InvalidConfigurationException(key, e.unknown.problem(PREFIX));
            }
            if (at.index() >= 0) {
                SettingTree.Located whole = new SettingTree.Located(at.setting(), at.cache(), at.source(), null, -1,
                        at.canonical());
                items.computeIfAbsent(whole, k -> new TreeMap<>()).put(at.index(), entry.getValue());
            } else {
                located.put(at, entry.getValue());
            }
        }
        items.forEach((at, list) -> located.put(at, new ArrayList<>(list.values())));

        ClientTarget target = new ClientTarget(InvalidationClientConfig.builder(), KafkaSecurity.builder());
        Map<String, CacheDraft> caches = new LinkedHashMap<>();
        located.forEach((at, value) -> {
            try {
                Setting<?> setting = at.setting();
                switch (setting.scope()) {
                    case FRONT_END -> setting.parse(value); // the front end's; only its form is checked here
                    case CLIENT -> {
                        if (setting.family()) {
                            setting.applyMember(target, at.member(), value);
                        } else {
                            setting.applyTo(target, value);
                        }
                    }
                    case CACHE -> setting.applyTo(caches.computeIfAbsent(at.cache(), CacheDraft::new).cache, value);
                    case SOURCE -> {
                        CacheDraft cache = caches.computeIfAbsent(at.cache(), CacheDraft::new);
                        setting.applyTo(at.source() < 0 ? cache.cache : cache.source(at.source()), value);
                    }
                }
            } catch (InvalidConfigurationException e) {
                throw e;
            } catch (IllegalArgumentException e) {
                throw new InvalidConfigurationException(PREFIX + at.canonical(), e.getMessage());
            }
        });
        InvalidationClientConfig.Builder config = target.config().kafkaSecurity(target.security().build());
        for (CacheDraft draft : caches.values()) {
            draft.sources.values().forEach(source -> draft.cache.source(source.build()));
            eachCache.accept(draft.cache);
            config.cache(draft.cache.build());
        }
        return config;
    }

    /** A configuration with nothing set but what is required: where the defaults are read from. */
    static InvalidationClientConfig minimalConfig() {
        return Minimal.CONFIG;
    }

    private static final class Minimal {
        static final InvalidationClientConfig CONFIG = InvalidationClientConfig.builder().bootstrapServers("minimal:9092")
                .cache(CacheDefinition.builder("minimal").table("db.t").keyColumns("id").build()).build();
    }

    /** One cache being read: its builder (which takes the short form) and its listed sources by index. */
    private static final class CacheDraft {
        final CacheDefinition.Builder cache;
        final TreeMap<Integer, SourceDefinition.Builder> sources = new TreeMap<>();

        CacheDraft(String name) {
            this.cache = CacheDefinition.builder(name);
        }

        SourceDefinition.Builder source(int index) {
            return sources.computeIfAbsent(index, i -> SourceDefinition.builder());
        }
    }
}
