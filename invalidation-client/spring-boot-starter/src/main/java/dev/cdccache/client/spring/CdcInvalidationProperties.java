package dev.cdccache.client.spring;

import dev.cdccache.client.KeyNormalization;
import dev.cdccache.client.KeyType;
import dev.cdccache.client.StalenessCheck;
import dev.cdccache.client.StalenessPolicy;
import dev.cdccache.contract.ChangeTopics;
import dev.cdccache.contract.KafkaSecurity;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Settings of the CDC invalidation client ({@code cdc.invalidation.*}).
 *
 * <pre>
 * cdc:
 *   invalidation:
 *     bootstrap-servers: localhost:9092
 *     caches:
 *       coupons:       { table: coupon_db.coupon, key-columns: [id], spec: "maximumSize=100000" }
 *       couponsByCode: { table: coupon_db.coupon, key-columns: [code] }
 *       couponStats:   { table: coupon_db.coupon, evict: all }
 * </pre>
 *
 * <p>Binding is strict: a key under {@code cdc.invalidation} that this class does not know (a misspelled
 * {@code max-stalenes} or {@code topic-prefx}, an unknown key inside a cache entry) fails start-up naming the key
 * and the closest valid one ({@link UnknownSettingFailureAnalyzer}), instead of silently leaving a default in
 * force. Only {@code kafka.properties.*} is free-form (it is passed to the Kafka consumer).
 */
@ConfigurationProperties(prefix = "cdc.invalidation", ignoreUnknownFields = false)
public class CdcInvalidationProperties {

    /** Whether to auto-configure the invalidation client, its CacheManager and health indicator. */
    private boolean enabled = true;

    /** Kafka bootstrap servers the connector writes to, host:port[,host:port]. Required. */
    private String bootstrapServers;

    /** The connector's topic prefix: topics are named {prefix}.{database}.{table}. */
    private String topicPrefix = ChangeTopics.DEFAULT_PREFIX;

    /**
     * Bound on staleness: when the client cannot show that it has applied every change committed up to this
     * long ago (connector stopped, Kafka unreachable, consumer stuck), entries read from the database earlier
     * than this are not served (see on-staleness). Must exceed the heartbeat interval plus pipeline latency.
     */
    private Duration maxStaleness = Duration.ofSeconds(5);

    /** What to do with entries older than max-staleness while freshness cannot be shown. */
    private StalenessPolicy onStaleness = StalenessPolicy.BYPASS_CACHE;

    /**
     * How a cache hit checks max-staleness. every-hit (the default) reads the clock on every hit, so the bound
     * holds whatever the scheduler does. scheduled lets a background thread precompute the check, saving that
     * clock read (most of a hit's cost on virtual machines); the bound then holds as long as that
     * thread never runs later than staleness-check-slack (late runs are counted in
     * cdc.client.staleness.check.overruns).
     */
    private StalenessCheck stalenessCheck = StalenessCheck.EVERY_HIT;

    /**
     * With staleness-check: scheduled, how late the background check may run before the bound can be exceeded.
     * While the client cannot show it is fresh, entries are then served for max-staleness minus this. Defaults
     * to a quarter of max-staleness.
     */
    private Duration stalenessCheckSlack;

    /**
     * Whether a subscribed topic that does not exist (yet) counts as "cannot prove freshness". On by default: a
     * cache bound to a topic nobody writes (misspelled topic-prefix or table, a table the connector does not
     * capture) would otherwise look fresh forever. Health names the missing topics (status health.problem-status).
     * Turn off only where topics appear with their first change (Kafka Connect without a snapshot).
     */
    private boolean requireTopics = true;

    /** Largest change-event value parsed; bigger values evict every cache bound to their table. */
    private DataSize maxMessageSize = DataSize.ofMegabytes(1);

    /** How long the Kafka consumer waits for records in one poll. */
    private Duration pollTimeout = Duration.ofMillis(100);

    /** How often the consumer compares its position with the log end and looks for new topics. */
    private Duration positionCheckInterval = Duration.ofMillis(200);

    /**
     * How long application start-up waits for the client to be ready (positioned at the log end). Start-up
     * continues after it either way; caches do not fill until the client is ready.
     */
    private Duration awaitReady = Duration.ofSeconds(10);

    /** Kafka client id prefix (also the 'client' tag of the metrics). */
    private String clientId = "cdc-invalidation";

    /**
     * Also record cdc.client.commit.lag per table from each change's source.ts_ms. Off by default: MariaDB
     * records that commit time with one-second resolution; the lag to watch is cdc.client.invalidation.lag.
     */
    private boolean commitLagByTable = false;

    /** Connector heartbeat settings. */
    private final Heartbeat heartbeat = new Heartbeat();

