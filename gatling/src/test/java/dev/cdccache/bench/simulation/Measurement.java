package dev.cdccache.bench.simulation;

import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.stopLoadGeneratorIf;

import dev.cdccache.bench.measure.RequestStats;
import dev.cdccache.bench.measure.ResultFile;
import io.gatling.javaapi.core.ChainBuilder;
import io.gatling.javaapi.core.Session;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Times requests with {@code System.nanoTime()} (microsecond resolution, unlike Gatling's milliseconds) and
 * records them after the warm-up: per request name and overall, and per step of a staircase. The warm-up
 * is measured from the first request of the run. Gatling's own HTML report still shows every request,
 * warm-up included.
 */
final class Measurement {

    private static final String STARTED = "measurement.started";
    private static final String MEASURED = "measurement.measured";

    final RequestStats stats = new RequestStats();
    final LoadProfile profile;
    private final long warmupNanos;
    private final AtomicLong origin = new AtomicLong(Long.MIN_VALUE);
    private final AtomicBoolean saturated = new AtomicBoolean();
    private final AtomicLong everyRequest = new AtomicLong();

    Measurement(LoadProfile profile) {
        this.profile = profile;
        this.warmupNanos = TimeUnit.SECONDS.toNanos(profile.measuredAfterSeconds());
    }

    /** {@code request} timed and recorded under {@code name}; 4xx/5xx count as KO through its checks. */
    ChainBuilder timed(String name, ChainBuilder request) {
        return exec(this::start).exec(request).exec(session -> finish(name, session));
    }

    /** Reads the start stamp a {@link #timed} chain left in the session (for checks that need it). */
    static long startOf(Session session) {
        return session.getLong(STARTED);
    }

    /** Whether the request of the current {@link #timed} chain started after the warm-up. */
    static boolean isMeasured(Session session) {
        return session.contains(MEASURED) && session.getBoolean(MEASURED);
    }

    private Session start(Session session) {
        long now = System.nanoTime();
        origin.compareAndSet(Long.MIN_VALUE, now);
        boolean measured = now - origin.get() >= warmupNanos;
        if (measured && profile.steps != null) {
            profile.steps.started(now);
        }
        return session.markAsSucceeded().set(STARTED, now).set(MEASURED, measured);
    }

    private Session finish(String name, Session session) {
        long end = System.nanoTime();
        long start = session.getLong(STARTED);
        everyRequest.incrementAndGet();
        if (session.getBoolean(MEASURED)) {
            if (session.isFailed()) {
                stats.recordKo(name, start, end);
            } else {
                stats.recordOk(name, start, end);
            }
            if (profile.steps != null) {
                profile.steps.finished(start, end, !session.isFailed());
            }
        }
        return session;
    }

    /**
     * Once a staircase step no longer keeps up, no virtual user sends another request (they exit at once)
     * and the load generator is asked to stop; a no-op for other profiles.
     */
    ChainBuilder stopWhenSaturated() {
        return stopLoadGeneratorIf(session -> "saturated: " + (profile.steps == null ? 0 : profile.steps.inFlight())
                + " requests in flight", session -> isSaturated())
                .exitHereIf(session -> saturated.get());
    }

    private boolean isSaturated() {
        if (!saturated.get() && profile.steps != null
                && profile.steps.saturated(System.nanoTime(), profile.saturationSeconds)) {
            saturated.set(true);
        }
        return saturated.get();
    }

    /** Writes the profile, the figures under {@code prefix}, and the staircase steps if any. */
    void writeTo(ResultFile file, String prefix) {
        profile.describe(file, prefix + ".load");
        stats.writeTo(file, prefix);
        // warm-up included: what server-side counters sampled around the whole run are divided by
        file.put(prefix + ".requests_incl_warmup", everyRequest.get());
        if (profile.steps != null) {
            profile.steps.writeTo(file, prefix + ".staircase");
            file.put(prefix + ".staircase.stopped_saturated", saturated.get());
        }
    }
}
