package dev.cdccache.client.metrics;

import dev.cdccache.client.Internal;
import com.github.benmanes.caffeine.cache.Cache;
import dev.cdccache.client.cache.ConsistencySampler;
import dev.cdccache.client.staleness.HeartbeatCoverage;
import dev.cdccache.client.staleness.StalenessGuard;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import java.util.function.ToLongFunction;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.cache.CaffeineCacheMetrics;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The client's Micrometer meters. Everything here is recorded on the consumer thread or on the load path;
 * the cache-hit path records nothing (hit rates come from Caffeine's own counters, bound with
 * {@link CaffeineCacheMetrics}).
 *
 * <ul>
 *   <li>{@code cdc.client.events} (counter; topic): records consumed, tombstones included.</li>
 *   <li>{@code cdc.client.evictions} (counter; cache, scope=key|all): evictions applied.</li>
 *   <li>{@code cdc.client.invalidation.lag} (timer with percentile histogram): THE lag to watch. From the
 *       heartbeat row's {@code DATETIME(6)} write time (microsecond resolution) to the heartbeat applied by
 *       this client: the end-to-end pipeline latency a change sees (database, connector, Kafka, this
 *       consumer) at millisecond resolution, one sample per heartbeat; a heartbeat queues behind the changes
 *       committed before it, so a backlog shows here. Comparable across clocks only if the database host and
 *       this host are time-synchronised.</li>
 *   <li>{@code cdc.client.commit.lag} (timer with percentile histogram; table), only with
 *       {@code commitLagByTable}: from each change's {@code source.ts_ms} to its evictions applied. MariaDB
 *       records that commit time with ONE-SECOND resolution (truncated), so values are between the true lag
 *       and the true lag + 1 s; off by default because such a series misleads on a dashboard.</li>
 *   <li>{@code cdc.client.consumer.lag} (gauge): records between the consumer's positions and the log end
 *       at the latest position check.</li>
 *   <li>{@code cdc.client.errors} (counter; reason): bad input and failures, see {@link ErrorReason}.</li>
 *   <li>{@code cdc.client.loads.discarded} (counter; cache): loaded values not cached because an
 *       invalidation raced with the load (the no-stale-populate protection at work).</li>
 *   <li>{@code cdc.client.loads.dropped} (counter; cache, reason): values loaded inside a database transaction
 *       and not cached: {@code rolled_back}, or {@code overflow} (more values than a transaction keeps aside).</li>
 *   <li>{@code cdc.client.ready}, {@code cdc.client.fresh} (gauges 0/1) and
 *       {@code cdc.client.watermark.age} (gauge, seconds): the staleness state.</li>
 *   <li>{@code cdc.client.clock.skew} (gauge, seconds): how far the most skewed connector's database clock is
 *       measurably ahead of this host's (a lower bound: {@code ts - receive time} of its heartbeats over the last
 *       minute); above {@code max-clock-skew} it is a {@code CLOCK_SKEW} problem.</li>
 *   <li>{@code cdc.client.staleness.check.overruns} (counter): with {@code staleness-check: scheduled} (the
 *       default), recomputations of the precomputed staleness threshold (by the ticker, the consumer thread or a
 *       clock reader) that came later than {@code staleness-check-slack} after the one before, so that hits in
 *       between may have been served past the bound. Alert on any increase.</li>
 *   <li>{@code cdc.client.table.evictions} (counter; table, reason=coalesced_transaction|truncate): change events
 *       that evicted every cache bound to their table at once, see {@link TableEvictionReason}.</li>
 *   <li>{@code cdc.client.unproven.evictions} (counter; reason=epoch_change|new_coverage|freshness_gap): caches
 *       evicted entirely because their entries could not be proven; every reason registered at 0 from the start.</li>
 *   <li>{@code cache.*} (tags cache=name): Caffeine statistics via {@link CaffeineCacheMetrics}.</li>
 * </ul>
 */
@Internal
public final class ClientMetrics {

    /** Reason tag of caches evicted because their watermark moved again after a gap longer than max-staleness. */
    public static final String FRESHNESS_GAP = "freshness_gap";
    /** Every reason of {@code cdc.client.unproven.evictions}, registered (at 0) from the start. */
    private static final List<String> UNPROVEN_REASONS = List.of(HeartbeatCoverage.ResetReason.EPOCH_CHANGE.tag(),
            HeartbeatCoverage.ResetReason.NEW_COVERAGE.tag(), FRESHNESS_GAP);