    /** Kafka consumer settings. */
    private final Kafka kafka = new Kafka();

    /** Health indicator settings. */
    private final Health health = new Health();

    /** The caches, by name (the name used in @Cacheable and CdcCacheManager#invalidatingCache). */
    private Map<String, Cache> caches = new LinkedHashMap<>();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getBootstrapServers() {
        return bootstrapServers;
    }

    public void setBootstrapServers(String bootstrapServers) {
        this.bootstrapServers = bootstrapServers;
    }

    public String getTopicPrefix() {
        return topicPrefix;
    }

    public void setTopicPrefix(String topicPrefix) {
        this.topicPrefix = topicPrefix;
    }

    public Duration getMaxStaleness() {
        return maxStaleness;
    }

    public void setMaxStaleness(Duration maxStaleness) {
        this.maxStaleness = maxStaleness;
    }

    public StalenessPolicy getOnStaleness() {
        return onStaleness;
    }

    public void setOnStaleness(StalenessPolicy onStaleness) {
        this.onStaleness = onStaleness;
    }

    public StalenessCheck getStalenessCheck() {
        return stalenessCheck;
    }

    public void setStalenessCheck(StalenessCheck stalenessCheck) {
        this.stalenessCheck = stalenessCheck;
    }

    public Duration getStalenessCheckSlack() {
        return stalenessCheckSlack;
    }

    public void setStalenessCheckSlack(Duration stalenessCheckSlack) {
        this.stalenessCheckSlack = stalenessCheckSlack;
    }

    public boolean isRequireTopics() {
        return requireTopics;
    }

    public void setRequireTopics(boolean requireTopics) {
        this.requireTopics = requireTopics;
    }

    public DataSize getMaxMessageSize() {
        return maxMessageSize;
    }

    public void setMaxMessageSize(DataSize maxMessageSize) {
        this.maxMessageSize = maxMessageSize;
    }

    public Duration getPollTimeout() {
        return pollTimeout;
    }

    public void setPollTimeout(Duration pollTimeout) {
        this.pollTimeout = pollTimeout;
    }

    public Duration getPositionCheckInterval() {
        return positionCheckInterval;
    }

    public void setPositionCheckInterval(Duration positionCheckInterval) {
        this.positionCheckInterval = positionCheckInterval;
    }

    public Duration getAwaitReady() {
        return awaitReady;
    }

    public void setAwaitReady(Duration awaitReady) {
        this.awaitReady = awaitReady;
    }

    public String getClientId() {
        return clientId;
    }

    public void setClientId(String clientId) {
        this.clientId = clientId;
    }

    public boolean isCommitLagByTable() {
        return commitLagByTable;
    }

    public void setCommitLagByTable(boolean commitLagByTable) {
        this.commitLagByTable = commitLagByTable;
    }

    public Heartbeat getHeartbeat() {
        return heartbeat;
    }

    public Kafka getKafka() {
        return kafka;
    }

    public Health getHealth() {
        return health;
    }

    public Map<String, Cache> getCaches() {
        return caches;
    }

    public void setCaches(Map<String, Cache> caches) {
        this.caches = caches;
    }

    /** How a change evicts a cache's entries. */
    public enum Evict {
        /** Evict the entries whose keys are made of the row's key columns (before and after the change). */
        KEYS,
        /** Evict every entry of the cache on any change of the table. */
        ALL
    }

    /** Heartbeat settings. */
    public static class Heartbeat {

        /** Topic of the connector's heartbeat table; default {prefix}.cdc_meta.heartbeat. */
        private String topic;

        /**
         * Whether freshness requires heartbeats. Without them a stopped connector cannot be told from a
         * quiet database, so only turn this off if the connector runs no heartbeat.
         */
        private boolean required = true;

        public String getTopic() {
            return topic;
        }

        public void setTopic(String topic) {
            this.topic = topic;
        }

        public boolean isRequired() {
            return required;
        }

        public void setRequired(boolean required) {
            this.required = required;
        }
    }

    /** Kafka consumer settings. */
    public static class Kafka {

        /**
         * Authentication (SASL/SCRAM) and encryption (TLS) of the connection to Kafka. Secrets can come from the
         * environment ({@code CDC_INVALIDATION_KAFKA_SECURITY_SASL_PASSWORD}) or files
         * ({@code spring.config.import=configtree:...}).
         */
        private KafkaSecurity security = KafkaSecurity.plaintext();

        /**
         * Extra Kafka consumer properties (e.g. ssl.cipher.suites). group.id is ignored: every instance reads every
         * partition itself. A property kafka.security produces may not be repeated here.
         */
        private Map<String, String> properties = new LinkedHashMap<>();

        public KafkaSecurity getSecurity() {
            return security;
        }

