package dev.cdccache.client;

import com.github.benmanes.caffeine.cache.Caffeine;
import dev.cdccache.client.cache.CaffeineInvalidatingCache;
import dev.cdccache.client.cache.ConsistencySampler;
import dev.cdccache.client.cache.KeyNormalizingCache;
import dev.cdccache.client.consuming.ChangeConsumer;
import dev.cdccache.client.consuming.TopicPolicies;
import dev.cdccache.client.eviction.CacheBinding;
import dev.cdccache.client.eviction.EvictionRouter;
import dev.cdccache.client.keymapping.KeyMapper;
import dev.cdccache.client.metrics.BadInputLog;
import dev.cdccache.client.metrics.ClientMetrics;
import dev.cdccache.client.metrics.ErrorReason;
import dev.cdccache.client.position.AppliedPositions;
import dev.cdccache.client.position.ProvenPositions;
import dev.cdccache.client.position.ReadYourWrites;
import dev.cdccache.client.staleness.CacheFreshness;
import dev.cdccache.client.staleness.FreshnessProblem;
import dev.cdccache.client.staleness.StalenessGuard;
import dev.cdccache.client.staleness.StalenessStatus;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a set of Caffeine caches consistent with the database by consuming the connector's change topics.
 *
 * <pre>{@code
 * InvalidationClient client = new InvalidationClient(InvalidationClientConfig.builder()
 *         .bootstrapServers("localhost:9092")
 *         .cache(CacheDefinition.builder("coupons").table("coupon_db.coupon").keyColumns("id").build())
 *         .build());
 * client.start();
 * client.awaitReady(Duration.ofSeconds(10));
 * InvalidatingCache<Long, Coupon> coupons = client.cache("coupons");
 * Coupon c = coupons.get(42L, id -> repository.find(id));
 * }</pre>
 *
 * <p><b>Lifecycle.</b> The caches exist from construction and can be used at once, but nothing is cached
 * until the client is {@linkplain #isReady() ready}: started, and positioned at the end of every partition
 * of its topics (loads pass through meanwhile). {@link #close()} stops the consumer. Thread-safe.
 */
public final class InvalidationClient implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(InvalidationClient.class);
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final InvalidationClientConfig config;
    private final String instanceId;
    private final StalenessGuard guard;
    private final ClientMetrics metrics;
    private final Map<String, CaffeineInvalidatingCache<Object, Object>> caches;
    /** What applications get: the caches, with key normalisation where configured. */
    private final Map<String, InvalidatingCache<Object, Object>> views;
    private final EvictionRouter router;
    private final AppliedPositions positions = new AppliedPositions();
    private final ProvenPositions proven;
    private final ReadYourWrites readYourWrites;
    private final Map<String, StalenessGuard> cacheGuards;
    private final List<CacheFreshness> freshness;
    /** Re-reads a share of cache hits to measure consistency; {@code null} when sampling is off. */
    private final ConsistencySampler sampler;
    private final Function<Map<String, Object>, Consumer<byte[], byte[]>> consumerFactory;
    private final Function<Map<String, Object>, TopicPolicies> topicPoliciesFactory;
    private final CountDownLatch readyLatch = new CountDownLatch(1);
    private final Object lifecycle = new Object();
    private ChangeConsumer changeConsumer;
    private Thread consumerThread;
    private ScheduledExecutorService stalenessTicker;
    private boolean closed;

    /** Creates the caches; throws {@link InvalidConfigurationException} if the configuration cannot work. */
    public InvalidationClient(InvalidationClientConfig config) {
        this(config, KafkaConsumer::new);
    }

    /**
     * Creates the client with a custom Kafka consumer factory (instrumentation, tests with Kafka's
     * {@code MockConsumer}). The factory receives the consumer properties the client needs (byte-array
     * deserializers, no group, no auto commit, {@code auto.offset.reset=none}) and must honour them. The change
     * topics' {@code cleanup.policy} is read by a Kafka admin client made from the same properties
     * ({@link TopicPolicies#admin}).
     */
    public InvalidationClient(InvalidationClientConfig config,
            Function<Map<String, Object>, Consumer<byte[], byte[]>> consumerFactory) {
        this(config, consumerFactory, props -> TopicPolicies.admin(props, config.maxStaleness().toMillis()));
    }

    /**
     * Creates the client with custom factories of the Kafka consumer and of the lookups of the change topics'
     * {@code cleanup.policy} (tests without a broker). Both receive the same properties (see
     * {@link #InvalidationClient(InvalidationClientConfig, Function)}).
     */
    public InvalidationClient(InvalidationClientConfig config,
            Function<Map<String, Object>, Consumer<byte[], byte[]>> consumerFactory,
            Function<Map<String, Object>, TopicPolicies> topicPoliciesFactory) {
        this.config = config;
        this.consumerFactory = consumerFactory;
        this.topicPoliciesFactory = topicPoliciesFactory;
        this.instanceId = config.clientId() + "-" + INSTANCES.incrementAndGet();
        this.guard = newGuard(config);
        this.metrics = new ClientMetrics(config.meterRegistry(), instanceId, guard, config.commitLagByTable());
        Map<String, List<String>> topicsByCache = new LinkedHashMap<>();
        for (CacheDefinition definition : config.caches()) {
            topicsByCache.put(definition.name(),
                    definition.sources().stream().map(source -> source.topic(config.topicPrefix())).toList());
        }
        this.proven = new ProvenPositions(topicsByCache);
        this.readYourWrites = proven.readYourWrites(config.readYourWritesMaxWait(), metrics);
        this.sampler = config.samplingOneIn() == 0 ? null : new ConsistencySampler(new ConsistencySampler.Settings(
                config.samplingOneIn(), config.samplingMaxPerSecond(), config.maxStaleness(), config.samplingWindow(),
                java.util.Objects::deepEquals), config.clock(), ConsistencySampler.Listener.NONE);
        Map<String, CaffeineInvalidatingCache<Object, Object>> built = new LinkedHashMap<>();
        Map<String, List<CacheBinding>> bindings = new HashMap<>();
        List<CacheFreshness> freshness = new ArrayList<>();
        Map<String, StalenessGuard> guards = new LinkedHashMap<>();
        for (CacheDefinition definition : config.caches()) {
            // Each cache has its own guard: its freshness rests on its own tables only (see CacheFreshness).
            StalenessGuard cacheGuard = newGuard(config);
            CaffeineInvalidatingCache<Object, Object> cache = buildCache(definition, cacheGuard);
            built.put(definition.name(), cache);
            guards.put(definition.name(), cacheGuard);
            metrics.bindCache(definition.name(), cache.caffeine());
            metrics.bindCacheFreshness(definition.name(), cacheGuard);
            if (sampler != null && definition.sampled()) {
                metrics.bindConsistency(definition.name(), sampler.counts(definition.name()));
            }
            List<CacheFreshness.Source> sources = new ArrayList<>();
            for (SourceDefinition source : definition.sources()) {
                sources.add(new CacheFreshness.Source(source.table(), source.topic(config.topicPrefix())));
            }
            freshness.add(new CacheFreshness(definition.name(), cacheGuard, sources, cache::invalidateAll));
            for (SourceDefinition source : definition.sources()) {
                KeyMapper mapper = source.evictAll() ? null
                        : new KeyMapper(source.keyColumns(), definition.keyType(), definition.compositeKeyFactory(),
                                definition.keyNormalization());
                bindings.computeIfAbsent(source.topic(config.topicPrefix()), t -> new ArrayList<>())
                        .add(new CacheBinding(cache, source.table(), mapper));
            }
        }
        if (bindings.containsKey(config.heartbeatTopic())) {
            throw new InvalidConfigurationException("heartbeat.topic",
                    "'" + config.heartbeatTopic() + "' is also the topic of a cache's table; choose another");
        }
        this.caches = Collections.unmodifiableMap(built);
        this.cacheGuards = Collections.unmodifiableMap(guards);
        this.freshness = List.copyOf(freshness);
        Map<String, InvalidatingCache<Object, Object>> exposed = new LinkedHashMap<>();
        for (CacheDefinition definition : config.caches()) {
            CaffeineInvalidatingCache<Object, Object> cache = built.get(definition.name());
            exposed.put(definition.name(), definition.keyNormalization() == KeyNormalization.NONE ? cache
                    : new KeyNormalizingCache<>(cache, definition.keyNormalization()));
        }
        this.views = Collections.unmodifiableMap(exposed);
        this.router = new EvictionRouter(bindings, metrics, new BadInputLog(config.clock()), positions);
    }

    private static StalenessGuard newGuard(InvalidationClientConfig config) {
        return new StalenessGuard(config.clock(), config.maxStaleness(), config.stalenessPolicy(),
                config.heartbeatRequired(), config.stalenessCheck(), config.stalenessCheckSlack());
    }

    private CaffeineInvalidatingCache<Object, Object> buildCache(CacheDefinition definition, StalenessGuard guard) {
        // Statistics are always recorded, by the cache itself (see CaffeineInvalidatingCache).
        Caffeine<Object, Object> caffeine = Caffeine.from(withoutRecordStats(definition.spec()));
        long refreshAfter = 0;
        if (definition.refreshAhead() > 0) {
            Duration ttl = InvalidationClientConfig.ExpireAfterWrite.of(definition.spec());
            refreshAfter = Math.max(1, (long) (ttl.toMillis() * definition.refreshAhead()));
        }
        return new CaffeineInvalidatingCache<>(definition.name(), caffeine, guard, definition.cacheNulls(),
                refreshAfter, config.refreshExecutor(), new CaffeineInvalidatingCache.LoadListener() {
                    @Override
                    public void discarded(String cache) {
                        metrics.loadDiscarded(cache);
                    }

                    @Override
                    public void dropped(String cache, CaffeineInvalidatingCache.DropReason reason) {
                        metrics.loadDropped(cache, reason.tag());
                    }
                }, ProvenPositions.gate(readYourWrites, definition.name()), definition.sampled() ? sampler : null);
    }

    /** The spec minus a {@code recordStats} option, which the cache applies itself and Caffeine allows once. */
    static String withoutRecordStats(String spec) {
        return Arrays.stream(spec.split(","))
                .filter(option -> !option.trim().equals("recordStats"))
                .collect(Collectors.joining(","));
    }

    /** Starts consuming (idempotent). Returns at once; see {@link #awaitReady(Duration)}. */
    public void start() {
        synchronized (lifecycle) {
            if (closed) {
                throw new IllegalStateException("closed");
            }
            if (consumerThread != null) {
                return;
            }
            if (guard.needsTicks()) {
                stalenessTicker = Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, instanceId + "-staleness-check");
                    t.setDaemon(true);
                    return t;
                });
                tickAll();
                long interval = guard.tickInterval().toMillis();
                stalenessTicker.scheduleAtFixedRate(this::tickSafely, interval, interval, TimeUnit.MILLISECONDS);
            }
            Map<String, Object> properties = consumerProperties();
            changeConsumer = new ChangeConsumer(new ChangeConsumer.Setup(config, consumerFactory.apply(properties),
                    router, guard, freshness, metrics, topicPoliciesFactory.apply(properties), this::becomeReady,
                    proven));
            consumerThread = new Thread(changeConsumer, instanceId + "-consumer");
            consumerThread.setDaemon(true);
            consumerThread.start();
            LOG.info("Invalidation client {} reading {} for caches {}", instanceId,
                    changeConsumer.subscribedTopics(), caches.keySet());
        }
    }

    private void tickAll() {
        guard.tick();
        cacheGuards.values().forEach(StalenessGuard::tick);
    }

    private void tickSafely() {
        try {
            tickAll();
        } catch (Throwable e) {
            // Keep the schedule: anything escaping, an Error from a logging backend too, would cancel it for good and
            // leave the threshold to the consumer thread and the loads alone.
            try {
                LOG.error("Staleness check of {} failed", instanceId, e);
            } catch (Throwable ignored) {
                // the logging backend itself failed: nothing better to do than keep ticking
            }
        }
    }

    private Map<String, Object> consumerProperties() {
        Map<String, Object> props = new HashMap<>(config.kafkaSecurity().clientProperties());
        props.putAll(config.kafkaProperties());
        // Broadcast: every instance reads every partition itself, so no group, no commits, no rebalancing.
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, instanceId);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        // Positions are always set explicitly; a position outside the log must surface, not be reset silently.
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        // A transactional producer (Kafka Connect with exactly-once source support) writes a heartbeat in the
        // same transaction as the changes before it: read uncommitted, the heartbeat could be seen while those
        // changes are still on their way, and prove them applied. Harmless for a non-transactional producer.
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, InvalidationClientConfig.READ_COMMITTED);
        props.putIfAbsent(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000);
        props.putIfAbsent(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
        return props;
    }

    private void becomeReady() {
        guard.markReady();
        cacheGuards.values().forEach(StalenessGuard::markReady);
        caches.values().forEach(CaffeineInvalidatingCache::startAccepting);
        readyLatch.countDown();
    }

    /**
     * Waits until the client is ready.
     *
     * @return whether it became ready within {@code timeout} (false also if interrupted)
     */
    public boolean awaitReady(Duration timeout) {
        try {
            return readyLatch.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Whether the consumer has reached the end of every partition it found at start (caches fill from then). */
    public boolean isReady() {
        return readyLatch.getCount() == 0;
    }

    /**
     * The staleness check (docs/client.md, bounded staleness) for values kept outside the client's caches (e.g. an ORM's query
     * results): may a value whose database read started at {@code loadedAtMillis} be served now? Same policy,
     * bound and check as the caches' hits.
     */
    public boolean isServable(long loadedAtMillis) {
        return guard.isServable(loadedAtMillis);
    }

    /**
     * The cache named {@code name}.
     *
     * @throws IllegalArgumentException if no such cache is configured
     */
    @SuppressWarnings("unchecked")
    public <K, V> InvalidatingCache<K, V> cache(String name) {
        InvalidatingCache<?, ?> cache = views.get(name);
        if (cache == null) {
            throw new IllegalArgumentException("No cache '" + name + "'; configured: " + caches.keySet());
        }
        return (InvalidatingCache<K, V>) cache;
    }

    /** The configured cache names, in configuration order. */
    public Set<String> cacheNames() {
        return caches.keySet();
    }

    /** Every cache, in configuration order. */
    public Collection<InvalidatingCache<Object, Object>> caches() {
        return views.values();
    }

    /**
     * What the client can currently prove about its freshness (for health endpoints): fresh only if every cache
     * is; {@link StalenessStatus#problems()} lists what keeps caches from being proven (missing topics, tables no
     * connector heartbeat covers, deleted topics, unavailable partitions, a failing consumer), and
     * {@link StalenessStatus#misconfigured()} whether one of them is a configuration error.
     */
    public StalenessStatus status() {
        return guard.status();
    }

    /**
     * What the client can prove about one cache: its own watermark (the least proven of its tables) and the
     * problems concerning it.
     *
     * @throws IllegalArgumentException if no such cache is configured
     */
    public StalenessStatus cacheStatus(String name) {
        StalenessGuard cacheGuard = cacheGuards.get(name);
        if (cacheGuard == null) {
            throw new IllegalArgumentException("No cache '" + name + "'; configured: " + caches.keySet());
        }
        return cacheGuard.status();
    }

    /** Shorthand for {@code status().problems()}: what keeps caches from being proven fresh, empty if nothing. */
    public List<FreshnessProblem> problems() {
        return status().problems();
    }

    public InvalidationClientConfig config() {
        return config;
    }

    /**
     * The commit positions (GTIDs) of the changes this client has applied, highest per GTID domain (MariaDB) or
     * server UUID (MySQL): what a replica must have applied before a value read from it may be cached (see
     * {@link dev.cdccache.client.position.ReplicaFence}).
     */
    public AppliedPositions appliedPositions() {
        return positions;
    }

    /**
     * The consistency sampler of this client's caches (its per-cache counts feed metrics and health), or empty when
     * {@link InvalidationClientConfig#samplingOneIn() sampling} is off.
     */
    public java.util.Optional<ConsistencySampler> consistencySampler() {
        return java.util.Optional.ofNullable(sampler);
    }

    /**
     * Per cache, the sampled hits found stale within {@link InvalidationClientConfig#samplingWindow()}: values the
     * database no longer held with no invalidation within max-staleness. Only caches with at least one; empty when
     * sampling is off or nothing stale was found. Health reads it on every check.
     */
    public Map<String, Long> staleSamplesInWindow() {
        if (sampler == null) {
            return Map.of();
        }
        Map<String, Long> stale = new LinkedHashMap<>();
        for (String cache : sampler.caches()) {
            long count = sampler.counts(cache).staleInWindow();
            if (count > 0) {
                stale.put(cache, count);
            }
        }
        return Collections.unmodifiableMap(stale);
    }

    /**
     * Read-your-writes: the read floors every cache read is held to, and what each cache has proven applied (see
     * {@link ReadYourWrites}).
     */
    public ReadYourWrites readYourWrites() {
        return readYourWrites;
    }

    /** The client's meters; the core's own packages and its tests read them. */
    ClientMetrics metrics() {
        return metrics;
    }

    /**
     * The registry the client's meters are registered in ({@link InvalidationClientConfig#meterRegistry()}, or one of
     * its own when none was configured), for meters an application or a front end adds beside them.
     */
    public MeterRegistry meterRegistry() {
        return metrics.registry();
    }

    /** How many errors of {@code reason} the client counted so far ({@code cdc.client.errors}), e.g. for health. */
    public long errorCount(ErrorReason reason) {
        return metrics.errorCount(reason);
    }

    /**
     * Binds Caffeine's statistics of a cache the client does not own (e.g. the Hibernate module's query results) as
     * {@code cache.*} meters tagged like the client's own caches.
     */
    public void bindCacheMetrics(String name, com.github.benmanes.caffeine.cache.Cache<?, ?> cache) {
        metrics.bindCache(name, cache);
    }

    /** A unique id of this client instance (also its Kafka client.id and metrics tag). */
    public String instanceId() {
        return instanceId;
    }

    /** Stops consuming and waits for the consumer thread to close the Kafka consumer. Idempotent. */
    @Override
    public void close() {
        Thread thread;
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
            thread = consumerThread;
            if (changeConsumer != null) {
                changeConsumer.stop();
            }
            if (sampler != null) {
                sampler.close();
            }
            if (stalenessTicker != null) {
                stalenessTicker.shutdownNow();
                guard.stopTicks();
                cacheGuards.values().forEach(StalenessGuard::stopTicks);
            }
        }
        if (thread != null) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return "InvalidationClient[" + instanceId + ", caches " + caches.keySet() + "]";
    }
}