    private final MeterRegistry registry;
    private final Tags commonTags;
    private final Map<String, Counter> eventCounters = new ConcurrentHashMap<>();
    private final Map<String, Counter> keyEvictions = new ConcurrentHashMap<>();
    private final Map<String, Counter> allEvictions = new ConcurrentHashMap<>();
    private final Map<String, Timer> lagTimers = new ConcurrentHashMap<>();
    private final Map<String, Counter> discarded = new ConcurrentHashMap<>();
    private final Map<String, Counter> dropped = new ConcurrentHashMap<>();
    private final Map<String, Counter> unproven = new ConcurrentHashMap<>();
    private final Map<String, Counter> tableEvictions = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> tableEvictionCounts = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> unprovenCounts = new ConcurrentHashMap<>();
    private final Map<ErrorReason, Counter> errors = new EnumMap<>(ErrorReason.class);
    /** Kept apart from the registry, which may be a no-op, for health details and tests. */
    private final Map<ErrorReason, LongAdder> errorCounts = new EnumMap<>(ErrorReason.class);
    private final Timer heartbeatLag;
    private final boolean commitLagByTable;
    private final AtomicLong consumerLag = new AtomicLong();
    private final AtomicLong clockSkewMillis = new AtomicLong();

    /** @param registry where to register, or {@code null} for an inert (unregistered) set of meters */
    public ClientMetrics(MeterRegistry registry, String clientId, StalenessGuard guard) {
        this(registry, clientId, guard, false);
    }

