package dev.cdccache.client;

import com.github.benmanes.caffeine.cache.CaffeineSpec;
import dev.cdccache.contract.ChangeTopics;
import dev.cdccache.contract.KafkaSecurity;
import dev.cdccache.contract.SettingProblem;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * Everything an {@link InvalidationClient} needs: the Kafka cluster, the topic naming, the staleness bound and
 * the caches. Immutable and validated: {@link Builder#build()} throws {@link InvalidConfigurationException}
 * naming the first wrong setting.
 *
 * <p>This is the client's one settings model: the defaults are the {@link Builder}'s, every rule is checked in
 * {@link Builder#build()}, and every front end gets here through the same reader of the {@code cdc.invalidation.*}
 * settings ({@link dev.cdccache.client.settings.ClientSettings}), whose catalogue names each setting and where it
 * lands in this class.
 */
public final class InvalidationClientConfig {

    /** The default bound: entries are not served once the client cannot show it is this close to the log. */
    public static final Duration DEFAULT_MAX_STALENESS = Duration.ofSeconds(5);
    /** The default {@link #maxClockSkew()}. */
    public static final Duration DEFAULT_MAX_CLOCK_SKEW = Duration.ofMillis(250);
    /** Default of {@link #readYourWritesMaxWait()}, in milliseconds. */
    public static final long DEFAULT_READ_YOUR_WRITES_MAX_WAIT_MS = 5;
    /** Longest {@link #readYourWritesMaxWait()} accepted. */
    public static final Duration MAX_READ_YOUR_WRITES_WAIT = Duration.ofSeconds(5);
    /** Default largest change-event value parsed; bigger ones evict the caches of their table. */
    public static final int DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024;

    /** The only Kafka {@code isolation.level} the client reads with (see {@link Builder#build()}). */
    static final String READ_COMMITTED = "read_committed";
    private static final String ISOLATION_LEVEL = "isolation.level";

    private static final Pattern TABLE = Pattern.compile("[^.\\s]+\\.[^.\\s]+");
    private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]+");

    private final String bootstrapServers;
    private final String topicPrefix;
    private final String heartbeatTopic;
    private final boolean heartbeatRequired;
    private final Duration maxStaleness;
    private final StalenessPolicy stalenessPolicy;
    private final StalenessCheck stalenessCheck;
    private final Duration stalenessCheckSlack;
    private final boolean requireTopics;
    private final int maxMessageBytes;
    private final Duration pollTimeout;
    private final Duration positionCheckInterval;
    private final String clientId;
    private final Map<String, Object> kafkaProperties;
    private final KafkaSecurity kafkaSecurity;
    private final List<CacheDefinition> caches;
    private final MeterRegistry meterRegistry;
    private final LongSupplier clock;
    private final Executor refreshExecutor;
    private final List<InvalidationListener> listeners;
    private final boolean commitLagByTable;
    private final Duration maxClockSkew;
    private final Duration awaitReady;
    private final Duration readYourWritesMaxWait;
    private final int samplingOneIn;
    private final int samplingMaxPerSecond;
    private final Duration samplingWindow;
    private final String healthStaleStatus;
    private final String healthProblemStatus;

    private InvalidationClientConfig(Builder b) {
        this.bootstrapServers = b.bootstrapServers;
        this.topicPrefix = b.topicPrefix;
        this.heartbeatTopic = b.heartbeatTopic != null ? b.heartbeatTopic : ChangeTopics.heartbeat(b.topicPrefix);
        this.heartbeatRequired = b.heartbeatRequired;
        this.maxStaleness = b.maxStaleness;
        this.stalenessPolicy = b.stalenessPolicy;
        this.stalenessCheck = b.stalenessCheck;
        this.stalenessCheckSlack = b.stalenessCheckSlack != null ? b.stalenessCheckSlack : b.maxStaleness.dividedBy(4);
        this.requireTopics = b.requireTopics;
        this.maxMessageBytes = b.maxMessageBytes;
        this.pollTimeout = b.pollTimeout;
        this.positionCheckInterval = b.positionCheckInterval;
        this.clientId = b.clientId;
        this.kafkaProperties = Map.copyOf(b.kafkaProperties);
        this.kafkaSecurity = b.kafkaSecurity;
        this.caches = List.copyOf(b.caches);
        this.meterRegistry = b.meterRegistry;
        this.clock = b.clock;
        this.refreshExecutor = b.refreshExecutor;
        this.listeners = List.copyOf(b.listeners);
        this.commitLagByTable = b.commitLagByTable;
        this.maxClockSkew = b.maxClockSkew;
        this.awaitReady = b.awaitReady;
        this.readYourWritesMaxWait = b.readYourWritesMaxWait;
        this.samplingOneIn = b.samplingOneIn;
        this.samplingMaxPerSecond = b.samplingMaxPerSecond;
        this.samplingWindow = b.samplingWindow;
        this.healthStaleStatus = b.healthStaleStatus;
        this.healthProblemStatus = b.healthProblemStatus;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Kafka bootstrap servers, {@code host:port[,host:port]}. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** The connector's topic prefix; topics are {@code <prefix>.<database>.<table>}. */
    public String topicPrefix() {
        return topicPrefix;
    }

    /** The topic carrying the connector's heartbeat row. */
    public String heartbeatTopic() {
        return heartbeatTopic;
    }

    /**
     * Whether freshness needs heartbeats (the default): without them the client cannot tell a stopped
     * connector from a quiet database, so entries expire after {@link #maxStaleness()}.
     */
    public boolean heartbeatRequired() {
        return heartbeatRequired;
    }

    public Duration maxStaleness() {
        return maxStaleness;
    }

    public StalenessPolicy stalenessPolicy() {
        return stalenessPolicy;
    }

    /** How a hit checks the bound; {@link StalenessCheck#SCHEDULED} unless set. */
    public StalenessCheck stalenessCheck() {
        return stalenessCheck;
    }

    /**
     * With {@link StalenessCheck#SCHEDULED}, how late the background check may run before the bound can be
     * exceeded; a quarter of {@link #maxStaleness()} unless set.
     */
    public Duration stalenessCheckSlack() {
        return stalenessCheckSlack;
    }

    /**
     * Whether a bound topic that does not exist means its caches cannot be proven fresh (the default): a
     * misspelled {@code topic-prefix} or table, or a table the connector does not capture, would
     * otherwise look fresh forever while nothing invalidates it. Such topics are logged at WARN and reported as
     * {@link dev.cdccache.client.staleness.FreshnessProblem.Kind#MISSING_TOPIC}. Set to {@code false} only for a
     * connector that creates topics lazily on a table's first change (Kafka Connect without pre-created topics).
     */
    public boolean requireTopics() {
        return requireTopics;
    }

    public int maxMessageBytes() {
        return maxMessageBytes;
    }

    public Duration pollTimeout() {
        return pollTimeout;
    }

    /** How often the consumer compares its position with the log end (and looks for new topics). */
    public Duration positionCheckInterval() {
        return positionCheckInterval;
    }

    public String clientId() {
        return clientId;
    }

    /**
     * Extra Kafka consumer properties (security etc.), applied before the client's own fixed ones. The client always
     * reads {@code isolation.level=read_committed}; {@link Builder#build()} refuses any other value here.
     */
    public Map<String, Object> kafkaProperties() {
        return kafkaProperties;
    }

    /** Authentication and encryption of the connection to Kafka; {@link KafkaSecurity#plaintext()} unless set. */
    public KafkaSecurity kafkaSecurity() {
        return kafkaSecurity;
    }

    public List<CacheDefinition> caches() {
        return caches;
    }

    /** The registry metrics are bound to, or {@code null} for none. */
    public MeterRegistry meterRegistry() {
        return meterRegistry;
    }

    /** Wall clock in epoch milliseconds (replaceable in tests). */
    public LongSupplier clock() {
        return clock;
    }

    public Executor refreshExecutor() {
        return refreshExecutor;
    }

    public List<InvalidationListener> listeners() {
        return listeners;
    }

    /**
     * Whether to record {@code cdc.client.commit.lag} per table from each change's {@code source.ts_ms}; off
     * unless set. That commit time has one-second resolution on MariaDB (millisecond on MySQL 8), so the
     * lag to watch is {@code cdc.client.invalidation.lag}, measured from the heartbeat row's
     * {@code DATETIME(6)}.
     */
    public boolean commitLagByTable() {
        return commitLagByTable;
    }

    /**
     * How far a connector's database clock may be measurably ahead of this host's before it is reported
     * ({@code CLOCK_SKEW} problem, {@code cdc.client.clock.skew} gauge); 250 ms
     * unless set. Whatever this setting, a heartbeat proves only up to this host's time minus the measured skew.
     */
    public Duration maxClockSkew() {
        return maxClockSkew;
    }

    /**
     * How long the application's start-up waits for the client to be ready (positioned at the log end): front ends
     * that start the client with the application (the Spring starter, the Hibernate module) wait this long, and
     * start-up goes on either way; caches pass loads through until the client is ready.
     */
    public Duration awaitReady() {
        return awaitReady;
    }

    /**
     * How long a cache read under a read floor ({@link dev.cdccache.client.position.ReadYourWrites}) waits for the
     * floor to be proven applied before it bypasses the cache (loads from the source, stores nothing). Short: the
     * wait is on the read's path, and a bypass is always correct. Default {@value #DEFAULT_READ_YOUR_WRITES_MAX_WAIT_MS}
     * ms.
     */
    public Duration readYourWritesMaxWait() {
        return readYourWritesMaxWait;
    }

    /**
     * Consistency sampling: one hit of {@code get(key, loader)} in this many, on average, is re-read through its
     * loader off the request path and compared with the cached value (see docs/operations.md). 0 (the default) is
     * off: the caches hold no sampler and their hit path is unchanged.
     */
    public int samplingOneIn() {
        return samplingOneIn;
    }

    /** Consistency sampling: at most this many re-reads a second over all caches (the extra database load). */
    public int samplingMaxPerSecond() {
        return samplingMaxPerSecond;
    }

    /** Consistency sampling: the span over which the consistency nines and the stale health problem look back. */
    public Duration samplingWindow() {
        return samplingWindow;
    }

    /**
     * The status a health endpoint reports while the client is not ready or not fresh for a reason that clears by
     * itself (default {@code DEGRADED}); used by the Spring starter's health indicator.
     */
    public String healthStaleStatus() {
        return healthStaleStatus;
    }

    /**
     * The status a health endpoint reports while a problem needs an operator: a missing topic, a table no connector
     * heartbeat covers (default {@code DOWN}); used by the Spring starter's health indicator.
     */
    public String healthProblemStatus() {
        return healthProblemStatus;
    }

    /** Builder of an {@link InvalidationClientConfig}, holding the default of every setting; not thread-safe. */
    public static final class Builder {
        private String bootstrapServers;
        private String topicPrefix = ChangeTopics.DEFAULT_PREFIX;
        private String heartbeatTopic;
        private boolean heartbeatRequired = true;
        private Duration maxStaleness = DEFAULT_MAX_STALENESS;
        private StalenessPolicy stalenessPolicy = StalenessPolicy.BYPASS_CACHE;
        private StalenessCheck stalenessCheck = StalenessCheck.SCHEDULED;
        private Duration stalenessCheckSlack;
        private boolean requireTopics = true;
        private int maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES;
        private Duration pollTimeout = Duration.ofMillis(100);
        private Duration positionCheckInterval = Duration.ofMillis(200);
        private String clientId = "cdc-invalidation";
        private final Map<String, Object> kafkaProperties = new LinkedHashMap<>();
        private KafkaSecurity kafkaSecurity = KafkaSecurity.plaintext();
        private final List<CacheDefinition> caches = new ArrayList<>();
        private MeterRegistry meterRegistry;
        private LongSupplier clock = System::currentTimeMillis;
        private Executor refreshExecutor = ForkJoinPool.commonPool();
        private final List<InvalidationListener> listeners = new ArrayList<>();
        private boolean commitLagByTable;
        private Duration maxClockSkew = DEFAULT_MAX_CLOCK_SKEW;
        private Duration awaitReady = Duration.ofSeconds(10);
        private Duration readYourWritesMaxWait = Duration.ofMillis(DEFAULT_READ_YOUR_WRITES_MAX_WAIT_MS);
        private int samplingOneIn;
        private int samplingMaxPerSecond = 10;
        private Duration samplingWindow = Duration.ofHours(1);
        private String healthStaleStatus = "DEGRADED";
        private String healthProblemStatus = "DOWN";

        private Builder() {
        }

        /** See {@link InvalidationClientConfig#maxClockSkew()}. */
        public Builder maxClockSkew(Duration maxClockSkew) {
            this.maxClockSkew = maxClockSkew;
            return this;
        }

        /** See {@link InvalidationClientConfig#samplingOneIn()}. */
        public Builder samplingOneIn(int oneIn) {
            this.samplingOneIn = oneIn;
            return this;
        }

        /** See {@link InvalidationClientConfig#samplingMaxPerSecond()}. */
        public Builder samplingMaxPerSecond(int maxPerSecond) {
            this.samplingMaxPerSecond = maxPerSecond;
            return this;
        }

        /** See {@link InvalidationClientConfig#samplingWindow()}. */
        public Builder samplingWindow(Duration window) {
            this.samplingWindow = window;
            return this;
        }

        /** See {@link InvalidationClientConfig#readYourWritesMaxWait()}. */
        public Builder readYourWritesMaxWait(Duration maxWait) {
            this.readYourWritesMaxWait = maxWait;
            return this;
        }

        /** See {@link InvalidationClientConfig#awaitReady()}. */
        public Builder awaitReady(Duration awaitReady) {
            this.awaitReady = awaitReady;
            return this;
        }

        /** See {@link InvalidationClientConfig#healthStaleStatus()}. */
        public Builder healthStaleStatus(String status) {
            this.healthStaleStatus = status;
            return this;
        }

        /** See {@link InvalidationClientConfig#healthProblemStatus()}. */
        public Builder healthProblemStatus(String status) {
            this.healthProblemStatus = status;
            return this;
        }

        /** See {@link InvalidationClientConfig#commitLagByTable()}. */
        public Builder commitLagByTable(boolean commitLagByTable) {
            this.commitLagByTable = commitLagByTable;
            return this;
        }

        public Builder bootstrapServers(String bootstrapServers) {
            this.bootstrapServers = bootstrapServers;
            return this;
        }

        public Builder topicPrefix(String topicPrefix) {
            this.topicPrefix = topicPrefix;
            return this;
        }

        /** Overrides the heartbeat topic (default {@code <prefix>.cdc_meta.heartbeat}). */
        public Builder heartbeatTopic(String heartbeatTopic) {
            this.heartbeatTopic = heartbeatTopic;
            return this;
        }

        public Builder heartbeatRequired(boolean heartbeatRequired) {
            this.heartbeatRequired = heartbeatRequired;
            return this;
        }

        public Builder maxStaleness(Duration maxStaleness) {
            this.maxStaleness = maxStaleness;
            return this;
        }

        public Builder stalenessPolicy(StalenessPolicy stalenessPolicy) {
            this.stalenessPolicy = stalenessPolicy;
            return this;
        }

        public Builder stalenessCheck(StalenessCheck stalenessCheck) {
            this.stalenessCheck = stalenessCheck;
            return this;
        }

        /** See {@link InvalidationClientConfig#stalenessCheckSlack()}; {@code null} for a quarter of max-staleness. */
        public Builder stalenessCheckSlack(Duration slack) {
            this.stalenessCheckSlack = slack;
            return this;
        }

        public Builder requireTopics(boolean requireTopics) {
            this.requireTopics = requireTopics;
            return this;
        }

        public Builder maxMessageBytes(int maxMessageBytes) {
            this.maxMessageBytes = maxMessageBytes;
            return this;
        }

        public Builder pollTimeout(Duration pollTimeout) {
            this.pollTimeout = pollTimeout;
            return this;
        }

        public Builder positionCheckInterval(Duration positionCheckInterval) {
            this.positionCheckInterval = positionCheckInterval;
            return this;
        }

        public Builder clientId(String clientId) {
            this.clientId = clientId;
            return this;
        }

        public Builder kafkaProperty(String name, Object value) {
            kafkaProperties.put(name, value);
            return this;
        }

        public Builder kafkaProperties(Map<String, ?> properties) {
            kafkaProperties.putAll(properties);
            return this;
        }

        /** How the client authenticates to Kafka and encrypts the connection (SASL/SCRAM, TLS). */
        public Builder kafkaSecurity(KafkaSecurity security) {
            this.kafkaSecurity = security;
            return this;
        }

        public Builder cache(CacheDefinition cache) {
            caches.add(cache);
            return this;
        }

        public Builder meterRegistry(MeterRegistry meterRegistry) {
            this.meterRegistry = meterRegistry;
            return this;
        }

        public Builder clock(LongSupplier epochMillis) {
            this.clock = epochMillis;
            return this;
        }

        public Builder refreshExecutor(Executor executor) {
            this.refreshExecutor = executor;
            return this;
        }

        public Builder listener(InvalidationListener listener) {
            listeners.add(listener);
            return this;
        }

        /** Validates and builds; throws {@link InvalidConfigurationException} naming the first wrong setting. */
        public InvalidationClientConfig build() {
            require(bootstrapServers != null && !bootstrapServers.isBlank(), "bootstrap-servers",
                    "is required (Kafka bootstrap servers, host:port[,host:port])");
            require(topicPrefix != null && TOPIC.matcher(topicPrefix).matches(), "topic-prefix",
                    "must be a Kafka topic name prefix (letters, digits, '.', '_', '-'), was '" + topicPrefix + "'");
            require(heartbeatTopic == null || TOPIC.matcher(heartbeatTopic).matches(), "heartbeat.topic",
                    "must be a Kafka topic name, was '" + heartbeatTopic + "'");
            require(maxStaleness != null && !maxStaleness.isNegative() && !maxStaleness.isZero(), "max-staleness",
                    "must be a positive duration such as 5s, was " + maxStaleness);
            require(stalenessPolicy != null, "on-staleness", "must be bypass-cache or serve-stale");
            require(stalenessCheck != null, "staleness-check", "must be every-hit or scheduled");
            Duration slack = stalenessCheckSlack != null ? stalenessCheckSlack : maxStaleness.dividedBy(4);
            require(stalenessCheck == StalenessCheck.EVERY_HIT
                    || (slack.toMillis() > 0 && slack.compareTo(maxStaleness) < 0), "staleness-check-slack",
                    "must be at least 1ms and shorter than max-staleness (" + maxStaleness + "), was " + slack
                            + (stalenessCheckSlack == null ? " (a quarter of max-staleness)" : ""));
            require(maxMessageBytes > 0, "max-message-size", "must be positive, was " + maxMessageBytes);
            require(pollTimeout != null && !pollTimeout.isNegative() && !pollTimeout.isZero(), "poll-timeout",
                    "must be a positive duration, was " + pollTimeout);
            require(positionCheckInterval != null && !positionCheckInterval.isNegative()
                    && !positionCheckInterval.isZero(), "position-check-interval",
                    "must be a positive duration, was " + positionCheckInterval);
            require(positionCheckInterval.compareTo(maxStaleness) < 0, "position-check-interval",
                    "must be shorter than max-staleness (" + maxStaleness + "), was " + positionCheckInterval);
            require(maxClockSkew != null && !maxClockSkew.isNegative() && maxClockSkew.compareTo(maxStaleness) < 0,
                    "max-clock-skew", "must be a duration from 0 up to below max-staleness (" + maxStaleness
                            + "), e.g. 250ms; was " + maxClockSkew);
            require(awaitReady != null && !awaitReady.isNegative(), "await-ready",
                    "must be a duration of 0 or more, was " + awaitReady);
            require(readYourWritesMaxWait != null && !readYourWritesMaxWait.isNegative()
                    && readYourWritesMaxWait.compareTo(MAX_READ_YOUR_WRITES_WAIT) <= 0, "read-your-writes.max-wait",
                    "must be a duration from 0 to " + MAX_READ_YOUR_WRITES_WAIT.toMillis() + "ms (it is spent on the"
                            + " read's path; a read that waits longer bypasses the cache anyway), was "
                            + readYourWritesMaxWait);
            require(samplingOneIn >= 0, "sampling.one-in",
                    "must be 0 (off) or a whole number of hits per sample such as 1000, was " + samplingOneIn);
            require(samplingMaxPerSecond >= 1, "sampling.max-per-second",
                    "must be at least 1 (it caps the re-reads sampling adds to the database), was "
                            + samplingMaxPerSecond);
            require(samplingWindow != null && samplingWindow.compareTo(maxStaleness) > 0, "sampling.window",
                    "must be longer than max-staleness (" + maxStaleness + "), e.g. 1h; was " + samplingWindow);
            require(healthStaleStatus != null && !healthStaleStatus.isBlank(), "health.stale-status",
                    "must name a health status such as DEGRADED or OUT_OF_SERVICE");
            require(healthProblemStatus != null && !healthProblemStatus.isBlank(), "health.problem-status",
                    "must name a health status such as DOWN or OUT_OF_SERVICE");
            require(kafkaSecurity != null, "kafka.security", "is required (KafkaSecurity.plaintext() for none)");
            for (SettingProblem problem : kafkaSecurity.problems("kafka.security.")) {
                throw new InvalidConfigurationException(problem.setting(), problem.problem());
            }
            for (String key : kafkaSecurity.clientProperties().keySet()) {
                require(!kafkaProperties.containsKey(key), "kafka.properties." + key,
                        "is also set by kafka.security; keep one (the typed kafka.security settings are preferred)");
            }
            Object isolation = kafkaProperties.get(ISOLATION_LEVEL);
            require(isolation == null || READ_COMMITTED.equalsIgnoreCase(isolation.toString().trim()),
                    "kafka.properties." + ISOLATION_LEVEL, "must be " + READ_COMMITTED + " (the default; remove the"
                            + " setting), was '" + isolation + "': read uncommitted, a heartbeat a transactional"
                            + " connector (Kafka Connect with exactly-once support) has written but not yet committed"
                            + " would prove changes applied that the client has not received");
            require(clock != null, "clock", "is required");
            require(refreshExecutor != null, "refresh-executor", "is required");
            Set<String> names = new HashSet<>();
            for (CacheDefinition cache : caches) {
                validate(cache);
                require(names.add(cache.name()), "caches." + cache.name(), "is defined twice");
            }
            return new InvalidationClientConfig(this);
        }

        private static void validate(CacheDefinition cache) {
            String name = cache.name();
            require(name != null && !name.isBlank(), "caches", "a cache needs a non-blank name");
            String at = "caches." + name;
            require(!cache.mixedForms(), at, "use either table/key-columns/evict or sources, not both");
            require(!cache.sources().isEmpty(), at + ".table",
                    "is required: the table (database.table) whose changes evict this cache, or a list of sources");
            require(cache.keyType() != null, at + ".key-type", "is required");
            for (int i = 0; i < cache.sources().size(); i++) {
                SourceDefinition source = cache.sources().get(i);
                String s = cache.sourceSetting(i);
                require(source.table() != null && TABLE.matcher(source.table()).matches(), s + ".table",
                        "must be database.table (e.g. coupon_db.coupon), was '" + source.table() + "'");
                if (source.evictAll()) {
                    require(source.keyColumns().isEmpty(), s + ".key-columns",
                            "must be empty when evict is 'all' (every change evicts the whole cache)");
                } else {
                    require(!source.keyColumns().isEmpty(), s + ".key-columns",
                            "is required: the column(s) the cache key is made of, or set evict: all");
                    for (String column : source.keyColumns()) {
                        require(column != null && !column.isBlank(), s + ".key-columns", "contains a blank column name");
                    }
                    boolean single = cache.keyType() == KeyType.LONG || cache.keyType() == KeyType.INTEGER
                            || cache.keyType() == KeyType.STRING;
                    require(!single || source.keyColumns().size() == 1, at + ".key-type",
                            cache.keyType().name().toLowerCase() + " keys are made of one column, but "
                                    + s + ".key-columns has " + source.keyColumns().size()
                                    + "; use key-type composite");
                }
                require(source.topic() == null || TOPIC.matcher(source.topic()).matches(), s + ".topic",
                        "must be a Kafka topic name, was '" + source.topic() + "'");
            }
            require(cache.keyNormalization() != null, at + ".key-normalization", "must be none, lower-case or upper-case");
            if (cache.keyNormalization() != KeyNormalization.NONE) {
                require(cache.keyType() == KeyType.AUTO || cache.keyType() == KeyType.STRING, at + ".key-normalization",
                        "applies to text keys, but key-type is " + cache.keyType().name().toLowerCase()
                                + "; remove key-normalization or use key-type string");
                require(cache.sources().stream().allMatch(source -> source.evictAll() || source.keyColumns().size() == 1),
                        at + ".key-normalization", "applies to keys of one column; a composite key's text components"
                                + " must be normalised by the application");
            }
            Set<Integer> arities = new HashSet<>();
            cache.sources().stream().filter(source -> !source.evictAll())
                    .forEach(source -> arities.add(source.keyColumns().size()));
            require(arities.size() <= 1, at + ".sources",
                    "every source must have the same number of key columns, as they build keys of one cache");
            String spec = cache.spec();
            require(spec != null, at + ".spec", "is required (Caffeine specification, e.g. maximumSize=10000)");
            CaffeineSpec parsed;
            try {
                parsed = CaffeineSpec.parse(spec);
            } catch (IllegalArgumentException e) {
                throw new InvalidConfigurationException(at + ".spec",
                        "is not a valid Caffeine specification ('" + spec + "'): " + e.getMessage());
            }
            require(!spec.contains("refreshAfterWrite"), at + ".spec",
                    "must not use refreshAfterWrite; use refresh-ahead, which keeps the no-stale-populate guarantee");
            require(!spec.contains("weakKeys"), at + ".spec",
                    "must not use weakKeys: keys are compared with equals() to the keys change events evict");
            require(!spec.contains("weakValues") && !spec.contains("softValues"), at + ".spec",
                    "must not use weakValues/softValues");
            require(parsed != null, at + ".spec", "is not valid");
            double refresh = cache.refreshAhead();
            require(refresh == 0 || (refresh > 0 && refresh < 1), at + ".refresh-ahead",
                    "must be a fraction between 0 and 1 (exclusive) of expireAfterWrite, or 0 for off; was " + refresh);
            require(refresh == 0 || ExpireAfterWrite.of(spec) != null, at + ".refresh-ahead",
                    "needs expireAfterWrite in " + at + ".spec");
            require(cache.compositeKeyFactory() != null, at + ".composite-key-factory", "is required");
        }

        private static void require(boolean condition, String setting, String problem) {
            if (!condition) {
                throw new InvalidConfigurationException(setting, problem);
            }
        }
    }

    /** Reads {@code expireAfterWrite} out of a Caffeine specification (CaffeineSpec has no public getter). */
    static final class ExpireAfterWrite {
        private ExpireAfterWrite() {
        }

        static Duration of(String spec) {
            for (String option : spec.split(",")) {
                String[] kv = option.trim().split("=", 2);
                if (kv.length == 2 && kv[0].trim().equals("expireAfterWrite")) {
                    return parse(kv[1].trim());
                }
            }
            return null;
        }

        private static Duration parse(String value) {
            if (value.startsWith("P") || value.startsWith("p")) {
                return Duration.parse(value);
            }
            long amount = Long.parseLong(value.substring(0, value.length() - 1));
            return switch (Character.toLowerCase(value.charAt(value.length() - 1))) {
                case 'd' -> Duration.ofDays(amount);
                case 'h' -> Duration.ofHours(amount);
                case 'm' -> Duration.ofMinutes(amount);
                case 's' -> Duration.ofSeconds(amount);
                default -> throw new IllegalArgumentException("unknown unit in " + value);
            };
        }
    }
}
