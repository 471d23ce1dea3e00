package dev.cdccache.bench.lag;

import dev.cdccache.bench.measure.LatencySummary;
import dev.cdccache.bench.measure.ResultFile;
import dev.cdccache.bench.writer.PacedWriter;
import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.KeyType;
import dev.cdccache.client.parsing.ChangeEvent;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SynchronizedHistogram;
import tools.jackson.databind.JsonNode;

/**
 * Measures commit-to-eviction lag through the real pipeline: a writer commits row changes with plain JDBC
 * at a set rate, the connector streams them from the binlog to Kafka, and N lightweight client instances
 * ({@link InvalidationClient} without HTTP, in this JVM, each with its own Kafka consumer) evict their
 * cached copy of the row. Each change writes a new {@code version}; right after {@code commit()} returns
 * the writer stamps that version with {@code System.nanoTime()}, and every instance's
 * {@link dev.cdccache.client.InvalidationListener} (called after the eviction) records now minus that
 * stamp. Writer and clients share one JVM, so one monotonic clock measures both ends.
 *
 * <pre>
 * # once, before the connector starts (it checks that captured tables exist):
 * java -cp ... dev.cdccache.bench.lag.InvalidationLagDriver setup --jdbc-url jdbc:mariadb://127.0.0.1:13306/
 *      --user admin --password ... [--rows 10000] [--app-user cdc_app]
 * # with the connector capturing bench_db.lag_probe:
 * java -cp ... dev.cdccache.bench.lag.InvalidationLagDriver run --jdbc-url ... --user ... --password ...
 *      --bootstrap-servers 127.0.0.1:19092 [--topic-prefix cdc] [--instances 2,4] [--rates 100,1000,5000]
 *      [--seconds 10] [--burst 10000] [--writer-threads 4] [--warmup-seconds 10] [--warmup-rate 1000]
 *      [--out target/bench/lag.properties]
 * </pre>
 *
 * Prints p50/p99/max per instance per rate and writes them (plus a 1 ms-bucket histogram per phase, CSV)
 * next to {@code --out}. A change some instance never applied within 60 s is reported as missing.
 */
public final class InvalidationLagDriver {

    private static final String CACHE = "probes";

    private final DriverArguments args;
    private final int rows;
    private final String jdbcUrl;
    private final String user;
    private final String password;

    private InvalidationLagDriver(DriverArguments args) {
        this.args = args;
        this.rows = args.getInt("rows", 10_000);
        this.jdbcUrl = args.get("jdbc-url");
        this.user = args.get("user");
        this.password = args.get("password");
    }

