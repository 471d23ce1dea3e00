package dev.cdccache.client.spring;

import dev.cdccache.client.Evict;
import dev.cdccache.client.KeyNormalization;
import dev.cdccache.client.KeyType;
import dev.cdccache.client.StalenessCheck;
import dev.cdccache.client.StalenessPolicy;
import dev.cdccache.client.settings.ClientSettings;
import dev.cdccache.contract.KafkaSecurity;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.util.unit.DataSize;

/**
 * The settings of the CDC invalidation client ({@code cdc.invalidation.*}) as Spring Boot binds them: the shape of
 * the client's settings for binding, IDE completion and Actuator's {@code /configprops}, and nothing else. A setting
 * left out is {@code null}; its default, its rules and the conversion into the client's configuration are the
 * core's ({@link ClientSettings}, through {@link #flatSettings()}), the same for every front end. docs/client.md,
 * "Settings", documents each setting and its default.
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
 * <p>Binding is strict: a key under {@code cdc.invalidation} that is no setting (a misspelled {@code max-stalenes},
 * an unknown key inside a cache entry) fails start-up naming the key and the closest valid one
 * ({@link UnknownSettingFailureAnalyzer}), instead of silently leaving a default in force. Only
 * {@code kafka.properties.*} is free-form (it is passed to the Kafka consumer).
 *
 * @param enabled whether to auto-configure the invalidation client, its CacheManager and health indicator
 * @param bootstrapServers Kafka bootstrap servers the connector writes to, host:port[,host:port]; required
 * @param topicPrefix the connector's topic prefix: topics are named {prefix}.{database}.{table}
 * @param maxStaleness bound on staleness: while the client cannot show that it has applied every change committed
 *        up to this long ago (connector stopped, Kafka unreachable, consumer stuck), entries read from the database
 *        earlier than this are not served (see on-staleness); must exceed the heartbeat interval plus pipeline latency
 * @param onStaleness what to do with entries older than max-staleness while freshness cannot be shown
 * @param stalenessCheck how a cache hit checks max-staleness: scheduled (the default) compares with a threshold that
 *        the ticker thread, the consumer thread and loads keep current, reading no clock, and the bound holds as long
 *        as one of them recomputes it within staleness-check-slack; every-hit reads the clock on every hit, so the
 *        bound holds whatever the scheduler does, at several times the cost of a hit
 * @param stalenessCheckSlack with staleness-check scheduled, how late the threshold may be recomputed before the bound
 *        can be exceeded; while the client cannot show it is fresh, entries are served for max-staleness minus this
 * @param requireTopics whether a subscribed topic that does not exist counts as "cannot prove freshness" (health
 *        names the missing topics); turn off only where topics appear with their first change
 * @param maxMessageSize largest change-event value parsed; bigger values evict every cache bound to their table
 * @param pollTimeout how long the Kafka consumer waits for records in one poll
 * @param positionCheckInterval how often the consumer compares its position with the log end and looks for new
 *        topics
 * @param awaitReady how long application start-up waits for the client to be ready (positioned at the log end);
 *        start-up continues after it either way, and caches do not fill until the client is ready
 * @param maxClockSkew how far a connector's database clock may be measurably ahead of this host's before health
 *        reports CLOCK_SKEW; a heartbeat proves freshness only up to this host's time minus the measured skew
 * @param clientId Kafka client id prefix, also the 'client' tag of the metrics
 * @param commitLagByTable also record cdc.client.commit.lag per table from each change's source.ts_ms (one-second
 *        resolution on MariaDB; the lag to watch is cdc.client.invalidation.lag)
 * @param heartbeat the connector's heartbeats
 * @param kafka the Kafka consumer
 * @param health the health indicator
 * @param replica loads from read replicas
 * @param readYourWrites reads on this instance after a write through it see the write
 * @param sampling consistency sampling: re-reads a share of cache hits off the request path and compares them
 * @param caches the caches, by name (the name used in @Cacheable and CdcCacheManager#invalidatingCache)
 */
