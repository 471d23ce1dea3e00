package dev.cdccache.verifier.report;

import dev.cdccache.client.StalenessCheck;
import dev.cdccache.verifier.RunClock;
import dev.cdccache.verifier.VerifierSettings;
import dev.cdccache.verifier.check.CacheComparison;
import dev.cdccache.verifier.check.DeliveryCheck;
import dev.cdccache.verifier.check.IdleFreshness;
import dev.cdccache.verifier.fault.FaultKind;
import dev.cdccache.verifier.fault.FaultRecord;
import dev.cdccache.verifier.instance.ClientInstance;
import dev.cdccache.verifier.workload.ReadStatistics;
import dev.cdccache.verifier.workload.StaleValuePlant;
import dev.cdccache.verifier.workload.WriteKind;
import dev.cdccache.verifier.workload.WriteStatistics;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToLongFunction;
import org.HdrHistogram.Histogram;

/**
 * The outcome of a verification run: the figures (writes, reads, faults, staleness, lag, convergence,
 * delivery), the verdict against the three criteria, and every problem found with its details. Renders as
 * Markdown.
 */
public final class Report {

    private final VerifierSettings settings;
    private final RunClock clock;
    private final WriteStatistics writes;
    private final List<ReadStatistics> reads;
    private final List<ClientInstance> instances;
    private final List<FaultRecord> faults;
    private final long finalConvergenceNanos;
    private final String convergenceProblem;
    private final CacheComparison.Result firstComparison;
    private final CacheComparison.Result finalComparison;
    private final List<DeliveryCheck.Result> deliveries;
    private final IdleFreshness.Result idle;
    private final long committedRowChanges;
    private final long elapsedNanos;
    private final long steadyLagMaxNanos;
    private final long boundNanos;
    /** Per instance (in order), the consistency sampler's counts per cache. */
    private final List<Map<String, long[]>> samples = new ArrayList<>();
    /** Per instance (in order), the nines gauge per cache, read while the clients are open (gauges hold them weakly). */
    private final List<Map<String, Double>> nines = new ArrayList<>();
    private final StaleValuePlant.Result plant;
    private final List<String> problems = new ArrayList<>();

    public Report(VerifierSettings settings, RunClock clock, WriteStatistics writes, List<ReadStatistics> reads,
            List<ClientInstance> instances, List<FaultRecord> faults, long finalConvergenceNanos,
            String convergenceProblem, CacheComparison.Result firstComparison, CacheComparison.Result finalComparison,
            List<DeliveryCheck.Result> deliveries, IdleFreshness.Result idle, long committedRowChanges,
            long elapsedNanos, StaleValuePlant.Result plant) {
        this.plant = plant;
        this.settings = settings;
        this.clock = clock;
        this.writes = writes;
        this.reads = reads;
        this.instances = instances;
        this.faults = faults;
        this.finalConvergenceNanos = finalConvergenceNanos;
        this.convergenceProblem = convergenceProblem;
        this.firstComparison = firstComparison;
        this.finalComparison = finalComparison;
        this.deliveries = deliveries;
        this.idle = idle;
        this.committedRowChanges = committedRowChanges;
        this.elapsedNanos = elapsedNanos;
        long lagMax = 0;
        for (ClientInstance instance : instances) {
            lagMax = Math.max(lagMax, instance.lagSteady().getMaxValue() * 1000);
        }
        this.steadyLagMaxNanos = lagMax;
        this.boundNanos = settings.maxStaleness().toNanos() + lagMax;
        for (ClientInstance instance : instances) {
            samples.add(instance.samplerCounts());
            nines.add(instance.samplerNines());
        }
        judge();
    }

