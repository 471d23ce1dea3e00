package dev.cdccache.client.staleness;

import java.util.List;

/**
 * A snapshot of what the client can prove about its freshness.
 *
 * @param ready whether the consumer has reached the end of every partition it found at start
 * @param fresh whether the client can show it has applied every change committed up to
 *        {@code maxStalenessMillis} ago ({@code now - watermark <= max-staleness})
 * @param watermarkMillis epoch millis up to which every change is known to be applied, or
 *        {@link Long#MIN_VALUE} if none yet
 * @param lastHeartbeatMillis the commit time of the latest heartbeat applied, or {@link Long#MIN_VALUE}; always
 *        {@link Long#MIN_VALUE} in the status of one cache ({@code InvalidationClient#cacheStatus}), whose
 *        watermark is its tables' heartbeat coverage: heartbeats are tracked per client
 * @param lastPositionConfirmedMillis when the consumer last reached the log end it had just looked up,
 *        or {@link Long#MIN_VALUE}
 * @param maxStalenessMillis the configured bound
 * @param nowMillis the time of the snapshot
 * @param problem the latest reason the client could not confirm its position, or {@code null}
 * @param checkOverruns with {@code staleness-check: scheduled}, how many recomputations of the precomputed
 *        threshold came later than the slack (hits before them may have been served past the bound); always 0
 *        otherwise
 * @param problems what keeps caches from being proven fresh (missing topics, tables no connector heartbeat
 *        covers, deleted topics, unavailable partitions, a failing consumer); empty when nothing does. A problem
 *        whose {@link FreshnessProblem.Kind#configuration()} is true will not go away without a settings change.
 */
public record StalenessStatus(boolean ready, boolean fresh, long watermarkMillis, long lastHeartbeatMillis,
        long lastPositionConfirmedMillis, long maxStalenessMillis, long nowMillis, String problem,
        long checkOverruns, List<FreshnessProblem> problems) {

    public StalenessStatus {
        problems = List.copyOf(problems);
    }

    /** A status without freshness problems (the form before per-table problems were reported). */
    public StalenessStatus(boolean ready, boolean fresh, long watermarkMillis, long lastHeartbeatMillis,
            long lastPositionConfirmedMillis, long maxStalenessMillis, long nowMillis, String problem,
            long checkOverruns) {
        this(ready, fresh, watermarkMillis, lastHeartbeatMillis, lastPositionConfirmedMillis, maxStalenessMillis,
                nowMillis, problem, checkOverruns, List.of());
    }

    /** Whether some problem is a configuration error ({@link FreshnessProblem.Kind#configuration()}). */
    public boolean misconfigured() {
        return problems.stream().anyMatch(p -> p.kind().configuration());
    }

    /** {@code now - watermark} in milliseconds, or {@link Long#MAX_VALUE} without a watermark. */
    public long watermarkAgeMillis() {
        return watermarkMillis == Long.MIN_VALUE ? Long.MAX_VALUE : Math.max(0, nowMillis - watermarkMillis);
    }
}
