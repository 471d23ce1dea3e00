package dev.cdccache.client.staleness;

import dev.cdccache.client.StalenessPolicy;
import java.time.Duration;
import java.util.function.LongSupplier;

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
 * <p>The hit path evaluates that inequality against the clock every time (one clock read, one volatile
 * read). A threshold precomputed by a timer thread would be cheaper, but it goes out of date whenever that
 * thread runs late (a GC pause, a starved CPU), and then entries older than the bound are served: the
 * consistency verifier caught exactly that.
 */
public final class StalenessGuard {

    private static final long UNKNOWN = Long.MIN_VALUE;

    private final LongSupplier clock;
    private final long maxStalenessMillis;
    private final StalenessPolicy policy;
    private final boolean heartbeatRequired;

    private volatile long watermark = UNKNOWN;
    private volatile long lastHeartbeat = UNKNOWN;
    private volatile long lastConfirmed = UNKNOWN;
    private volatile boolean ready;
    private volatile String problem;

    public StalenessGuard(LongSupplier clock, Duration maxStaleness, StalenessPolicy policy, boolean heartbeatRequired) {
        this.clock = clock;
        this.maxStalenessMillis = maxStaleness.toMillis();
        this.policy = policy;
        this.heartbeatRequired = heartbeatRequired;
    }

    /** The hit-path check: may an entry whose database read started at {@code loadedAtMillis} be served? */
    public boolean isServable(long loadedAtMillis) {
        return policy == StalenessPolicy.SERVE_STALE || isServable(loadedAtMillis, clock.getAsLong());
    }

    /**
     * The same check against a clock reading {@code nowMillis} the caller took (one read for many entries);
     * the reading must not be older than the moment the entry was looked up.
     */
    public boolean isServable(long loadedAtMillis, long nowMillis) {
        if (policy == StalenessPolicy.SERVE_STALE) {
            return true;
        }
        // UNKNOWN is Long.MIN_VALUE, so without a watermark the entry's own load time counts.
        return nowMillis - Math.max(loadedAtMillis, watermark) <= maxStalenessMillis;
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
        long candidate = heartbeatRequired ? heartbeatAtStart : checkStartedMillis;
        if (candidate != UNKNOWN && (watermark == UNKNOWN || candidate > watermark)) {
            watermark = candidate;
        }
    }

    /** The consumer could not check its position (recorded for health details). */
    public void positionUnconfirmed(String reason) {
        problem = reason;
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

    public StalenessStatus status() {
        long now = clock.getAsLong();
        long w = watermark;
        boolean fresh = ready && w != UNKNOWN && now - w <= maxStalenessMillis;
        return new StalenessStatus(ready, fresh, w, lastHeartbeat, lastConfirmed, maxStalenessMillis, now, problem);
    }
}