    private void judge() {
        if (convergenceProblem != null) {
            problems.add(convergenceProblem);
        }
        if (!finalComparison.mismatches().isEmpty()) {
            problems.add(finalComparison.mismatches().size() + " cached values still differ from the database after"
                    + " convergence, e.g. " + finalComparison.mismatches().subList(0,
                            Math.min(10, finalComparison.mismatches().size())));
        } else if (!firstComparison.mismatches().isEmpty()) {
            problems.add(firstComparison.mismatches().size() + " cached values differed from the database right"
                    + " after every instance claimed to have applied every change, e.g. "
                    + firstComparison.mismatches().subList(0, Math.min(10, firstComparison.mismatches().size())));
        }
        for (ReadStatistics r : reads) {
            long beyond = r.staleBeyond(boundNanos);
            if (beyond > 0) {
                problems.add(r.instance() + " served " + beyond + " values stale by more than max-staleness + the"
                        + " measured lag bound (" + RunClock.millis(boundNanos) + "); first cases: "
                        + r.overBoundDetails().subList(0, Math.min(5, r.overBoundDetails().size())));
            }
            if (r.phantoms() > 0) {
                problems.add(r.instance() + " served " + r.phantoms() + " values that were never committed: "
                        + r.phantomDetails().subList(0, Math.min(5, r.phantomDetails().size())));
            }
            if (r.entryAgeViolations() > 0) {
                problems.add(r.instance() + " would have served " + r.entryAgeViolations() + " entries not confirmed"
                        + " within max-staleness: " + r.entryAgeViolationDetails().subList(0,
                                Math.min(5, r.entryAgeViolationDetails().size())));
            }
        }
        for (DeliveryCheck.Result d : deliveries) {
            if (d.missing() > 0 || d.missingTruncations() > 0) {
                problems.add(d.instance() + " lost " + d.missing() + " of " + d.expected() + " change events and "
                        + d.missingTruncations() + " of " + d.expectedTruncations() + " truncations: " + d.examples());
            }
        }
        if (!idle.unfresh().isEmpty()) {
            problems.add("on an idle database with every component running, " + idle.unfresh() + " stopped reporting"
                    + " themselves fresh within " + idle.watched().toSeconds() + " s (largest watermark age per instance "
                    + idle.largestWatermarkAgeMillis() + " ms > max-staleness " + settings.maxStaleness().toMillis()
                    + " ms): no heartbeat reached them, so they stopped serving cached entries although nothing"
                    + " had changed (" + idle.heartbeatRow() + ")");
        }
        judgeSampler();
        for (FaultRecord fault : faults) {
            if (fault.failure() != null) {
                problems.add("fault #" + fault.number() + " (" + fault.kind().description() + ", " + fault.target()
                        + "): " + fault.failure());
            }
        }
    }

    /**
     * The consistency sampler against the history check: with sampling on, every instance's sampler must have
     * classified samples consistent, and a stale sample of a cache must coincide with the history check finding a value
     * of that cache on that instance stale beyond max-staleness (the sampler's own bound) or never committed. So a
     * sampler that reports stale while the history check passes fails the run, and so does one that never samples.
     */
    private void judgeSampler() {
        if (!settings.samplingOn()) {
            return;
        }
        long maxStalenessNanos = settings.maxStaleness().toNanos();
        for (int i = 0; i < instances.size(); i++) {
            ReadStatistics r = reads.get(i);
            problems.addAll(samplerProblems(instances.get(i).name(), settings.samplingOneIn(), samples.get(i),
                    cache -> r.staleBeyond(cache, maxStalenessNanos) + r.phantoms(cache)));
        }
        if (plant != null && plant.failure() != null) {
            problems.add("negative control: no stale value could be planted: " + plant.failure());
        } else if (plant != null && !plant.reported()) {
            problems.add("negative control: the sampler did not report the old value of row " + plant.key()
                    + " planted in " + plant.instance() + " " + "itemById stale within max-staleness + 10 s of its first"
                    + " re-read (" + plant.rereads() + " re-reads after " + plant.hits() + " hits)");
        }
    }

