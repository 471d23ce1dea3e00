package dev.cdccache.verifier.workload;

import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.cache.CachedValue;
import dev.cdccache.verifier.RunClock;
import dev.cdccache.verifier.history.CommittedHistory;
import dev.cdccache.verifier.history.KeyHistory;
import dev.cdccache.verifier.history.Tokens;
import dev.cdccache.verifier.instance.Caches;
import dev.cdccache.verifier.instance.ClientInstance;
import dev.cdccache.verifier.schema.Item;
import dev.cdccache.verifier.schema.VerifierSchema;
import dev.cdccache.verifier.workload.TableModel.RowChange;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consistency sampler's negative control: gives one instance's {@code itemById} cache a stale value that no
 * invalidation will ever correct, reads it through {@code get(key, loader)} until the client's sampler takes a sample
 * of it, and waits for the sampler's verdict.
 *
 * <p>The stale value is what a lost invalidation leaves: the writer updates a cold row, and once the instance has
 * applied that change, the row's previous value is put straight into the Caffeine store (which bypasses every
 * protection of the client). The value was committed once, so the history check judges it stale, not never
 * committed. Reads of it start once they are stale beyond the verifier's bound as measured so far (max-staleness +
 * the largest steady commit-to-eviction lag, + 1 s), so the history check flags each one, the sampled one included:
 * the sampler's stale verdict and the history check's must agree. The control starts once the instance is fresh.
 * Reads stop at the sampler's first re-read of the key, so that exactly one sample of it is taken.
 */