        public void setSecurity(KafkaSecurity security) {
            this.security = security;
        }

        public Map<String, String> getProperties() {
            return properties;
        }

        public void setProperties(Map<String, String> properties) {
            this.properties = properties;
        }
    }

    /** Health indicator settings. */
    public static class Health {

        /**
         * Status reported while the client is not ready or cannot show it is within max-staleness. The default,
         * DEGRADED, is not part of the default status order, so it shows in the component without taking the
         * application out of service; use OUT_OF_SERVICE to make it count.
         */
        private String staleStatus = "DEGRADED";

        /**
         * Status reported while a problem needs an operator to clear it: a subscribed topic that does not exist, a
         * table no connector heartbeat covers, a stopped consumer. DOWN by default, so a readiness group that
         * includes cdcInvalidation keeps a misconfigured instance out of rotation.
         */
        private String problemStatus = "DOWN";

        public String getStaleStatus() {
            return staleStatus;
        }

        public void setStaleStatus(String staleStatus) {
            this.staleStatus = staleStatus;
        }

        public String getProblemStatus() {
            return problemStatus;
        }

        public void setProblemStatus(String problemStatus) {
            this.problemStatus = problemStatus;
        }
    }

    /**
     * One cache. Either the short form, a single source's settings (table, key-columns or evict, topic) on the
     * cache itself, or a list of sources.
     */
    public static class Cache extends Source {

        /**
         * Java type of the keys: auto (Long for an integer column, String for text; several columns: composite),
         * long, integer, string or composite (Spring's SimpleKey of the column values, which is what @Cacheable
         * builds for a method with several parameters).
         */
        private KeyType keyType = KeyType.AUTO;

        /**
         * How text keys are normalised on lookups and on keys derived from events: none (default), lower-case or
         * upper-case. Use lower-case for a column with a case-insensitive collation (MariaDB's default), where
         * 'abc10' and 'ABC10' are the same row: otherwise a "not found" cached under one spelling survives the
         * insert of the other. One-column text keys only.
         */
        private KeyNormalization keyNormalization = KeyNormalization.NONE;

        /** Caffeine specification, e.g. maximumSize=100000,expireAfterWrite=10m. */
        private String spec = dev.cdccache.client.CacheDefinition.DEFAULT_SPEC;

        /** Whether "no such row" (a null load result) is cached; an insert of the key evicts it. */
        private boolean cacheNulls = true;

        /**
         * Fraction of expireAfterWrite after which a hit starts one asynchronous reload while serving the cached
         * value (0 = off). Applies to loads through get(key, loader) and @Cacheable(sync = true).
         */
        private double refreshAhead = 0;

        /** Several tables feeding this cache (for values built from several tables). */
        private List<Source> sources = new ArrayList<>();

        public KeyType getKeyType() {
            return keyType;
        }

        public void setKeyType(KeyType keyType) {
            this.keyType = keyType;
        }

        public KeyNormalization getKeyNormalization() {
            return keyNormalization;
        }

        public void setKeyNormalization(KeyNormalization keyNormalization) {
            this.keyNormalization = keyNormalization;
        }

        public String getSpec() {
            return spec;
        }

        public void setSpec(String spec) {
            this.spec = spec;
        }

        public boolean isCacheNulls() {
            return cacheNulls;
        }

        public void setCacheNulls(boolean cacheNulls) {
            this.cacheNulls = cacheNulls;
        }

        public double getRefreshAhead() {
            return refreshAhead;
        }

        public void setRefreshAhead(double refreshAhead) {
            this.refreshAhead = refreshAhead;
        }

        public List<Source> getSources() {
            return sources;
        }

        public void setSources(List<Source> sources) {
            this.sources = sources;
        }
    }

    /** One table feeding a cache. */
    public static class Source {

        /** The table (database.table) whose changes evict the cache. */
        private String table;

        /** The column(s) the cache key is made of, in key order. */
        private List<String> keyColumns = new ArrayList<>();

        /** 'keys' (default) evicts the row's keys, 'all' evicts the whole cache on any change. */
        private Evict evict = Evict.KEYS;

        /** The topic to read instead of {prefix}.{database}.{table}. */
        private String topic;

        public String getTable() {
            return table;
        }

        public void setTable(String table) {
            this.table = table;
        }

        public List<String> getKeyColumns() {
            return keyColumns;
        }

        public void setKeyColumns(List<String> keyColumns) {
            this.keyColumns = keyColumns;
        }

        public Evict getEvict() {
            return evict;
        }

        public void setEvict(Evict evict) {
            this.evict = evict;
        }

        public String getTopic() {
            return topic;
        }

        public void setTopic(String topic) {
            this.topic = topic;
        }
    }
}