    /**
     * One instance's sampler against the history check: a problem if it classified no sample consistent, and one for
     * each cache with a stale sample where the history check found no value stale beyond max-staleness or never
     * committed.
     *
     * @param counts per cache, {@code [consistent, stale, inconclusive]}
     * @param historyStale per cache, the values the history check found stale beyond max-staleness or never committed
     */
    static List<String> samplerProblems(String instance, int oneIn, Map<String, long[]> counts,
            ToLongFunction<String> historyStale) {
        List<String> found = new ArrayList<>();
        if (counts.values().stream().mapToLong(c -> c[0]).sum() == 0) {
            found.add(instance + ": consistency sampling was on (one hit in " + oneIn + ") but its sampler classified"
                    + " no sample consistent (" + describe(counts) + "): a sampler that takes no samples vouches for"
                    + " nothing");
        }
        counts.forEach((cache, c) -> {
            if (c[1] > 0 && historyStale.applyAsLong(cache) == 0) {
                found.add(instance + "'s consistency sampler reported " + c[1] + " stale sample(s) of cache " + cache
                        + ", but the history check found no value of that cache on that instance stale beyond"
                        + " max-staleness or never committed: the sampler and the history check disagree (a false"
                        + " alarm of the sampler, or a stale value the readers never read)");
            }
        });
        return found;
    }

    private static String describe(Map<String, long[]> counts) {
        StringBuilder text = new StringBuilder();
        counts.forEach((cache, c) -> text.append(text.length() == 0 ? "" : ", ").append(cache).append(' ')
                .append(c[0]).append('/').append(c[1]).append('/').append(c[2]));
        return text.length() == 0 ? "no cache sampled" : "consistent/stale/inconclusive: " + text;
    }

    /**
     * Per instance name, the consistency sampler's counts per cache: {@code [consistent, stale, inconclusive]}
     * ({@link ClientInstance#SAMPLE_OUTCOMES}); empty maps with sampling off.
     */
    public Map<String, Map<String, long[]>> samplerCounts() {
        Map<String, Map<String, long[]>> all = new TreeMap<>();
        for (int i = 0; i < instances.size(); i++) {
            all.put(instances.get(i).name(), samples.get(i));
        }
        return all;
    }

    /** Samples of every cache of every instance with the given outcome ({@link ClientInstance#SAMPLE_OUTCOMES}). */
    public long samples(String outcome) {
        int index = ClientInstance.SAMPLE_OUTCOMES.indexOf(outcome);
        return samples.stream().flatMap(m -> m.values().stream()).mapToLong(c -> c[index]).sum();
    }

    /** The sampler's negative control, or {@code null} if the run had none. */
    public StaleValuePlant.Result plant() {
        return plant;
    }

    public boolean passed() {
        return problems.isEmpty();
    }

    public List<String> problems() {
        return List.copyOf(problems);
    }

    public List<FaultRecord> faults() {
        return faults;
    }

    public long servedValues() {
        return reads.stream().mapToLong(ReadStatistics::served).sum();
    }

    public long freshValues() {
        return reads.stream().mapToLong(ReadStatistics::fresh).sum();
    }

