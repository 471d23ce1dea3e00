package dev.cdccache.verifier.instance;

import dev.cdccache.client.StalenessCheck;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.parsing.ChangeEvent;
import dev.cdccache.client.parsing.Operation;
import dev.cdccache.client.staleness.StalenessStatus;
import dev.cdccache.verifier.RunClock;
import dev.cdccache.verifier.fault.FaultTimeline;
import dev.cdccache.verifier.history.CommittedHistory;
import dev.cdccache.verifier.history.KeyHistory;
import dev.cdccache.verifier.schema.VerifierSchema;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import tools.jackson.databind.JsonNode;

/**
 * One application instance: an {@link InvalidationClient} with the verifier's {@linkplain Caches caches},
 * which can be restarted (closed and created anew) and whose consumer can be held still. It records every
 * change event it applies ({@link ReceivedEvents}) and the commit-to-eviction lag from the writer's
 * client-side commit stamps.
 *
 * <p>Readers use the client only through {@link #read}, under a read lock, so a restart never lets a read
 * use a closed client (whose caches no longer receive invalidations).
 *
 * <p>With consistency sampling on, the client's sampler counts are read from its meters
 * ({@code cdc.client.consistency.samples}), the way an operator sees them, and summed over incarnations.
 */
public final class ClientInstance implements AutoCloseable {

    /** The sampler's outcomes, in the order of the arrays {@link #samplerCounts()} returns. */
    public static final List<String> SAMPLE_OUTCOMES = List.of("consistent", "stale", "inconclusive");
    private static final String SAMPLES_METER = "cdc.client.consistency.samples";

    private static final long HIGHEST_LAG_MICROS = TimeUnit.HOURS.toMicros(1);

    private final String name;
    private final String bootstrapServers;
    private final Duration maxStaleness;
    private final CommittedHistory history;
    private final FaultTimeline timeline;
    private final RunClock clock;
    private final ReceivedEvents received;
    private final RestartGate swap = new RestartGate();
    private final Histogram lagAll = new ConcurrentHistogram(HIGHEST_LAG_MICROS, 3);
    private final Histogram lagSteady = new ConcurrentHistogram(HIGHEST_LAG_MICROS, 3);
    private final AtomicLong probeSeq = new AtomicLong();
    private final AtomicLong eventsApplied = new AtomicLong();
    /** [readyAt, expectedUntil] per incarnation: the windows in which every committed change must arrive. */
    private final List<long[]> liveWindows = new ArrayList<>();
    private volatile InvalidationClient client;
    private volatile CountDownLatch hold;
    private int incarnations;
    private final StalenessCheck stalenessCheck;
    /** Scheduled-check overruns of closed incarnations; guarded by the swap lock. */
    private long closedOverruns;
    private final int samplingOneIn;
    private final int samplingMaxPerSecond;
    /** The current incarnation's meters. */
    private volatile MeterRegistry meters;
    /** Sampler counts of closed incarnations per cache ({@link #SAMPLE_OUTCOMES}); guarded by the swap lock. */
    private final Map<String, long[]> closedSamples = new TreeMap<>();
    private final LongAdder samplerRereads = new LongAdder();

    /**
     * @param samplingOneIn the client's {@code sampling.one-in}, 0 for no consistency sampling
     * @param samplingMaxPerSecond the client's {@code sampling.max-per-second}
     */
    public ClientInstance(String name, String bootstrapServers, Duration maxStaleness, StalenessCheck stalenessCheck,
            int samplingOneIn, int samplingMaxPerSecond, CommittedHistory history, FaultTimeline timeline,
            RunClock clock) {
        this.samplingOneIn = samplingOneIn;
        this.samplingMaxPerSecond = samplingMaxPerSecond;
        this.name = name;
        this.bootstrapServers = bootstrapServers;
        this.maxStaleness = maxStaleness;
        this.stalenessCheck = stalenessCheck;
        this.history = history;
        this.timeline = timeline;
        this.clock = clock;
        this.received = new ReceivedEvents(history.idSpace());
    }

    public String name() {
        return name;
    }