    public static void main(String[] argv) throws Exception {
        DriverArguments args = new DriverArguments(argv);
        String command = args.positional().isEmpty() ? "run" : args.positional().get(0);
        InvalidationLagDriver driver = new InvalidationLagDriver(args);
        switch (command) {
            case "setup" -> driver.setup();
            case "run" -> driver.run();
            default -> {
                System.err.println("usage: InvalidationLagDriver setup|run --jdbc-url URL --user U --password P ...");
                System.exit(2);
            }
        }
        System.exit(0);
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl, user, password);
    }

    private void setup() throws SQLException {
        try (Connection admin = connect()) {
            LagProbeTable.create(admin, rows, args.get("app-user", null));
        }
        System.out.println("lag probe table " + LagProbeTable.TABLE + " ready with " + rows + " rows");
    }

    private void run() throws Exception {
        List<Integer> instanceCounts = args.getInts("instances", "2,4");
        List<Integer> rates = args.getInts("rates", "100,1000,5000");
        int seconds = args.getInt("seconds", 10);
        int burst = args.getInt("burst", 10_000);
        int writerThreads = args.getInt("writer-threads", 4);
        Path out = Path.of(args.get("out", "target/bench/lag.properties"));
        ResultFile result = new ResultFile();
        result.put("lag.rows", rows).put("lag.seconds_per_rate", seconds).put("lag.writer_threads", writerThreads);
        result.put("lag.instances", join(instanceCounts)).put("lag.rates", join(rates)).put("lag.burst", burst);

        PacedWriter writer = new PacedWriter(this::connect, writerThreads);
        Map<Connection, PreparedStatement> statements = new ConcurrentHashMap<>();
        String run = Long.toString(System.currentTimeMillis(), 36);
        PacedWriter.Change change = (connection, sequence) -> LagProbeTable.change(
                statements.computeIfAbsent(connection, c -> prepare(c)), sequence, rows, run);
        // Warm the writer's connections, the pipeline and each set of client instances; these changes are not
        // measured. A connector or client that has just started takes far longer per event at first (JIT),
        // so a few hundred changes are not enough.
        int warmupSeconds = args.getInt("warmup-seconds", 10);
        int warmupRate = args.getInt("warmup-rate", 1000);

        for (int instances : instanceCounts) {
            List<Probe> probes = startProbes(instances);
            try {
                writer.run(warmupRate, (long) warmupRate * warmupSeconds, change, (s, t) -> { }, () -> false);
                for (int rate : rates) {
                    long count = (long) rate * seconds;
                    measure(writer, change, probes, rate, count, "n" + instances + ".r" + rate, result, out);
                }
                if (burst > 0) {
                    measure(writer, change, probes, 0, burst, "n" + instances + ".burst", result, out);
                }
            } finally {
                probes.forEach(Probe::close);
            }
        }
        result.write(out);
        System.out.println("wrote " + out.toAbsolutePath());
    }

    private static PreparedStatement prepare(Connection connection) {
        try {
            connection.setAutoCommit(true);
            return connection.prepareStatement(LagProbeTable.updateSql());
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private List<Probe> startProbes(int instances) throws InterruptedException {
        List<Probe> probes = new ArrayList<>();
        for (int i = 1; i <= instances; i++) {
            probes.add(new Probe(i, args.get("bootstrap-servers"), args.get("topic-prefix", "cdc"), rows));
        }
        for (Probe probe : probes) {
            if (!probe.client.awaitReady(Duration.ofSeconds(60))) {
                throw new IllegalStateException("client instance " + probe.index + " not ready within 60 s");
            }
            probe.fill();
        }
        return probes;
    }

    private void measure(PacedWriter writer, PacedWriter.Change change, List<Probe> probes, int rate, long count,
            String phase, ResultFile result, Path out) throws InterruptedException, IOException {
        long first = writer.lastSequence() + 1;
        long last = first + count - 1;
        AtomicLongArray stamps = new AtomicLongArray((int) count);
        for (Probe probe : probes) {
            probe.begin(first, last, stamps);
        }
        InstanceCpu cpu = InstanceCpu.start();
        PacedWriter.Result written = writer.run(rate, count, change,
                (sequence, nanos) -> stamps.set((int) (sequence - first), nanos), () -> false);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (Probe probe : probes) {
            while (probe.applied.sum() < count && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
        }
        InstanceCpu.Result used = cpu.end(probes.stream().map(Probe::threadNamePrefix).toList());
        String key = "lag." + phase;
        result.put(key + ".offered_rps", rate == 0 ? "burst" : String.valueOf(rate));
        result.put(key + ".changes", written.changes());
        result.put(key + ".write_failures", written.failures());
        result.put(key + ".achieved_rps", String.format(Locale.ROOT, "%.1f", written.achievedRate()));
        Histogram all = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-12s writes %6d at %7.1f/s |",
                phase, written.changes(), written.achievedRate()));
        for (Probe probe : probes) {
            Histogram histogram = probe.end();
            all.add(histogram);
            LatencySummary summary = LatencySummary.of(histogram);
            String instanceKey = key + ".instance" + probe.index;
            summary.writeTo(result, instanceKey);
            long missing = Math.max(0, count - probe.applied.sum());
            result.put(instanceKey + ".missing", missing);
            result.put(instanceKey + ".unstamped", probe.unstamped.sum());
            line.append(String.format(Locale.ROOT, " #%d p50 %.1f p99 %.1f max %.1f ms%s |", probe.index,
                    summary.p50Micros() / 1000.0, summary.p99Micros() / 1000.0, summary.maxMicros() / 1000.0,
                    missing > 0 ? " MISSING " + missing : ""));
        }
        LatencySummary.of(all).writeTo(result, key + ".all");
        System.out.println(line);
        List<Double> shares = probes.stream().map(p -> used.perInstance().get(p.threadNamePrefix())).sorted().toList();
        for (Probe probe : probes) {
            result.put(key + ".instance" + probe.index + ".cpu_core_share",
                    String.format(Locale.ROOT, "%.4f", used.perInstance().get(probe.threadNamePrefix())));
        }
        result.put(key + ".driver_jvm.cpu_core_share", String.format(Locale.ROOT, "%.4f", used.process()));
        System.out.println(String.format(Locale.ROOT,
                "%-12s cpu per instance (its consumer and staleness-check threads) median %.1f%% (%.1f-%.1f%%) of a"
                        + " core; driver JVM (writer, all instances, GC, JIT) %.1f%%",
                phase, 100 * shares.get(shares.size() / 2), 100 * shares.get(0), 100 * shares.get(shares.size() - 1),
                100 * used.process()));
        writeHistogram(all, out.resolveSibling("lag-" + phase.replace('.', '-') + ".hist.csv"));
        result.write(out);
    }

    /** 1 ms buckets up to the maximum: {@code upper_ms,count}. */
    private static void writeHistogram(Histogram histogram, Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            writer.write("upper_ms,count\n");
            long maxMs = histogram.getMaxValue() / 1000 + 1;
            for (long ms = 1; ms <= maxMs; ms++) {
                long n = histogram.getCountBetweenValues((ms - 1) * 1000, ms * 1000 - 1);
                if (n > 0) {
                    writer.write(ms + "," + n + "\n");
                }
            }
        }
    }

    private static String join(List<Integer> values) {
        return String.join(",", values.stream().map(String::valueOf).toList());
    }

    /** One lightweight client instance with a cache of every probe row and a lag recorder. */
    private static final class Probe implements AutoCloseable {
        final int index;
        final InvalidationClient client;
        final InvalidatingCache<Long, String> cache;
        final int rows;
        final LongAdder applied = new LongAdder();
        final LongAdder unstamped = new LongAdder();
        volatile Histogram histogram = new SynchronizedHistogram(TimeUnit.MINUTES.toMicros(10), 3);
        volatile long first = Long.MAX_VALUE;
        volatile long last = Long.MIN_VALUE;
        volatile AtomicLongArray stamps;

        Probe(int index, String bootstrapServers, String topicPrefix, int rows) {
            this.index = index;
            this.rows = rows;
            this.client = new InvalidationClient(InvalidationClientConfig.builder()
                    .bootstrapServers(bootstrapServers)
                    .topicPrefix(topicPrefix)
                    .clientId("lag-probe-" + index)
                    .cache(CacheDefinition.builder(CACHE).table(LagProbeTable.TABLE).keyColumns("id")
                            .keyType(KeyType.LONG).spec("maximumSize=" + Math.max(rows, 1000)).build())
                    .listener(this::onApplied)
                    .build());
            this.client.start();
            this.cache = client.cache(CACHE);
        }

        /** Caches every probe row, so each change evicts a real entry. */
        void fill() {
            for (long id = 1; id <= rows; id++) {
                cache.put(id, "cached");
            }
        }

        void begin(long first, long last, AtomicLongArray stamps) {
            fill();
            this.histogram = new SynchronizedHistogram(TimeUnit.MINUTES.toMicros(10), 3);
            this.applied.reset();
            this.unstamped.reset();
            this.stamps = stamps;
            this.last = last;
            this.first = first;
        }

        /** How this instance's threads are named: {@code <client id>-<n>-consumer} and so on. */
        String threadNamePrefix() {
            return "lag-probe-" + index + "-";
        }

        Histogram end() {
            this.first = Long.MAX_VALUE;
            return histogram;
        }

        private void onApplied(ChangeEvent event) {
            long now = System.nanoTime();
            JsonNode after = event.after();
            if (after == null || after.get("version") == null) {
                return;
            }
            long version = after.get("version").asLong();
            long from = first;
            if (version < from || version > last) {
                return;
            }
            long stamp = stamps.get((int) (version - from));
            applied.increment();
            if (stamp == 0) {
                // the event overtook the writer's bookkeeping: lag below what the clock can attribute
                unstamped.increment();
                return;
            }
            histogram.recordValue(Math.min(TimeUnit.MINUTES.toMicros(10), Math.max(0, (now - stamp) / 1_000)));
        }

        @Override
        public void close() {
            client.close();
        }
    }
}