public final class StaleValuePlant implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(StaleValuePlant.class);
    private static final int ATTEMPTS = 3;

    /**
     * What the negative control did and what the sampler said.
     *
     * @param key the row id whose old value was planted, or -1 if none could be
     * @param hits reads of the planted entry until the sampler's first re-read of it
     * @param rereads loader calls the sampler made for the key: 1 per sample, 2 when the first re-read differed
     * @param staleSamples stale samples of the instance's {@code itemById} cache counted after the plant
     * @param reportedAfterNanos from the sampler's first re-read of the key to its stale count rising, or -1
     * @param failure why the control could not be carried out, or {@code null}
     */
    public record Result(String instance, long key, Item planted, Item current, int attempts, long hits, long rereads,
            long staleSamples, long reportedAfterNanos, String failure) {

        /** Whether the sampler reported the planted value stale. */
        public boolean reported() {
            return reportedAfterNanos >= 0;
        }
    }

    private final ClientInstance instance;
    private final ReadStatistics statistics;
    private final CommittedHistory history;
    private final Writer writer;
    private final OffThreadConnections connections;
    private final RunClock clock;
    private final Duration maxStaleness;
    private final LongSupplier lagBoundNanos;
    private final long startAt;
    private volatile boolean running = true;
    private volatile Result result;

    /**
     * @param lagBoundNanos the largest steady commit-to-eviction lag measured so far, over all instances
     * @param startAt when to start (a {@link RunClock} stamp): after the readers have filled the caches
     */
    public StaleValuePlant(ClientInstance instance, ReadStatistics statistics, CommittedHistory history, Writer writer,
            OffThreadConnections connections, RunClock clock, Duration maxStaleness, LongSupplier lagBoundNanos,
            long startAt) {
        this.lagBoundNanos = lagBoundNanos;
        this.instance = instance;
        this.statistics = statistics;
        this.history = history;
        this.writer = writer;
        this.connections = connections;
        this.clock = clock;
        this.maxStaleness = maxStaleness;
        this.startAt = startAt;
    }

    /** What happened; {@code null} until the control has finished. */
    public Result result() {
        return result;
    }

    public void stop() {
        running = false;
    }

    @Override
    public void run() {
        Result outcome = null;
        try {
            for (int attempt = 1; attempt <= ATTEMPTS && running && (outcome == null || outcome.failure() != null);
                    attempt++) {
                outcome = attempt(attempt);
            }
        } catch (SQLException | RuntimeException e) {
            LOG.warn("The stale-value control failed", e);
            outcome = failed(ATTEMPTS, "failed: " + e);
        }
        result = outcome != null ? outcome : failed(0, "stopped before it started");
        LOG.info("Stale-value control: {}", result);
    }

    private Result attempt(int attempt) throws SQLException {
        if (!sleepUntil(startAt)) {
            return failed(attempt, "stopped");
        }
        long freshBy = clock.now() + Duration.ofSeconds(60).toNanos();
        while (instance.status() == null || !instance.status().fresh()) {
            if (clock.now() > freshBy || !running) {
                return failed(attempt, instance.name() + " did not report itself fresh");
            }
            LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
        }
        RowChange change = writer.updateColdRow();
        if (change == null) {
            return failed(attempt, "no cold row could be updated");
        }
        long id = change.id();
        long version = change.after().version();
        long appliedBy = clock.now() + Duration.ofSeconds(10).toNanos();
        while (!applied(id, version)) {
            if (clock.now() > appliedBy || !running) {
                return failed(attempt, "the update of row " + id + " did not reach " + instance.name());
            }
            LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
        }
        // The change has been applied: nothing will evict the old value from now on.
        CachedValue<Item> planted = new CachedValue<>(change.before(), System.currentTimeMillis());
        if (instance.read(client -> {
            byId(client).caffeine().put(id, planted);
            return Boolean.TRUE;
        }) == null) {
            return failed(attempt, instance.name() + " was restarting");
        }
        long committedAt = history.ofId(id).commitEndOf(version);
        // the lag bound may still grow while waiting (a late event of the connector's start-up backlog)
        long readFrom;
        while (clock.now() < (readFrom = committedAt + maxStaleness.plusSeconds(1).toNanos() + lagBoundNanos.getAsLong())) {
            if (!sleepUntil(Math.min(readFrom, clock.now() + Duration.ofMillis(200).toNanos()))) {
                return failed(attempt, "stopped");
            }
        }

        Thread self = Thread.currentThread();
        AtomicLong firstReread = new AtomicLong(-1);
        AtomicLong rereads = new AtomicLong();
        AtomicLong missed = new AtomicLong();
        long staleBefore = staleSamples();
        long hits = 0;
        long readUntil = clock.now() + Duration.ofSeconds(30).toNanos();
        while (firstReread.get() < 0 && running && clock.now() < readUntil) {
            long t0 = clock.now();
            Item[] served = new Item[1];
            Boolean done = instance.read(client -> {
                served[0] = byId(client).get(id, key -> {
                    if (Thread.currentThread() == self) {
                        missed.incrementAndGet(); // the planted entry is gone: this is an ordinary miss
                    } else {
                        firstReread.compareAndSet(-1, clock.now());
                        rereads.incrementAndGet();
                        instance.recordSamplerReread();
                    }
                    return load(key);
                });
                return Boolean.TRUE;
            });
            long t1 = clock.now();
            if (done == null) {
                LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
                continue;
            }
            judge(id, served[0], t0, t1);
            if (missed.get() > 0) {
                return failed(attempt, "the planted value of row " + id + " was evicted (the row changed again)");
            }
            hits++;
            LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
        }
        if (firstReread.get() < 0) {
            return failed(attempt, "the sampler took no sample of row " + id + " in " + hits + " hits");
        }
        // Its verdict comes one max-staleness after the first re-read, when the second one still differs.
        long verdictBy = firstReread.get() + maxStaleness.plusSeconds(10).toNanos();
        long reportedAt = -1;
        while (running && clock.now() < verdictBy) {
            if (staleSamples() > staleBefore) {
                reportedAt = clock.now();
                break;
            }
            LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
        }
        return new Result(instance.name(), id, change.before(), change.after(), attempt, hits, rereads.get(),
                staleSamples() - staleBefore, reportedAt < 0 ? -1 : reportedAt - firstReread.get(), null);
    }

    private void judge(long id, Item value, long t0, long t1) {
        KeyHistory keyHistory = history.ofId(id);
        long verdict = keyHistory.classify(Tokens.of(value), t0, t1);
        String detail = "planted " + instance.name() + " cache " + Caches.BY_ID + " key " + id + " served " + value
                + " in a read from " + clock.format(t0) + " to " + clock.format(t1) + "; committed states (latest last): "
                + keyHistory.describeLast(3, t -> Long.toString(t), clock::format);
        if (verdict == KeyHistory.FRESH) {
            statistics.recordFresh(Caches.BY_ID);
        } else if (verdict == KeyHistory.PHANTOM) {
            statistics.recordPhantom(Caches.BY_ID, "PHANTOM (never committed): " + detail);
        } else {
            statistics.recordStale(Caches.BY_ID, verdict, () -> "stale by " + RunClock.millis(verdict) + ": " + detail);
        }
    }

    private Item load(long id) {
        try {
            return connections.run(c -> VerifierSchema.byId(c, id));
        } catch (SQLException e) {
            throw new Reader.LoadFailedException(e);
        }
    }

    private boolean applied(long id, long version) {
        for (long event : instance.received().events(id)) {
            if (event == version) {
                return true;
            }
        }
        return false;
    }

    private long staleSamples() {
        long[] counts = instance.samplerCounts().get(Caches.BY_ID);
        return counts == null ? 0 : counts[ClientInstance.SAMPLE_OUTCOMES.indexOf("stale")];
    }

    private static InvalidatingCache<Long, Item> byId(dev.cdccache.client.InvalidationClient client) {
        return client.cache(Caches.BY_ID);
    }

    private boolean sleepUntil(long at) {
        while (running && clock.now() < at) {
            LockSupport.parkNanos(Math.min(at - clock.now(), Duration.ofMillis(100).toNanos()));
        }
        return running;
    }

    private Result failed(int attempt, String why) {
        return new Result(instance.name(), -1, null, null, attempt, 0, 0, 0, -1, why);
    }
}