    /** Creates and starts a client and waits until it is ready. */
    public void start() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        InvalidationClientConfig.Builder config = InvalidationClientConfig.builder()
                .bootstrapServers(bootstrapServers)
                .topicPrefix("cdc")
                .maxStaleness(maxStaleness)
                .stalenessCheck(stalenessCheck)
                .clientId("verifier-" + name)
                .meterRegistry(registry)
                .listener(this::onApplied);
        if (samplingOneIn > 0) {
            config.samplingOneIn(samplingOneIn).samplingMaxPerSecond(samplingMaxPerSecond);
        }
        Caches.definitions().forEach(config::cache);
        InvalidationClient created = new InvalidationClient(config.build());
        created.start();
        if (!created.awaitReady(Duration.ofSeconds(60))) {
            created.close();
            throw new IllegalStateException(name + ": the invalidation client did not become ready within 60 s");
        }
        long readyAt = clock.now();
        swap.closeForRestart();
        try {
            client = created;
            meters = registry;
            incarnations++;
            synchronized (liveWindows) {
                liveWindows.add(new long[] {readyAt, Long.MAX_VALUE});
            }
        } finally {
            swap.reopen();
        }
    }

    /**
     * Closes the client. Changes committed up to {@code caughtUpTo} (a time the caller has shown this instance
     * had applied everything before) must have arrived; later ones are not expected from this incarnation.
     */
    public void stop(long caughtUpTo) {
        swap.closeForRestart();
        try {
            if (client != null) {
                client.close();
                closedOverruns += client.status().checkOverruns();
                // read while the closed client still holds the counts its meters report
                samples(meters).forEach((cache, counts) -> closedSamples.merge(cache, counts, ClientInstance::sum));
                client = null;
            }
            synchronized (liveWindows) {
                if (!liveWindows.isEmpty()) {
                    liveWindows.get(liveWindows.size() - 1)[1] = caughtUpTo;
                }
            }
        } finally {
            swap.reopen();
        }
    }

    /** Runs {@code work} with the current client, or returns {@code null} if the instance is restarting. */
    public <T> T read(Function<InvalidationClient, T> work) {
        if (!swap.tryEnter()) {
            return null;
        }
        try {
            InvalidationClient current = client;
            return current == null ? null : work.apply(current);
        } finally {
            swap.leave();
        }
    }

    /** The client's staleness status, or {@code null} while restarting. */
    public StalenessStatus status() {
        InvalidationClient current = client;
        return current == null ? null : current.status();
    }

    /** Blocks the consumer thread at the next event it applies, until {@link #releaseConsumer()}. */
    public void holdConsumer() {
        hold = new CountDownLatch(1);
    }

    public void releaseConsumer() {
        CountDownLatch latch = hold;
        hold = null;
        if (latch != null) {
            latch.countDown();
        }
    }

    /** The highest probe sequence number this instance has applied. */
    public long probeSeq() {
        return probeSeq.get();
    }

    public ReceivedEvents received() {
        return received;
    }

    public long eventsApplied() {
        return eventsApplied.get();
    }

    public StalenessCheck stalenessCheck() {
        return stalenessCheck;
    }

    /**
     * Runs of the scheduled staleness check that came later than its slack, over every incarnation (always 0
     * with the every-hit check).
     */
    public long checkOverruns() {
        swap.enterWaiting();
        try {
            return closedOverruns + (client != null ? client.status().checkOverruns() : 0);
        } finally {
            swap.leave();
        }
    }

    /**
     * The consistency sampler's outcomes per cache, summed over every incarnation: {@code [consistent, stale,
     * inconclusive]} ({@link #SAMPLE_OUTCOMES}), from {@code cdc.client.consistency.samples}. Empty with sampling off.
     */
    public Map<String, long[]> samplerCounts() {
        swap.enterWaiting();
        try {
            Map<String, long[]> all = new TreeMap<>();
            closedSamples.forEach((cache, counts) -> all.put(cache, counts.clone()));
            if (client != null) {
                samples(meters).forEach((cache, counts) -> all.merge(cache, counts, ClientInstance::sum));
            }
            return all;
        } finally {
            swap.leave();
        }
    }

    /**
     * The current incarnation's {@code cdc.client.consistency.nines} per cache (over the sampling window; NaN without
     * a decided sample). Empty with sampling off or while restarting.
     */
    public Map<String, Double> samplerNines() {
        MeterRegistry registry = meters;
        Map<String, Double> nines = new TreeMap<>();
        if (registry != null) {
            for (Gauge gauge : registry.find("cdc.client.consistency.nines").gauges()) {
                nines.put(gauge.getId().getTag("cache"), gauge.value());
            }
        }
        return nines;
    }

    /** The current incarnation's meters, as an operator would scrape them. */
    public MeterRegistry meters() {
        return meters;
    }

    /** Counts a loader call the sampler made (a loader running on a thread that is not a reader's). */
    public void recordSamplerReread() {
        samplerRereads.increment();
    }

    /** Loader calls made by the sampler, as the loaders saw them: at least one per sample, two when it differed. */
    public long samplerRereads() {
        return samplerRereads.sum();
    }

    public int incarnations() {
        return incarnations;
    }

    /** Commit-to-eviction lag (µs) of every applied row event whose commit time is known. */
    public Histogram lagAll() {
        return lagAll;
    }

    /** The same, for events committed and applied outside fault windows. */
    public Histogram lagSteady() {
        return lagSteady;
    }

    public List<long[]> liveWindows() {
        synchronized (liveWindows) {
            List<long[]> copy = new ArrayList<>();
            liveWindows.forEach(w -> copy.add(w.clone()));
            return copy;
        }
    }

    private void onApplied(ChangeEvent event) {
        CountDownLatch latch = hold;
        if (latch != null) {
            try {
                latch.await(); // simulates a stuck consumer: nothing after this event is applied
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        long now = clock.now();
        eventsApplied.incrementAndGet();
        String table = event.database() + "." + event.table();
        if (table.equals(VerifierSchema.PROBE_TABLE)) {
            if (event.after() != null) {
                probeSeq.accumulateAndGet(event.after().path("seq").asLong(), Math::max);
            }
            return;
        }
        if (!table.equals(VerifierSchema.ITEM_TABLE)) {
            return;
        }
        if (event.operation() == Operation.TRUNCATE) {
            received.truncation(now);
            return;
        }
        if (event.coalesced() != null) {
            received.coalescedEviction(event.coalesced().transaction(), now, event.coalesced().rowsPublished());
            return;
        }
        JsonNode after = event.after();
        JsonNode before = event.before();
        if (after != null && !after.isNull()) {
            long id = after.path("id").asLong();
            long version = after.path("version").asLong();
            received.event(id, version);
            recordLag(id, version, now);
        } else if (before != null && !before.isNull()) {
            received.event(before.path("id").asLong(), -before.path("version").asLong());
        }
    }

    private void recordLag(long id, long version, long now) {
        if (id <= 0 || id > history.idSpace()) {
            return;
        }
        KeyHistory h = history.ofId(id);
        long committedAt = h.commitEndOf(version);
        if (committedAt == Long.MIN_VALUE) {
            return;
        }
        // The event can arrive before the writer's commit() returned: a lag of zero.
        long lagMicros = committedAt == KeyHistory.PENDING ? 0 : Math.max(0, (now - committedAt) / 1000);
        lagMicros = Math.min(lagMicros, HIGHEST_LAG_MICROS);
        lagAll.recordValue(lagMicros);
        // Steady state: neither committed nor applied during a fault (events held up by a fault are not lag).
        if (committedAt != KeyHistory.PENDING && !timeline.disturbedAt(committedAt) && !timeline.disturbedAt(now)) {
            lagSteady.recordValue(lagMicros);
        }
    }

    private static Map<String, long[]> samples(MeterRegistry registry) {
        Map<String, long[]> counts = new TreeMap<>();
        if (registry == null) {
            return counts;
        }
        for (FunctionCounter counter : registry.find(SAMPLES_METER).functionCounters()) {
            int outcome = SAMPLE_OUTCOMES.indexOf(counter.getId().getTag("outcome"));
            if (outcome >= 0) {
                counts.computeIfAbsent(counter.getId().getTag("cache"), c -> new long[SAMPLE_OUTCOMES.size()])[outcome] +=
                        (long) counter.count();
            }
        }
        return counts;
    }

    private static long[] sum(long[] a, long[] b) {
        long[] total = a.clone();
        for (int i = 0; i < total.length; i++) {
            total[i] += b[i];
        }
        return total;
    }

    @Override
    public void close() {
        releaseConsumer();
        stop(Long.MAX_VALUE);
    }
}