    /**
     * @param registry where to register, or {@code null} for an inert (unregistered) set of meters
     * @param commitLagByTable whether to record {@code cdc.client.commit.lag} per table from {@code source.ts_ms}
     */
    public ClientMetrics(MeterRegistry registry, String clientId, StalenessGuard guard, boolean commitLagByTable) {
        this.commitLagByTable = commitLagByTable;
        this.registry = registry != null ? registry : new CompositeMeterRegistry();
        this.commonTags = Tags.of(Tag.of("client", clientId));
        for (ErrorReason reason : ErrorReason.values()) {
            errors.put(reason, Counter.builder("cdc.client.errors").tags(commonTags).tag("reason", reason.tag())
                    .description("Bad input and consumer failures, by reason").register(this.registry));
            errorCounts.put(reason, new LongAdder());
        }
        // Named as THE invalidation lag: the only lag with millisecond resolution on MariaDB (docs/client.md, Metrics).
        this.heartbeatLag = Timer.builder("cdc.client.invalidation.lag").tags(commonTags)
                .description("Database write (heartbeat row, microsecond DATETIME(6)) to applied by this client")
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofMinutes(1)).register(this.registry);
        Gauge.builder("cdc.client.consumer.lag", consumerLag, AtomicLong::get).tags(commonTags)
                .description("Records behind the log end at the latest position check").register(this.registry);
        Gauge.builder("cdc.client.ready", guard, g -> g.isReady() ? 1 : 0).tags(commonTags)
                .description("1 once the consumer reached the log end found at start").register(this.registry);
        Gauge.builder("cdc.client.fresh", guard, g -> g.status().fresh() ? 1 : 0).tags(commonTags)
                .description("1 while the client can show it is within max-staleness").register(this.registry);
        Gauge.builder("cdc.client.watermark.age", guard, g -> {
            long age = g.status().watermarkAgeMillis();
            return age == Long.MAX_VALUE ? Double.NaN : age / 1000.0;
        }).tags(commonTags).baseUnit("seconds")
                .description("Now minus the time up to which every change is known to be applied").register(this.registry);
        Gauge.builder("cdc.client.problems", guard, g -> g.status().problems().size()).tags(commonTags)
                .description("Problems keeping caches from being proven fresh (missing topics, uncovered tables...)")
                .register(this.registry);
        Gauge.builder("cdc.client.clock.skew", clockSkewMillis, skew -> skew.get() / 1000.0).tags(commonTags)
                .baseUnit("seconds")
                .description("How far the most skewed connector's database clock is measurably ahead of this host's")
                .register(this.registry);
        // registered at 0 so that an alert on any increase sees the first eviction too (a series that appears
        // already at 1 shows no increase in Prometheus)
        for (String reason : UNPROVEN_REASONS) {
            unprovenCounter(reason);
        }
        FunctionCounter.builder("cdc.client.staleness.check.overruns", guard, StalenessGuard::overruns)
                .tags(commonTags)
                .description("Staleness thresholds recomputed later than the slack (the bound may have been exceeded)")
                .register(this.registry);
    }

    public MeterRegistry registry() {
        return registry;
    }

    /**
     * Registers {@code cdc.client.cache.fresh} (gauge 0/1, tag cache): whether that cache is proven within
     * max-staleness (its tables' topics read to the end and covered by a connector's heartbeat).
     */
    public void bindCacheFreshness(String cache, StalenessGuard cacheGuard) {
        Gauge.builder("cdc.client.cache.fresh", cacheGuard, g -> g.status().fresh() ? 1 : 0).tags(commonTags)
                .tag("cache", cache).description("1 while this cache is proven within max-staleness")
                .register(registry);
    }

    /**
     * Registers the consistency sampler's meters of one cache: {@code cdc.client.consistency.samples} (function
     * counter, tags cache and outcome consistent/stale/inconclusive), {@code cdc.client.consistency.nines} (gauge:
     * -log10 of the stale share of the decided samples in the window; NaN without samples) and
     * {@code cdc.client.consistency.stale.window} (gauge: stale samples in the window). Read when scraped.
     */
    public void bindConsistency(String cache, ConsistencySampler.Counts counts) {
        for (ConsistencySampler.Outcome outcome : ConsistencySampler.Outcome.values()) {
            FunctionCounter.builder("cdc.client.consistency.samples", counts, c -> switch (outcome) {
                case CONSISTENT -> c.consistent();
                case STALE -> c.stale();
                case INCONCLUSIVE -> c.inconclusive();
            }).tags(commonTags).tag("cache", cache).tag("outcome", outcome.tag())
                    .description("Sampled cache hits re-read from the database, by outcome").register(registry);
        }
        Gauge.builder("cdc.client.consistency.nines", counts, ConsistencySampler.Counts::nines).tags(commonTags)
                .tag("cache", cache).description("Consistency nines of the sampled hits over the sampling window")
                .register(registry);
        Gauge.builder("cdc.client.consistency.stale.window", counts, ConsistencySampler.Counts::staleInWindow)
                .tags(commonTags).tag("cache", cache)
                .description("Sampled hits found stale beyond max-staleness within the sampling window")
                .register(registry);
    }

    /**
     * Registers {@code cdc.client.read.floor} (function counter, tags cache and outcome): reads of a cache under a
     * read floor, by how they were served.
     */
    public void bindReadFloor(String cache, String outcome, LongAdder count) {
        FunctionCounter.builder("cdc.client.read.floor", count, LongAdder::sum).tags(commonTags).tag("cache", cache)
                .tag("outcome", outcome).description("Reads under a read floor: applied, after_wait, bypassed")
                .register(registry);
    }

    /** The timer of reads that waited for a read floor ({@code cdc.client.read.floor.wait}), with a histogram. */
    public Timer readFloorWaits() {
        return Timer.builder("cdc.client.read.floor.wait").tags(commonTags)
                .description("How long reads waited for their read floor to be proven applied")
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofNanos(10_000))
                .maximumExpectedValue(Duration.ofSeconds(5)).register(registry);
    }

    /**
     * Registers {@code cdc.client.position.applied} (gauge, tags cache and domain): the sequence up to which every
     * change of that GTID domain (MariaDB domain id, MySQL server UUID) is proven applied to the cache.
     */
    public void bindAppliedPosition(String cache, String domain, java.util.function.Supplier<Number> sequence) {
        Gauge.builder("cdc.client.position.applied", sequence).tags(commonTags).tag("cache", cache)
                .tag("domain", domain).description("Sequence up to which this GTID domain is proven applied")
                .register(registry);
    }

    /**
     * Registers {@code cdc.client.position.resets} (function counter): times the proven read-floor positions were
     * dropped because GTID sequences went back (a numbering started over, or a replay after a connector restart).
     */
    public <T> void bindPositionResets(T owner, ToLongFunction<T> resets) {
        // the owner, not a lambda over it: a function counter holds its object weakly, and a method reference that
        // nothing else holds is collected, leaving the counter frozen at its last value
        FunctionCounter.builder("cdc.client.position.resets", owner, o -> resets.applyAsLong(o)).tags(commonTags)
                .description("Times the proven read-floor positions were dropped because GTID sequences went back")
                .register(registry);
    }

    /** Binds Caffeine's statistics of a cache (the cache must record stats). */
    public void bindCache(String name, Cache<?, ?> cache) {
        CaffeineCacheMetrics.monitor(registry, cache, name, commonTags);
    }

    public void eventConsumed(String topic) {
        eventCounters.computeIfAbsent(topic, t -> Counter.builder("cdc.client.events").tags(commonTags)
                .tag("topic", t).description("Change records consumed").register(registry)).increment();
    }

    public void keyEvicted(String cache) {
        keyEvictions.computeIfAbsent(cache, c -> evictionCounter(c, "key")).increment();
    }

    public void allEvicted(String cache) {
        allEvictions.computeIfAbsent(cache, c -> evictionCounter(c, "all")).increment();
    }

    private Counter evictionCounter(String cache, String scope) {
        return Counter.builder("cdc.client.evictions").tags(commonTags).tag("cache", cache).tag("scope", scope)
                .description("Evictions applied from change events").register(registry);
    }

    /** An event evicted every cache bound to {@code table} at once, for {@code reason}. */
    public void tableEvicted(String table, TableEvictionReason reason) {
        String key = table + '|' + reason.tag();
        tableEvictions.computeIfAbsent(key, k -> Counter.builder("cdc.client.table.evictions").tags(commonTags)
                .tag("table", table).tag("reason", reason.tag())
                .description("Change events that evicted every cache bound to their table at once").register(registry))
                .increment();
        tableEvictionCounts.computeIfAbsent(key, k -> new LongAdder()).increment();
    }

    /** Table-wide evictions of {@code table} so far for {@code reason}, for tests and health details. */
    public long tableEvictions(String table, TableEvictionReason reason) {
        LongAdder count = tableEvictionCounts.get(table + '|' + reason.tag());
        return count == null ? 0 : count.sum();
    }

    /** Records {@code cdc.client.commit.lag} of a change of {@code table}, if enabled (else does nothing). */
    public void invalidationLag(String table, long millis) {
        if (!commitLagByTable) {
            return;
        }
        lagTimers.computeIfAbsent(table, t -> Timer.builder("cdc.client.commit.lag").tags(commonTags)
                .tag("table", t).description("source.ts_ms (commit time, 1 s resolution on MariaDB) to evictions applied")
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofMinutes(1)).register(registry))
                .record(Math.max(0, millis), TimeUnit.MILLISECONDS);
    }

    public void heartbeatLag(long millis) {
        heartbeatLag.record(Math.max(0, millis), TimeUnit.MILLISECONDS);
    }

    public void consumerLag(long records) {
        consumerLag.set(records);
    }

    /** Sets {@code cdc.client.clock.skew}: the largest measured lead of a connector's database clock (0 if none). */
    public void clockSkew(long millis) {
        clockSkewMillis.set(Math.max(0, millis));
    }

    public void error(ErrorReason reason) {
        errors.get(reason).increment();
        errorCounts.get(reason).increment();
    }

    /**
     * {@code caches} caches were evicted entirely because their entries could not be proven: {@code reason}
     * {@code epoch_change} (a connector changed its epoch), {@code new_coverage} (a connector began to cover their
     * tables after the client was ready), {@code freshness_gap} (their watermark moved again after being stuck
     * longer than max-staleness).
     */
    public void unprovenEvicted(String reason, int caches) {
        unprovenCounter(reason).increment(caches);
        unprovenCounts.computeIfAbsent(reason, r -> new LongAdder()).add(caches);
    }

    private Counter unprovenCounter(String reason) {
        return unproven.computeIfAbsent(reason, r -> Counter.builder("cdc.client.unproven.evictions").tags(commonTags)
                .tag("reason", r).description("Caches evicted entirely because their entries could not be proven")
                .register(registry));
    }

    /** Caches evicted so far for {@code reason} (see {@link #unprovenEvicted}), for tests and health details. */
    public long unprovenEvictions(String reason) {
        LongAdder count = unprovenCounts.get(reason);
        return count == null ? 0 : count.sum();
    }

    public void loadDiscarded(String cache) {
        discarded.computeIfAbsent(cache, c -> Counter.builder("cdc.client.loads.discarded").tags(commonTags)
                .tag("cache", c).description("Loaded values not cached because an invalidation raced with the load")
                .register(registry)).increment();
    }

    /**
     * A value loaded inside a database transaction was not stored: the transaction rolled back, or kept too many
     * values aside ({@code reason} is the tag).
     */
    public void loadDropped(String cache, String reason) {
        dropped.computeIfAbsent(cache + '|' + reason, k -> Counter.builder("cdc.client.loads.dropped")
                .tags(commonTags).tag("cache", cache).tag("reason", reason)
                .description("Values loaded inside a transaction and not cached: rolled back, or too many kept aside")
                .register(registry)).increment();
    }

    /** Count of errors of one reason so far (for tests and health details). */
    public long errorCount(ErrorReason reason) {
        return errorCounts.get(reason).sum();
    }
}