    public String markdown() {
        StringBuilder md = new StringBuilder();
        md.append("# Consistency verification report\n\n");
        md.append("- Finished: ").append(Instant.now()).append('\n');
        md.append("- Machine: ").append(Runtime.getRuntime().availableProcessors()).append(" cores, Java ")
                .append(System.getProperty("java.version")).append(", ").append(System.getProperty("os.name"))
                .append(' ').append(System.getProperty("os.arch")).append('\n');
        md.append("- Settings: ").append(settings).append('\n');
        md.append("- Run time (writes, reads and faults): ").append(seconds(elapsedNanos)).append('\n');
        md.append("- **Result: ").append(passed() ? "PASS" : "FAIL").append("**")
                .append(passed() ? " (zero cached values differ after convergence, no value stale beyond the bound,"
                        + " nothing lost)" : "").append("\n\n");

        md.append("## Writes\n\n| kind | transactions | rows changed |\n| --- | ---: | ---: |\n");
        for (WriteKind kind : WriteKind.values()) {
            md.append("| ").append(kind.description()).append(" | ").append(writes.transactions(kind)).append(" | ")
                    .append(writes.rows(kind)).append(" |\n");
        }
        md.append("| **committed in all** | ").append(writes.totalTransactions()).append(" | ")
                .append(writes.totalRowChanges()).append(" |\n\n");
        md.append("Commits that threw and were read back: ").append(writes.failures()).append(" (")
                .append(writes.ambiguousCommitted()).append(" had committed). Rolled-back rows are not counted in"
                        + " the total.\n\n");

        md.append("## Reads\n\nEvery value served (each key of a bulk read counts once) is compared with the writer's"
                + " log: fresh if it was the committed value at some moment of the read, stale by the time since the"
                + " newer version's commit returned otherwise.\n\n");
        md.append("| instance | operations | values served | fresh | stale | never committed | failed loads (DB down)"
                + " | skipped (restarting) | consistency |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        long ops = 0;
        long served = 0;
        long fresh = 0;
        long stale = 0;
        long phantoms = 0;
        long errors = 0;
        long skipped = 0;
        for (ReadStatistics r : reads) {
            md.append("| ").append(r.instance()).append(" | ").append(r.operations()).append(" | ").append(r.served())
                    .append(" | ").append(r.fresh()).append(" | ").append(r.stale()).append(" | ").append(r.phantoms())
                    .append(" | ").append(r.errors()).append(" | ").append(r.skipped()).append(" | ")
                    .append(nines(r.fresh(), r.served())).append(" |\n");
            ops += r.operations();
            served += r.served();
            fresh += r.fresh();
            stale += r.stale();
            phantoms += r.phantoms();
            errors += r.errors();
            skipped += r.skipped();
        }
        md.append("| **all** | ").append(ops).append(" | ").append(served).append(" | ").append(fresh).append(" | ")
                .append(stale).append(" | ").append(phantoms).append(" | ").append(errors).append(" | ").append(skipped)
                .append(" | ").append(nines(fresh, served)).append(" |\n\n");

        md.append("### Per cache (all instances)\n\n| cache | values served | stale | consistency |\n"
                + "| --- | ---: | ---: | ---: |\n");
        Map<String, long[]> perCache = new TreeMap<>();
        for (ReadStatistics r : reads) {
            r.perCache().forEach((cache, c) -> perCache.merge(cache, c.clone(), (a, b) -> new long[] {a[0] + b[0], a[1] + b[1]}));
        }
        perCache.forEach((cache, c) -> md.append("| ").append(cache).append(" | ").append(c[0]).append(" | ")
                .append(c[1]).append(" | ").append(nines(c[0] - c[1], c[0])).append(" |\n"));
        md.append("\nStale values within the bound are the invalidation lag at work: a value read from the cache"
                + " after a commit and before its event arrived. The aggregate (evicted by every change) and the"
                + " group lists see the most of them.\n\n");

        md.append("### Stale reads by age\n\n| age | values |\n| --- | ---: |\n");
        long[] buckets = new long[ReadStatistics.BUCKET_BOUNDS_MILLIS.length + 2];
        Histogram ages = new Histogram(3_600_000_000L, 3);
        for (ReadStatistics r : reads) {
            long[] b = r.staleBuckets();
            for (int i = 0; i < b.length; i++) {
                buckets[i] += b[i];
            }
            ages.add(r.staleAgesMicros());
        }
        String[] labels = {"<= 10 ms", "10-100 ms", "100 ms - 1 s", "1 s - max-staleness ("
                + settings.maxStaleness().toMillis() + " ms)", "> max-staleness"};
        for (int i = 0; i < buckets.length; i++) {
            md.append("| ").append(labels[i]).append(" | ").append(buckets[i]).append(" |\n");
        }
        md.append('\n');
        if (ages.getTotalCount() > 0) {
            md.append("Stale ages: p50 ").append(micros(ages.getValueAtPercentile(50))).append(", p99 ")
                    .append(micros(ages.getValueAtPercentile(99))).append(", max ").append(micros(ages.getMaxValue()))
                    .append(".\n\n");
        }

        md.append("## Staleness bound\n\n");
        long maxStale = reads.stream().mapToLong(ReadStatistics::maxStaleNanos).max().orElse(-1);
        md.append("- Max staleness observed: ").append(maxStale < 0 ? "none (no stale value served)" : RunClock.millis(maxStale))
                .append('\n');
        md.append("- Bound: max-staleness ").append(settings.maxStaleness().toMillis()).append(" ms + measured lag bound ")
                .append(RunClock.millis(steadyLagMaxNanos)).append(" (the largest commit-to-eviction lag of an event"
                        + " committed and applied outside fault windows) = ").append(RunClock.millis(boundNanos)).append('\n');
        md.append("- Values stale beyond the bound: ")
                .append(reads.stream().mapToLong(r -> r.staleBeyond(boundNanos)).sum())
                .append("; beyond max-staleness alone (no lag allowance): ")
                .append(reads.stream().mapToLong(r -> r.staleBeyond(settings.maxStaleness().toNanos())).sum())
                .append('\n');
        md.append("- Staleness guard, checked directly on a sample of cache hits (entry loaded or confirmed by the"
                + " watermark within max-staleness): ").append(reads.stream().mapToLong(ReadStatistics::entryChecks).sum())
                .append(" hits checked, largest age ")
                .append(reads.stream().mapToLong(ReadStatistics::maxEntryAgeMillis).max().orElse(-1))
                .append(" ms, violations ").append(reads.stream().mapToLong(ReadStatistics::entryAgeViolations).sum())
                .append('\n');
        md.append("- Staleness check per instance (scheduled: runs of the background check later than its slack):");
        for (ClientInstance instance : instances) {
            md.append(' ').append(instance.name()).append(instance.stalenessCheck() == StalenessCheck.SCHEDULED
                    ? " " + instance.checkOverruns() + " overruns;" : ";");
        }
        md.setLength(md.length() - 1);
        md.append('\n');
        reads.stream().filter(r -> r.maxStaleDetail() != null).forEach(r -> md.append("- Stalest value on ")
                .append(r.instance()).append(": ").append(r.maxStaleDetail()).append('\n'));
        md.append('\n');

        samplerSection(md);

        md.append("## Faults\n\n| # | fault | target | at | recovered after | converged after recovery | notes |\n"
                + "| ---: | --- | --- | ---: | ---: | ---: | --- |\n");
        Map<FaultKind, Integer> counts = new EnumMap<>(FaultKind.class);
        for (FaultRecord f : faults) {
            counts.merge(f.kind(), 1, Integer::sum);
            md.append("| ").append(f.number()).append(" | ").append(f.kind().description()).append(" | ")
                    .append(f.target()).append(" | ").append(clock.format(f.startedAt())).append(" | ")
                    .append(f.recoveredAt() == Long.MAX_VALUE ? "-" : seconds(f.recoveredAt() - f.startedAt()))
                    .append(" | ").append(f.convergedAt() == Long.MAX_VALUE || f.recoveredAt() == Long.MAX_VALUE ? "-"
                            : RunClock.millis(f.convergedAt() - f.recoveredAt()))
                    .append(" | ").append(String.join("; ", f.observations()))
                    .append(f.failure() == null ? "" : "; **FAILED: " + f.failure() + "**").append(" |\n");
        }
        md.append("\nInjected: ").append(counts.isEmpty() ? "none" : counts).append(". Converged = every instance"
                + " applied a probe write committed after the recovery, reports itself fresh, and its watermark"
                + " covers the recovery moment.\n\n");

        md.append("## Commit-to-eviction lag\n\nFrom the writer's `commit()` returning to the instance applying"
                + " the event (same JVM, `System.nanoTime`), per instance.\n\n"
                + "| instance | events applied | steady p50 | steady p99 | steady p99.9 | steady max | max incl. faults |\n"
                + "| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        for (ClientInstance instance : instances) {
            Histogram steady = instance.lagSteady();
            md.append("| ").append(instance.name()).append(" | ").append(instance.eventsApplied()).append(" | ")
                    .append(micros(steady.getValueAtPercentile(50))).append(" | ")
                    .append(micros(steady.getValueAtPercentile(99))).append(" | ")
                    .append(micros(steady.getValueAtPercentile(99.9))).append(" | ")
                    .append(micros(steady.getMaxValue())).append(" | ")
                    .append(micros(instance.lagAll().getMaxValue())).append(" |\n");
        }
        md.append('\n');

        md.append("## Nothing lost\n\nEvery change committed while an instance incarnation was live (from ready"
                + " until it was shown to have applied everything) must reach it; duplicates allowed.\n\n"
                + "| instance | incarnations | changes owed | events received (with duplicates) | missing |"
                + " delivered by a coalesced eviction | truncations owed | missing |\n"
                + "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        for (int i = 0; i < deliveries.size(); i++) {
            DeliveryCheck.Result d = deliveries.get(i);
            md.append("| ").append(d.instance()).append(" | ").append(instances.get(i).incarnations()).append(" | ")
                    .append(d.expected()).append(" | ").append(d.received()).append(" | ").append(d.missing())
                    .append(" | ").append(d.coveredByCoalescedEviction())
                    .append(" | ").append(d.expectedTruncations()).append(" | ").append(d.missingTruncations())
                    .append(" |\n");
        }
        md.append("\nCommitted row changes in the writer's log: ").append(committedRowChanges).append(".\n\n");

        md.append("## Idle database\n\nAfter the last write, with every component running, for ")
                .append(idle.watched().toSeconds()).append(" s: largest watermark age per instance ")
                .append(idle.largestWatermarkAgeMillis()).append(" ms (max-staleness ")
                .append(settings.maxStaleness().toMillis()).append(" ms); instances that stopped reporting"
                        + " themselves fresh: ").append(idle.unfresh().isEmpty() ? "none" : idle.unfresh())
                .append("; ").append(idle.heartbeatRow()).append(".\n\n");
        md.append("## Convergence after the last write\n\n");
        md.append("- Every instance caught up ").append(finalConvergenceNanos < 0 ? "NOT within the timeout"
                : RunClock.millis(finalConvergenceNanos) + " after the last write").append('\n');
        md.append("- Entries compared with the database: ").append(finalComparison.total()).append(' ')
                .append(finalComparison.entriesCompared()).append('\n');
        md.append("- Differing right after convergence: ").append(firstComparison.mismatches().size())
                .append("; after waiting: ").append(finalComparison.mismatches().size()).append("\n\n");

        md.append("## Problems\n\n");
        if (problems.isEmpty()) {
            md.append("None.\n");
        } else {
            for (String problem : problems) {
                md.append("- ").append(problem).append('\n');
            }
        }
        return md.toString();
    }

    private void samplerSection(StringBuilder md) {
        md.append("## Consistency sampler\n\n");
        if (!settings.samplingOn()) {
            md.append("Off (`--sampling-one-in 0`).\n\n");
            return;
        }
        md.append("Each client re-reads one hit of `get(key, loader)` in ").append(settings.samplingOneIn())
                .append(" through the loader that served it, on its sampler's own thread (`sampling.one-in`), and"
                        + " compares; a difference still there one max-staleness later, with the entry still cached and"
                        + " no invalidation, is stale. Counts from `cdc.client.consistency.samples`, summed over an"
                        + " instance's incarnations; nines from `cdc.client.consistency.nines` of the last incarnation."
                        + " History: values of that cache the instance served stale beyond max-staleness, or never"
                        + " committed, by the history check. A stale sample must coincide with one of those.\n\n");
        md.append("| instance | cache | consistent | stale | inconclusive | nines | history: beyond max-staleness |\n"
                + "| --- | --- | ---: | ---: | ---: | ---: | ---: |\n");
        long[] total = new long[ClientInstance.SAMPLE_OUTCOMES.size()];
        for (int i = 0; i < instances.size(); i++) {
            ClientInstance instance = instances.get(i);
            for (Map.Entry<String, long[]> e : samples.get(i).entrySet()) {
                long[] c = e.getValue();
                if (c[0] + c[1] + c[2] == 0) {
                    continue; // a cache nobody reads with a loader (the probe table's)
                }
                Double n = nines.get(i).get(e.getKey());
                md.append("| ").append(instance.name()).append(" | ").append(e.getKey()).append(" | ").append(c[0])
                        .append(" | ").append(c[1]).append(" | ").append(c[2]).append(" | ")
                        .append(n == null || n.isNaN() ? "-" : String.format(Locale.ROOT, "%.2f", n)).append(" | ")
                        .append(reads.get(i).staleBeyond(e.getKey(), settings.maxStaleness().toNanos())
                                + reads.get(i).phantoms(e.getKey())).append(" |\n");
                for (int k = 0; k < total.length; k++) {
                    total[k] += c[k];
                }
            }
        }
        md.append("| **all** | | ").append(total[0]).append(" | ").append(total[1]).append(" | ").append(total[2])
                .append(" | | |\n\n");
        md.append("Loader calls made by the samplers, as the loaders saw them (one per sample, two when it differed):");
        for (ClientInstance instance : instances) {
            md.append(' ').append(instance.name()).append(' ').append(instance.samplerRereads()).append(';');
        }
        md.setLength(md.length() - 1);
        md.append(".\n\n");
        if (plant != null) {
            md.append("### Negative control: an old value planted in a cache\n\n");
            if (plant.failure() != null) {
                md.append("Not carried out: ").append(plant.failure()).append(".\n\n");
            } else {
                md.append("Row ").append(plant.key()).append(" updated from ").append(plant.planted()).append(" to ")
                        .append(plant.current()).append("; once ").append(plant.instance()).append(" had applied"
                                + " it, the old value was put into its `itemById` Caffeine store (attempt ")
                        .append(plant.attempts()).append("). Read ").append(plant.hits()).append(" times until the"
                                + " sampler's first re-read; the sampler re-read it ").append(plant.rereads())
                        .append(" times and ").append(plant.reported() ? "reported it stale "
                                + RunClock.millis(plant.reportedAfterNanos()) + " after its first re-read ("
                                + plant.staleSamples() + " stale sample(s))" : "did NOT report it stale").append(".\n\n");
            }
        }
    }

    /** Writes the Markdown to {@code file}. */
    public void write(Path file) {
        try {
            if (file.getParent() != null) {
                Files.createDirectories(file.getParent());
            }
            Files.writeString(file, markdown());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Fresh share as a percentage and in nines. */
    static String nines(long fresh, long all) {
        if (all == 0) {
            return "-";
        }
        double share = (double) fresh / all;
        if (fresh == all) {
            return String.format(Locale.ROOT, "100%% (all %d fresh: > %.1f nines)", all, Math.log10(all));
        }
        return String.format(Locale.ROOT, "%.5f%% (%.2f nines)", share * 100, -Math.log10(1 - share));
    }

    private static String micros(long micros) {
        return String.format(Locale.ROOT, "%.1f ms", micros / 1000.0);
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.1f s", nanos / 1e9);
    }
}