@ConfigurationProperties(prefix = "cdc.invalidation", ignoreUnknownFields = false)
public record CdcInvalidationProperties(Boolean enabled, String bootstrapServers, String topicPrefix,
        Duration maxStaleness, StalenessPolicy onStaleness, StalenessCheck stalenessCheck, Duration stalenessCheckSlack,
        Boolean requireTopics, DataSize maxMessageSize, Duration pollTimeout, Duration positionCheckInterval,
        Duration awaitReady, Duration maxClockSkew, String clientId, Boolean commitLagByTable, Heartbeat heartbeat,
        Kafka kafka, Health health, Replica replica, ReadYourWrites readYourWrites, Sampling sampling,
        Map<String, Cache> caches) {

    /**
     * The connector's heartbeats.
     *
     * @param topic topic of the connector's heartbeat table; {prefix}.cdc_meta.heartbeat unless set
     * @param required whether freshness requires heartbeats; without them a stopped connector cannot be told from a
     *        quiet database, so only turn this off if the connector runs no heartbeat
     */
    public record Heartbeat(String topic, Boolean required) {
    }

    /**
     * The Kafka consumer.
     *
     * @param security authentication (SASL/SCRAM) and encryption (TLS) of the connection to Kafka; secrets can come
     *        from the environment (CDC_INVALIDATION_KAFKA_SECURITY_SASL_PASSWORD) or files
     *        (spring.config.import=configtree:...)
     * @param properties extra Kafka consumer properties (e.g. ssl.cipher.suites); group.id is ignored, every instance
     *        reads every partition itself; a property kafka.security produces may not be repeated here
     */
    public record Kafka(
            // A record of another module: the annotation lists its settings in the IDE metadata.
            @NestedConfigurationProperty KafkaSecurity security, Map<String, String> properties) {
    }

    /**
     * The health indicator.
     *
     * @param staleStatus status while the client is not ready or cannot show it is within max-staleness, for a
     *        reason that clears by itself; DEGRADED unless set, which the default status order ignores, so it shows
     *        in the component without taking the application out of service
     * @param problemStatus status while a problem needs an operator (a subscribed topic that does not exist, a table
     *        no connector heartbeat covers); DOWN unless set, so a readiness group that includes cdcInvalidation
     *        keeps a misconfigured instance out of rotation
     */
    public record Health(String staleStatus, String problemStatus) {
    }

    /**
     * Loads from read replicas.
     *
     * @param dataSources bean names of the DataSources that read a replica: every connection they hand out first
     *        waits, up to wait-timeout, until that replica has applied every change the client has invalidated; if it
     *        has not, what is loaded through it is served but not cached (one replica server per DataSource)
     * @param waitTimeout how long a checkout waits for the replica before its reads are served uncached
     */
    public record Replica(List<String> dataSources, Duration waitTimeout) {
    }

    /**
     * Read-your-writes by commit position.
     *
     * @param enabled after each committed read-write Spring transaction, read the server's commit position on its
     *        connection (MariaDB @@last_gtid) and make it this instance's read floor: later cache reads on this
     *        instance are served only once the cache has proven that position applied; false unless set
     * @param maxWait how long a cache hit under a read floor not yet proven applied waits before it bypasses the
     *        cache (reads the database, stores nothing); 5ms unless set, at most 5s
     * @param positionHeader servlet applications: a request's Cdc-Position header is its request floor, and a
     *        response carries the position its request's transactions wrote (with enabled); false unless set
     */
    public record ReadYourWrites(Boolean enabled, Duration maxWait, Boolean positionHeader) {
    }

    /**
     * Consistency sampling: a share of the cache hits served through a loader (get with a value loader, e.g.
     * {@code @Cacheable(sync = true)}) is re-read through that loader on a background thread and compared with the
     * cached value; results in cdc.client.consistency.* metrics and the consistency-stale health problem.
     *
     * @param oneIn re-read one hit in this many, on average; 0 (the default) is off and costs nothing
     * @param maxPerSecond at most this many re-reads a second over all caches: the extra database load; 10 unless set
     * @param window the span the consistency nines and the stale health problem look back over; 1h unless set
     */
    public record Sampling(Integer oneIn, Integer maxPerSecond, Duration window) {
    }

    /**
     * One cache: either fed by one table, whose settings (table, key-columns, evict, topic) are on the cache itself,
     * or by a list of sources.
     *
     * @param table the table (database.table) whose changes evict the cache
     * @param keyColumns the column(s) the cache key is made of, in key order
     * @param evict keys evicts the row's keys; all evicts the whole cache on any change (lists, aggregates)
     * @param topic the topic to read instead of {prefix}.{database}.{table}
     * @param keyType Java type of the keys: auto (Long for an integer column, String for text; several columns:
     *        composite), long, integer, string or composite (Spring's SimpleKey of the column values, which is what
     *        @Cacheable builds for a method with several parameters)
     * @param keyNormalization how text keys are normalised on lookups and on keys derived from events: none,
     *        lower-case or upper-case; lower-case for a column with a case-insensitive collation (MariaDB's default)
     * @param spec Caffeine specification, e.g. maximumSize=100000,expireAfterWrite=10m
     * @param cacheNulls whether "no such row" (a null load result) is cached; an insert of the key evicts it
     * @param refreshAhead fraction of expireAfterWrite after which a hit starts one asynchronous reload while serving
     *        the cached value (0 = off); applies to get(key, loader) and @Cacheable(sync = true)
     * @param sampled whether consistency sampling (sampling.one-in) re-reads hits of this cache, for @Cacheable by
     *        calling the method again; false for methods that must not run again unasked (side effects, request
     *        scope) or values without a meaningful equals; true unless set
     * @param sources several tables feeding this cache (for values built from several tables)
     */
    public record Cache(String table, List<String> keyColumns, Evict evict, String topic, KeyType keyType,
            KeyNormalization keyNormalization, String spec, Boolean cacheNulls, Double refreshAhead, Boolean sampled,
            List<Source> sources) {
    }

    /**
     * One table feeding a cache.
     *
     * @param table the table (database.table) whose changes evict the cache
     * @param keyColumns the column(s) the cache key is made of, in key order
     * @param evict keys evicts the row's keys; all evicts the whole cache on any change
     * @param topic the topic to read instead of {prefix}.{database}.{table}
     */
    public record Source(String table, List<String> keyColumns, Evict evict, String topic) {
    }

    /**
     * Every setting given, as flat {@code cdc.invalidation.*} keys and the values Spring Boot bound: what
     * {@link ClientSettings#read} reads, and what a service hands to another front end of the same settings (the
     * Hibernate second-level cache reads them from Hibernate's configuration values). Settings left out are absent,
     * so they take the core's defaults.
     */
    public Map<String, Object> flatSettings() {
        Map<String, Object> flat = new LinkedHashMap<>();
        flatten(ClientSettings.PREFIX.substring(0, ClientSettings.PREFIX.length() - 1), this, flat);
        return flat;
    }

    /** Flattens by the shape of the records, so that a component added to a record is passed on without more code. */
    private static void flatten(String key, Object value, Map<String, Object> flat) {
        if (value == null) {
            return;
        }
        if (value instanceof Record record) {
            for (RecordComponent component : record.getClass().getRecordComponents()) {
                flatten(key + "." + dashed(component.getName()), valueOf(component, record), flat);
            }
        } else if (value instanceof Map<?, ?> map) {
            map.forEach((name, entry) -> flatten(key + "." + (entry instanceof Record && name.toString().contains(".")
                    ? "[" + name + "]" : name), entry, flat));
        } else if (value instanceof List<?> list && !list.isEmpty() && list.get(0) instanceof Record) {
            for (int i = 0; i < list.size(); i++) {
                flatten(key + "[" + i + "]", list.get(i), flat);
            }
        } else {
            flat.put(key, value instanceof DataSize size ? size.toBytes() : value);
        }
    }

    private static Object valueOf(RecordComponent component, Record record) {
        try {
            return component.getAccessor().invoke(record);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot read " + component, e);
        }
    }

    private static String dashed(String camel) {
        StringBuilder out = new StringBuilder();
        for (char c : camel.toCharArray()) {
            if (Character.isUpperCase(c)) {
                out.append('-').append(Character.toLowerCase(c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
