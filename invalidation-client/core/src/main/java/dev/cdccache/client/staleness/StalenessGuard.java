package dev.cdccache.client.staleness;

import dev.cdccache.client.Internal;
import dev.cdccache.client.StalenessCheck;
import dev.cdccache.client.StalenessPolicy;
import dev.cdccache.client.metrics.LogThrottle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides whether a cache entry may be served, from what the consumer can prove about how far behind it is.
 *
 * <p>The <b>watermark</b> W is the time up to which the client has provably applied every change. It
 * advances when a position check completes: at time t the consumer looked up the log end offsets of every
 * partition, and later its positions reached them; every event produced before t is then applied. Events
 * produced before t include every change committed before the latest heartbeat the client had applied at t
 * (the connector writes a heartbeat row through the same binlog, after those changes), so W becomes that
 * heartbeat's commit time. Without required heartbeats W becomes t itself.
 *
 * <p>An entry whose database read started at L is served only if {@code now - max(L, W) <= max-staleness}.
 * So a fresh client serves everything; a client that falls behind (connector stopped, Kafka unreachable,
 * consumer stuck) serves only entries read within the bound, i.e. behaves like a TTL cache, and resumes
 * by itself when W moves again.
 *
 * <p>With {@link StalenessCheck#EVERY_HIT} the hit path evaluates that inequality against the clock every time
 * (one clock read, one volatile read), so the bound holds at every hit whatever the scheduler does. With
 * {@link StalenessCheck#SCHEDULED} (the default), {@link #tick()} precomputes the oldest load time that stays
 * servable until {@code slack} from now, and a hit only compares with it (one volatile read). That is cheaper by
 * a clock read, and exact as long as no tick comes later than the slack: a threshold refreshed only every
 * interval, with no margin, went out of date under load (a starved timer thread) and the consistency verifier
 * caught entries served up to 286 ms past a 3 s bound.
 *
 * <p>The error of a precomputed threshold goes one way only: while nobody recomputes it, hits serve entries
 * that grow older. So it is recomputed from several threads, independent of each other: the client's ticker
 * (every {@link #tickInterval()}), the consumer thread (every poll), and any thread that reads the clock anyway
 * and finds it out of date ({@link #tickIfLate}: loads, bulk lookups, health checks). A stalled or dead ticker
 * alone therefore turns into misses, not stale hits. Only when all of them are stopped for longer than the
 * slack while hits still run (a JVM starved of CPU in all but the request threads) can a hit exceed the
 * bound; the recomputation that follows is counted ({@link #overruns()}) and logged.
 */
@Internal
public final class StalenessGuard {

    private static final Logger LOG = LoggerFactory.getLogger(StalenessGuard.class);
    private static final long UNKNOWN = Long.MIN_VALUE;

    private final LongSupplier clock;
    private final long maxStalenessMillis;
    private final StalenessPolicy policy;
    private final boolean heartbeatRequired;
    private final StalenessCheck check;
    /** Whether hits compare with {@link #oldestServableLoad} instead of reading the clock. */
    private final boolean precomputed;
    private final long slackMillis;

    /** {@link StalenessCheck#SCHEDULED}: entries loaded before this are not served; MIN_VALUE serves all. */
    private volatile long oldestServableLoad;
    /** Until when the current {@link #oldestServableLoad} keeps the bound; guarded by {@code this}. */
    private long thresholdValidUntil = UNKNOWN;
    /**
     * {@link #thresholdValidUntil} for threads that read the clock anyway and check, without the lock, whether the
     * threshold ran out ({@link #tickIfLate}); {@code Long.MAX_VALUE} while there is nothing to keep current.
     */
    private volatile long thresholdExpiry = Long.MAX_VALUE;
    /** Logs late checks without flooding the log when the JVM is starved for minutes. */
    private final LogThrottle lateCheckLog;
    /** Guarded by {@code this}. */
    private boolean ticksStopped;
    private final LongAdder overruns = new LongAdder();
    private volatile long watermark = UNKNOWN;
    private volatile long lastHeartbeat = UNKNOWN;
    private volatile long lastConfirmed = UNKNOWN;
    private volatile boolean ready;
    private volatile String problem;
    /** Set while the consumer loop is failing/restarting: not fresh, whatever the watermark says. */
    private volatile String consumerFailure;
    private volatile List<FreshnessProblem> problems = List.of();

    /** A guard that checks the bound against the clock at every hit ({@link StalenessCheck#EVERY_HIT}). */
    public StalenessGuard(LongSupplier clock, Duration maxStaleness, StalenessPolicy policy, boolean heartbeatRequired) {
        this(clock, maxStaleness, policy, heartbeatRequired, StalenessCheck.EVERY_HIT, Duration.ZERO);
    }

    /**
     * @param slack with {@link StalenessCheck#SCHEDULED}, how late a {@link #tick()} may come without the bound
     *        being exceeded; shorter than {@code maxStaleness} (ignored with {@link StalenessCheck#EVERY_HIT})
     */
    public StalenessGuard(LongSupplier clock, Duration maxStaleness, StalenessPolicy policy, boolean heartbeatRequired,
            StalenessCheck check, Duration slack) {
        this.clock = clock;
        this.maxStalenessMillis = maxStaleness.toMillis();
        this.policy = policy;
        this.heartbeatRequired = heartbeatRequired;
        this.check = check;
        this.precomputed = check == StalenessCheck.SCHEDULED || policy == StalenessPolicy.SERVE_STALE;
        this.slackMillis = slack.toMillis();
        this.lateCheckLog = new LogThrottle(clock, 60_000);
        if (check == StalenessCheck.SCHEDULED && (slackMillis <= 0 || slackMillis >= maxStalenessMillis)) {
            throw new IllegalArgumentException("slack must be positive and shorter than max-staleness, was " + slack);
        }
        // Serve nothing until the first tick computes a threshold.
        this.oldestServableLoad = policy == StalenessPolicy.SERVE_STALE ? Long.MIN_VALUE : Long.MAX_VALUE;
    }

    /** The hit-path check: may an entry whose database read started at {@code loadedAtMillis} be served? */
    public boolean isServable(long loadedAtMillis) {
        if (precomputed) {
            return loadedAtMillis >= oldestServableLoad;
        }
        return isServable(loadedAtMillis, clock.getAsLong());
    }

    /**
     * The same check against a clock reading {@code nowMillis} the caller took (one read for many entries);
     * the reading must not be older than the moment the entry was looked up.
     */
    public boolean isServable(long loadedAtMillis, long nowMillis) {
        if (policy == StalenessPolicy.SERVE_STALE) {
            return true;
        }
        // UNKNOWN is Long.MIN_VALUE, so without a watermark the entry's own load time counts; an entry stored without
        // its load time (CachedValue.UNKNOWN_LOAD, also MIN_VALUE) counts only with a watermark.
        long confirmed = Math.max(loadedAtMillis, watermark);
        return confirmed != UNKNOWN && nowMillis - confirmed <= maxStalenessMillis;
    }

    /**
     * Whether an entry loaded at {@code nowMillis} should keep its load time: the client is not proven fresh, or its
     * watermark is older than half the bound. An entry stored without one is served only while every entry is
     * servable ({@link #isServable} of {@code Long.MIN_VALUE}), so it turns into a miss as soon as the client lags;
     * one that keeps it stays servable within the bound, as with a time-to-live.
     */
    public boolean lagging(long nowMillis) {
        if (policy == StalenessPolicy.SERVE_STALE) {
            return false;
        }
        long w = watermark;
        return w == UNKNOWN || nowMillis - w > maxStalenessMillis / 2
                || precomputed && oldestServableLoad != Long.MIN_VALUE;
    }

    /**
     * How often {@link #tick()} should run with {@link StalenessCheck#SCHEDULED}: a tenth of the slack, at most
     * 100 ms, so that one late run alone does not use it up.
     */
    public Duration tickInterval() {
        return Duration.ofMillis(Math.max(1, Math.min(100, slackMillis / 10)));
    }

    /** Whether hits compare with a threshold that {@link #tick()} must keep current. */
    public boolean needsTicks() {
        return precomputed && policy != StalenessPolicy.SERVE_STALE;
    }

    /**
     * Recomputes the threshold the hits compare with ({@link StalenessCheck#SCHEDULED}); safe to call from any
     * thread at any time. Every entry it lets through stays within the bound until {@code slack} from now.
     */
    public synchronized void tick() {
        if (!needsTicks() || ticksStopped) {
            return;
        }
        long now = clock.getAsLong();
        if (thresholdValidUntil != UNKNOWN && now > thresholdValidUntil) {
            overruns.increment();
            reportLate(now - thresholdValidUntil);
        }
        long horizon = now + slackMillis;
        long w = watermark;
        if (w != UNKNOWN && w + maxStalenessMillis >= horizon) {
            // Everything changed before w is applied, and w stays within the bound until w + max-staleness.
            oldestServableLoad = Long.MIN_VALUE;
            thresholdValidUntil = w + maxStalenessMillis;
        } else {
            oldestServableLoad = horizon - maxStalenessMillis;
            thresholdValidUntil = horizon;
        }
        thresholdExpiry = thresholdValidUntil;
    }

    /**
     * Recomputes the threshold if it ran out before {@code nowMillis}, a clock reading the caller took anyway (a
     * load, a health check). Costs a volatile read otherwise. Every thread that reads the clock thereby keeps the
     * threshold current, so a stalled or dead ticker thread alone cannot keep an outdated threshold in place while
     * loads or the consumer still run.
     */
    public void tickIfLate(long nowMillis) {
        if (nowMillis > thresholdExpiry) {
            tick();
        }
    }

    private void reportLate(long lateMillis) {
        long heldBack = lateCheckLog.admit("late");
        if (heldBack != LogThrottle.HELD_BACK) {
            LOG.warn("The staleness threshold was recomputed {} ms after it ran out: hits in between may have been "
                    + "served up to that much past max-staleness ({} ms){}. The JVM was paused or starved of CPU; "
                    + "see cdc.client.staleness.check.overruns", lateMillis, maxStalenessMillis,
                    heldBack > 0 ? " (" + heldBack + " more since the previous report)" : "");
        }
    }

    /** No more ticks will come (the client closed): serve nothing rather than a threshold going out of date. */
    public synchronized void stopTicks() {
        if (needsTicks()) {
            ticksStopped = true;
            oldestServableLoad = Long.MAX_VALUE;
            thresholdExpiry = Long.MAX_VALUE;
        }
    }

    /**
     * How many {@link #tick()}s came after the previous threshold stopped keeping the bound (so hits in between
     * may have been served past it); always 0 with {@link StalenessCheck#EVERY_HIT}.
     */
    public long overruns() {
        return overruns.sum();
    }

    /** Current time of the guard's clock, epoch millis. */
    public long now() {
        return clock.getAsLong();
    }

    /** The consumer has applied a heartbeat written at {@code commitMillis}. */
    public void heartbeatApplied(long commitMillis) {
        if (lastHeartbeat == UNKNOWN || commitMillis > lastHeartbeat) {
            lastHeartbeat = commitMillis;
        }
    }

    /** The latest heartbeat commit time applied, or {@link Long#MIN_VALUE}; read when a position check starts. */
    public long lastHeartbeat() {
        return lastHeartbeat;
    }

    /**
     * The consumer's positions reached the end offsets looked up at {@code checkStartedMillis}, when the latest
     * applied heartbeat was {@code heartbeatAtStart}.
     */
    public void positionsConfirmed(long checkStartedMillis, long heartbeatAtStart) {
        lastConfirmed = checkStartedMillis;
        problem = null;
        consumerFailure = null;
        long candidate = heartbeatRequired ? heartbeatAtStart : checkStartedMillis;
        if (candidate != UNKNOWN && (watermark == UNKNOWN || candidate > watermark)) {
            watermark = candidate;
            tick(); // serve again at once after recovery rather than at the next scheduled tick
        }
    }

    /**
     * Moves the watermark forward to {@code watermarkMillis} (never back): every change committed before it is
     * known to be applied. Used by the consumer with per-cache guards, where the watermark is the coverage of the
     * cache's tables (see {@code HeartbeatCoverage}) as of the latest position check that confirmed their topics.
     */
    public void advanceWatermark(long watermarkMillis) {
        if (watermarkMillis != UNKNOWN && (watermark == UNKNOWN || watermarkMillis > watermark)) {
            watermark = watermarkMillis;
            tick(); // serve again at once after recovery rather than at the next scheduled tick
        }
    }

    /** The current watermark, or {@link Long#MIN_VALUE} if none yet. */
    public long watermark() {
        return watermark;
    }

    /**
     * A position check that started at {@code checkStartedMillis} completed (for health details); clears the
     * previous check failure and consumer failure.
     */
    public void positionsChecked(long checkStartedMillis) {
        lastConfirmed = checkStartedMillis;
        problem = null;
        consumerFailure = null;
    }

    /** The problems currently keeping caches from being proven fresh (replaces the previous list). */
    public void problems(List<FreshnessProblem> current) {
        problems = List.copyOf(current);
    }

    /** The consumer could not check its position (recorded for health details). */
    public void positionUnconfirmed(String reason) {
        problem = reason;
    }

    /**
     * The consumer loop failed and is restarting (or its thread ended): the client reports not fresh until
     * {@link #positionsConfirmed} is called again.
     */
    public void consumerFailing(String reason) {
        consumerFailure = reason;
    }

    /** The consumer reached the end of every partition found at start. */
    public void markReady() {
        ready = true;
    }

    public boolean isReady() {
        return ready;
    }

    public long maxStalenessMillis() {
        return maxStalenessMillis;
    }

    public StalenessPolicy policy() {
        return policy;
    }

    public StalenessCheck check() {
        return check;
    }

    public StalenessStatus status() {
        long now = clock.getAsLong();
        tickIfLate(now); // a health check that finds the threshold out of date reports it and replaces it
        long w = watermark;
        String failure = consumerFailure;
        boolean fresh = ready && failure == null && w != UNKNOWN && now - w <= maxStalenessMillis;
        List<FreshnessProblem> current = problems;
        if (failure != null) {
            List<FreshnessProblem> withFailure = new ArrayList<>(current);
            withFailure.add(new FreshnessProblem(FreshnessProblem.Kind.CONSUMER_FAILING, "consumer", Set.of(), failure));
            current = withFailure;
        }
        String summary = failure != null ? failure : problem != null ? problem
                : current.isEmpty() ? null : current.get(0).message();
        return new StalenessStatus(ready, fresh, w, lastHeartbeat, lastConfirmed, maxStalenessMillis, now,
                summary, overruns.sum(), current);
    }
}
