package dev.cdccache.connector.bench;

import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.mariadb.MariaDbServer;
import dev.cdccache.infra.process.FreePorts;
import dev.cdccache.infra.process.JavaProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Commit-to-Kafka latency, bulk throughput and idle cost of the connector, on the real local stack
 * (MariaDB with binlog, one Kafka broker), for one or more connector builds side by side in one run.
 *
 * <p>Each build ({@code -Dbench.connectors=name=path/to/exec.jar,...}; default: this module's
 * {@code target/*-exec.jar} as {@code current}) runs as its own process with the JVM options of
 * {@code platform.sh} ({@code -Xms512m -Xmx512m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:-UsePerfData}), one after the
 * other, each {@code bench.rounds} times in alternation (A B A B ...), against the same MariaDB and
 * Kafka. Per build and round:
 * <ol>
 *   <li>warm-up: single-row changes until events flow, 200 more, and two bulk UPDATEs of all rows
 *       (the JIT compiles the bulk path too; both reported, as {@code warm-up} lines);</li>
 *   <li>idle: the connector process's CPU time (and per thread, from {@code /proc}) over
 *       {@code bench.idleSeconds} without database traffic other than the connector's own heartbeat;</li>
 *   <li>latency: single-row UPDATEs (autocommit) at {@code bench.lowRate} and {@code bench.highRate};
 *       the stamp is {@code System.nanoTime()} right after {@code executeUpdate} returns (the commit is
 *       done), keyed by (id, version); a consumer in this JVM stamps each event when {@code poll} hands
 *       it over;</li>
 *   <li>bulk: one UPDATE of {@code bench.bulkRows} rows in one transaction, then at once one single-row
 *       change ("small change after the bulk"): the row rate from the statement's start to the last of
 *       its events in Kafka, and how long the small change waited;</li>
 *   <li>stop: how long the process takes to end after SIGTERM.</li>
 * </ol>
 * Before the warm-up a {@code start} line says how long after the launch the first change arrived.
 *
 * <p>Run (see docs/benchmarks.md): {@code cdc-connector/bin/connector-bench} (builds the current jar and
 * the baseline's), or directly {@code ./mvnw -B -pl cdc-connector test-compile exec:java
 * -Dbench.connectors=main=/path/main-exec.jar,current=cdc-connector/target/cdc-connector-0.1.0-SNAPSHOT-exec.jar}.
 * Options: {@code -Dbench.changes=1000 -Dbench.lowRate=50 -Dbench.highRate=1000 -Dbench.bulkRows=100000
 * -Dbench.rounds=1 -Dbench.idleSeconds=15 -Dbench.settleSeconds=3 -Dbench.idleWindows=1}, {@code -Dbench.set.<setting>=<value>} (every connector),
 * {@code -Dbench.<name>.set.<setting>=<value>} (one build), {@code -Dbench.jvm="..."} (extra JVM options of
 * every connector), {@code -Dbench.<name>.jvm="..."} (of one build, after those), {@code -Dbench.jfr=true} (a JFR recording of the bulk phase and of the idle phase per
 * connector, summarised by {@link JfrSummary}), {@code -Dbench.debug=true} (slowest events).
 */
public final class ConnectorLatencyBenchmark {

    private static final String DB = "bench_db";
    /** This module's target folder (the pom passes it; exec:java may run from the repository root). */
    private static final Path MODULE_TARGET = Path.of(System.getProperty("cdc.infra.dir", "target"));
    private static final long CLOCK_TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux we run on

    private final Map<String, Long> committedAt = new ConcurrentHashMap<>();
    private final Map<String, Long> receivedAt = new ConcurrentHashMap<>();
    private final AtomicLong bulkEvents = new AtomicLong();
    /** Record value bytes of the bulk's events: what a column projection saves on the wire and in the topic. */
    private final AtomicLong bulkBytes = new AtomicLong();
    private final AtomicLong lastBulkEventNanos = new AtomicLong();
    /** Copies of a table-wide eviction received since the bulk started (the connector coalesced the bulk). */
    private final AtomicLong tableEvictions = new AtomicLong();
    private volatile int bulkVersion = -1;
    private final Path outDir = Path.of(System.getProperty("bench.out", MODULE_TARGET.resolve("bench").toString()));

    private final int changes = Integer.getInteger("bench.changes", 1000);
    private final int lowRate = Integer.getInteger("bench.lowRate", 50);
    private final int highRate = Integer.getInteger("bench.highRate", 1000);
    private final int bulkRows = Integer.getInteger("bench.bulkRows", 100_000);
    private final int rounds = Integer.getInteger("bench.rounds", 1);
    private final int idleSeconds = Integer.getInteger("bench.idleSeconds", 15);
    /** Seconds between the warm-up and the idle window, not measured. */
    private final int settleSeconds = Integer.getInteger("bench.settleSeconds", 3);
    /**
     * Consecutive idle windows of {@code idleSeconds} each: the later ones show the idle cost once the JIT compiler has
     * worked off what the warm-up queued.
     */
    private final int idleWindows = Integer.getInteger("bench.idleWindows", 1);
    private final boolean jfr = Boolean.getBoolean("bench.jfr");
    private int nextVersion = 10;
    private final Shape shape = Shape.valueOf(System.getProperty("bench.table", "synthetic").toUpperCase(java.util.Locale.ROOT));
    /** The column the benchmark changes and the consumer reads back, {@code "name":} as it appears in the JSON. */
    private final String versionColumn = shape.versionColumn;
    private final byte[] versionField = ("\"" + versionColumn + "\":").getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /**
     * The table the benchmark changes: {@code synthetic} (three columns) or {@code coupon} (the twelve columns of
     * coupon-service's {@code coupon} table: decimals, dates, a DATETIME(6) that every UPDATE changes, varchars;
     * {@code issue_limit} is the column the benchmark changes). {@code -Dbench.table=coupon}.
     */
    enum Shape {
        SYNTHETIC("version") {
            @Override
            String[] statements(int rows) {
                return new String[] {"DROP TABLE IF EXISTS bench_row",
                        "CREATE TABLE bench_row (id BIGINT PRIMARY KEY, version INT NOT NULL, payload VARCHAR(64) NOT NULL)",
                        "INSERT INTO bench_row SELECT seq, 0, CONCAT('row-', seq) FROM seq_1_to_" + rows};
            }
        },
        COUPON("issue_limit") {
            @Override
            String[] statements(int rows) {
                return new String[] {"DROP TABLE IF EXISTS bench_row",
                        "CREATE TABLE bench_row (id BIGINT NOT NULL, code VARCHAR(64) NOT NULL, place_id BIGINT NOT NULL,"
                                + " name VARCHAR(200) NOT NULL, discount_type VARCHAR(16) NOT NULL,"
                                + " discount_value DECIMAL(12, 2) NOT NULL, minimum_price DECIMAL(12, 2) NOT NULL,"
                                + " valid_from DATE NOT NULL, valid_until DATE NOT NULL, status VARCHAR(16) NOT NULL,"
                                + " issue_limit INT NOT NULL, updated_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)"
                                + " ON UPDATE CURRENT_TIMESTAMP(6), PRIMARY KEY (id), UNIQUE KEY uk_code (code),"
                                + " KEY idx_place (place_id))",
                        "INSERT INTO bench_row (id, code, place_id, name, discount_type, discount_value, minimum_price,"
                                + " valid_from, valid_until, status, issue_limit) SELECT seq, CONCAT('CPN-', LPAD(seq, 10, '0')),"
                                + " 1 + seq % 1000, CONCAT('Winter sale coupon ', seq, ' for regular customers'),"
                                + " IF(seq % 2 = 0, 'FIXED_AMOUNT', 'PERCENTAGE'), 5 + seq % 50 + 0.50, 10000.00 + seq % 7,"
                                + " '2026-01-01', '2026-12-31', 'ACTIVE', 0 FROM seq_1_to_" + rows};
            }
        };

        final String versionColumn;

        Shape(String versionColumn) {
            this.versionColumn = versionColumn;
        }

        abstract String[] statements(int rows);
    }

    public static void main(String[] args) throws Exception {
        new ConnectorLatencyBenchmark().run();
    }

    private record Build(String name, Path jar) {
    }

    private void run() throws Exception {
        Files.createDirectories(outDir);
        System.out.println("table shape: " + shape.name().toLowerCase(java.util.Locale.ROOT));
        List<Build> builds = new ArrayList<>();
        String spec = System.getProperty("bench.connectors", "current=" + defaultJar());
        for (String part : spec.split(",")) {
            String[] nameAndJar = part.split("=", 2);
            Path jar = Path.of(nameAndJar[1]);
            if (!Files.isRegularFile(jar)) {
                throw new IllegalArgumentException("connector jar " + jar.toAbsolutePath() + " not found");
            }
            builds.add(new Build(nameAndJar[0], jar));
        }
        LocalStack stack = LocalStack.shared();
        List<String> lines = new ArrayList<>();
        try {
            MariaDbServer db = stack.mariaDb();
            db.createDatabase(DB);
            // one row more than the bulk UPDATE touches: the small change right after it
            db.execute(DB, shape.statements(bulkRows + 1));
            for (int round = 1; round <= rounds; round++) {
                for (Build build : builds) {
                    lines.add("");
                    lines.add("== " + build.name() + " (" + build.jar() + "), round " + round);
                    int before = lines.size();
                    lines.addAll(measure(stack, build, round));
                    System.out.println(String.join(System.lineSeparator(), lines.subList(before - 2, lines.size())));
                }
            }
        } finally {
            stack.close();
        }
        System.out.println();
        System.out.println("Connector benchmark, " + LocalDateTime.now(ZoneOffset.UTC).withNano(0) + " UTC, "
                + Runtime.getRuntime().availableProcessors() + " cores, Java " + System.getProperty("java.version")
                + ", table " + shape.name().toLowerCase(java.util.Locale.ROOT) + ", bulk " + bulkRows + " rows, idle window "
                + idleSeconds + " s");
        lines.forEach(System.out::println);
    }

    private static String defaultJar() throws Exception {
        try (var files = Files.list(MODULE_TARGET)) {
            return files.filter(p -> p.getFileName().toString().endsWith("-exec.jar")).findFirst()
                    .map(Path::toString).orElse("target/cdc-connector-exec.jar");
        }
    }

    private List<String> measure(LocalStack stack, Build build, int round) throws Exception {
        String prefix = "bench" + build.name().replaceAll("[^A-Za-z0-9]", "") + round;
        String topic = prefix + "." + DB + ".bench_row";
        String name = "bench-" + build.name() + "-" + round;
        long launched = System.nanoTime();
        JavaProcess connector = startConnector(stack, build, name, prefix);
        List<String> lines = new ArrayList<>();
        AtomicBoolean consuming = new AtomicBoolean(true);
        Thread consumer = null;
        try {
            awaitTopic(stack, topic, connector);
            consumer = startConsumer(stack.kafka().bootstrapServers(), topic, consuming);
            try (Connection connection = stack.mariaDb().adminConnection(DB)) {
                connection.setAutoCommit(true);
                // warm-up: until the first event arrives (the engine may still be connecting), then JIT
                int version = nextVersion++;
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
                for (int id = 1; receivedAt.isEmpty(); id++) {
                    if (System.nanoTime() > until || !connector.isAlive()) {
                        throw new IllegalStateException(name + " streams nothing; log " + connector.logFile() + ":\n" + connector.tail(30));
                    }
                    runAtRate(connection, id, 1, 1, version);
                    Thread.sleep(100);
                }
                // start-up cost (JVM, Spring, the start-up checks, the engine's connect), within 0.1 s
                lines.add(String.format("start    first change received %.1f s after the connector process was launched",
                        (System.nanoTime() - launched) / 1e9));
                clear();
                runAtRate(connection, 1, 200, 200, nextVersion++);
                awaitReceived(200, Duration.ofSeconds(30));
                // two bulk UPDATEs of the full size: without them the JIT compiler still took 40% of a core
                // during the measured bulk. Reported too: the first is what a bulk costs a connector that
                // has only seen single-row changes since its start (the JIT options decide it)
                lines.add("warm-up  1st " + bulk(connection, bulkRows, null));
                lines.add("warm-up  2nd " + bulk(connection, bulkRows, null));
                clear();

                // let the warm-up's after-effects (GC, offset flush, the JIT compiler's queue) settle
                Thread.sleep(TimeUnit.SECONDS.toMillis(settleSeconds));
                for (int window = 1; window <= idleWindows; window++) {
                    lines.add(idle(connector, name, window));
                }
                lines.add(latency(connection, lowRate));
                lines.add(latency(connection, highRate));
                lines.add(bulk(connection, bulkRows, connector));
            }
        } finally {
            consuming.set(false);
            if (consumer != null) {
                consumer.join(10_000);
            }
            long stopping = System.nanoTime();
            connector.stop(Duration.ofSeconds(30));
            // a graceful stop stores the offsets and closes every client: what a rolling restart waits for
            double stopSeconds = (System.nanoTime() - stopping) / 1e9;
            lines.add(String.format("stop     the connector process ended %.1f s after SIGTERM%s", stopSeconds,
                    stopSeconds >= 30 ? " (killed: no graceful stop within 30 s)" : ""));
            clear();
        }
        return lines;
    }

    private JavaProcess startConnector(LocalStack stack, Build build, String name, String prefix) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("server.port", Integer.toString(FreePorts.next()));
        settings.put("logging.level.root", "WARN");
        settings.put("cdc.connector.name", name);
        settings.put("cdc.connector.database.host", stack.mariaDb().host());
        settings.put("cdc.connector.database.port", Integer.toString(stack.mariaDb().port()));
        settings.put("cdc.connector.database.user", stack.mariaDb().connectorUser());
        settings.put("cdc.connector.kafka.bootstrap-servers", stack.kafka().bootstrapServers());
        settings.put("cdc.connector.topic-prefix", prefix);
        settings.put("cdc.connector.tables[0]", DB + ".bench_row");
        overrides("bench.set.").forEach(settings::put);
        overrides("bench." + build.name() + ".set.").forEach(settings::put);
        JavaProcess.Builder builder = JavaProcess.builder(name)
                .jar(build.jar())
                .logFile(outDir.resolve(name + ".log"))
                .env("CDC_CONNECTOR_DATABASE_PASSWORD", stack.mariaDb().connectorPassword())
                // platform.sh's connector JVM
                .jvmArg("-Xms512m").jvmArg("-Xmx512m").jvmArg("-XX:+UseG1GC").jvmArg("-XX:MaxGCPauseMillis=20")
                .jvmArg("-XX:-UsePerfData");
        // every build's options, then this build's (-Dbench.<name>.jvm): a later option of the same kind wins
        String options = System.getProperty("bench.jvm", "") + " " + System.getProperty("bench." + build.name() + ".jvm", "");
        for (String option : options.trim().split("\\s+")) {
            if (!option.isEmpty()) {
                builder.jvmArg(option);
            }
        }
        settings.forEach((k, v) -> builder.arg("--" + k + "=" + v));
        return builder.start();
    }

    private static Map<String, String> overrides(String prefix) {
        Map<String, String> found = new LinkedHashMap<>();
        System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith(prefix)).sorted()
                .forEach(k -> found.put(k.substring(prefix.length()), System.getProperty(k)));
        return found;
    }

    /** CPU time per thread of a process between two snapshots, as "total% (thread% ...)" of one core. */
    private static String cpuReport(long pid, Map<String, long[]> before, Map<String, long[]> after, double seconds) {
        return cpuReport(pid, before, after, seconds, 6, "%.0f");
    }

    /**
     * As {@link #cpuReport(long, Map, Map, double)}, listing the {@code threads} busiest threads with their share in
     * {@code format} (the idle window's threads take hundredths of a core, so it lists them with decimals).
     */
    private static String cpuReport(long pid, Map<String, long[]> before, Map<String, long[]> after, double seconds,
            int threads, String format) {
        long total = 0;
        Map<String, Long> byName = new LinkedHashMap<>();
        for (Map.Entry<String, long[]> t : after.entrySet()) {
            long[] b = before.getOrDefault(t.getKey(), new long[] {0});
            long ticks = t.getValue()[0] - b[0];
            total += ticks;
            byName.merge(threadName(pid, t.getKey()), ticks, Long::sum);
        }
        StringBuilder top = new StringBuilder(String.format("%.1f%% of one core; threads:", 100.0 * total / CLOCK_TICKS_PER_SECOND / seconds));
        byName.entrySet().stream().filter(e -> e.getValue() > 0).sorted((a, b) -> Long.compare(b.getValue(), a.getValue())).limit(threads)
                .forEach(e -> top.append(String.format(" %s " + format + "%%", e.getKey(), 100.0 * e.getValue() / CLOCK_TICKS_PER_SECOND / seconds)));
        return top.toString();
    }

    /** CPU time of every process of the host between two snapshots, the busiest first. */
    private static String hostReport(Map<String, long[]> before, Map<String, long[]> after, double seconds) {
        StringBuilder top = new StringBuilder();
        after.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), e.getValue()[0] - before.getOrDefault(e.getKey(), new long[] {0})[0]))
                .filter(e -> e.getValue() > 0).sorted((a, b) -> Long.compare(b.getValue(), a.getValue())).limit(5)
                .forEach(e -> top.append(String.format(" %s %.0f%%", e.getKey(), 100.0 * e.getValue() / CLOCK_TICKS_PER_SECOND / seconds)));
        return top.toString();
    }

    /** utime+stime per process of the host, keyed by "pid:what" (the main class or jar for JVMs). */
    private static Map<String, long[]> processTicks() throws Exception {
        Map<String, long[]> ticks = new LinkedHashMap<>();
        try (var procs = Files.list(Path.of("/proc"))) {
            for (Path proc : procs.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                try {
                    String stat = Files.readString(proc.resolve("stat"));
                    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    String[] cmd = Files.readString(proc.resolve("cmdline")).split("\0");
                    String what = cmd.length == 0 ? "?" : cmd[0].replaceAll(".*/", "");
                    for (int i = 0; i < cmd.length - 1; i++) {
                        if (cmd[i].equals("-jar")) {
                            what = cmd[i + 1].replaceAll(".*/", "");
                        }
                    }
                    for (String arg : cmd) {
                        if (arg.matches("(kafka\\.Kafka|org\\.codehaus\\.plexus\\.classworlds.*)")) {
                            what = arg.startsWith("kafka") ? "kafka-broker" : "benchmark(maven)";
                        }
                    }
                    ticks.put(proc.getFileName() + ":" + what,
                            new long[] {Long.parseLong(fields[11]) + Long.parseLong(fields[12])});
                } catch (java.io.IOException | RuntimeException e) {
                    // ended in between, or not ours to read
                }
            }
        }
        return ticks;
    }

    private String idle(JavaProcess connector, String name, int window) throws Exception {
        String loadBefore = loadAverage();
        Map<String, long[]> before = threadTicks(connector.pid());
        long start = System.nanoTime();
        Thread.sleep(TimeUnit.SECONDS.toMillis(idleSeconds));
        double seconds = (System.nanoTime() - start) / 1e9;
        String report = cpuReport(connector.pid(), before, threadTicks(connector.pid()), seconds, 12, "%.2f")
                + "; host load average (1 min) " + loadBefore + " before, " + loadAverage() + " after";
        if (jfr && window == idleWindows) {
            Path recording = outDir.resolve(name + "-idle.jfr");
            jcmd(connector.pid(), "JFR.start", "name=idle", "settings=profile", "filename=" + recording.toAbsolutePath());
            Thread.sleep(TimeUnit.SECONDS.toMillis(idleSeconds));
            jcmd(connector.pid(), "JFR.stop", "name=idle");
            System.out.println("idle profile of " + name + ":");
            JfrSummary.print(recording, 12);
        }
        return String.format("idle     %d s without traffic (window %d, %d s after the warm-up): connector process %s",
                idleSeconds, window, settleSeconds + (window - 1) * idleSeconds, report);
    }

    /** The host's one-minute load average: the machine is shared, and the idle figures are only as quiet as it. */
    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (java.io.IOException e) {
            return "?";
        }
    }

    /** utime+stime per thread id of a process, in clock ticks. */
    private static Map<String, long[]> threadTicks(long pid) throws Exception {
        Map<String, long[]> ticks = new LinkedHashMap<>();
        try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    // fields[11] = utime, fields[12] = stime (fields 14 and 15 of proc(5), counted after the name)
                    ticks.put(task.getFileName().toString(), new long[] {Long.parseLong(fields[11]) + Long.parseLong(fields[12])});
                } catch (java.io.IOException e) {
                    // the thread ended in between
                }
            }
        }
        return ticks;
    }

    private static String threadName(long pid, String tid) {
        try {
            // thread names are cut to 15 characters by the kernel; digits are folded so pools add up
            return Files.readString(Path.of("/proc", Long.toString(pid), "task", tid, "comm")).trim().replaceAll("\\d+", "N");
        } catch (Exception e) {
            return "(ended)";
        }
    }

    private String latency(Connection connection, int rate) throws Exception {
        clear();
        int version = nextVersion++;
        long start = System.nanoTime();
        runAtRate(connection, 1, changes, rate, version);
        double achieved = changes / ((System.nanoTime() - start) / 1e9);
        awaitReceived(changes, Duration.ofSeconds(60));
        Histogram histogram = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
        for (Map.Entry<String, Long> commit : committedAt.entrySet()) {
            // negative: the event overtook the commit's OK packet
            histogram.recordValue(Math.max(0, (receivedAt.get(commit.getKey()) - commit.getValue()) / 1_000));
        }
        if (Boolean.getBoolean("bench.debug")) {
            committedAt.entrySet().stream()
                    .sorted((a, b) -> Long.compare(receivedAt.get(b.getKey()) - b.getValue(), receivedAt.get(a.getKey()) - a.getValue()))
                    .limit(15)
                    .forEach(e -> System.out.printf("  slow: %s committed at +%d ms, latency %.1f ms%n", e.getKey(),
                            (e.getValue() - start) / 1_000_000, (receivedAt.get(e.getKey()) - e.getValue()) / 1e6));
        }
        return String.format("latency  target %5d/s (achieved %6.0f/s), %d changes: p50 %6.1f ms  p99 %6.1f ms  max %6.1f ms",
                rate, achieved, changes, histogram.getValueAtPercentile(50) / 1000.0,
                histogram.getValueAtPercentile(99) / 1000.0, histogram.getMaxValue() / 1000.0);
    }

    /** One UPDATE of rows 1..rows, then one single-row change of the row after them. */
    private String bulk(Connection connection, int rows, JavaProcess profiled) throws Exception {
        clear();
        bulkEvents.set(0);
        bulkBytes.set(0);
        tableEvictions.set(0);
        bulkVersion = nextVersion++;
        int smallVersion = nextVersion++;
        Path recording = null;
        if (profiled != null && jfr) {
            recording = outDir.resolve("bulk-" + profiled.name() + ".jfr");
            jcmd(profiled.pid(), "JFR.start", "name=bulk", "settings=profile", "filename=" + recording.toAbsolutePath());
        }
        Map<String, long[]> threadsBefore = profiled == null ? Map.of() : threadTicks(profiled.pid());
        Map<String, long[]> hostBefore = profiled == null ? Map.of() : processTicks();
        long start = System.nanoTime();
        try (Statement statement = connection.createStatement()) {
            statement.executeUpdate("UPDATE bench_row SET " + versionColumn + " = " + bulkVersion + " WHERE id <= " + rows);
        }
        long committed = System.nanoTime();
        try (PreparedStatement small = connection.prepareStatement("UPDATE bench_row SET " + versionColumn + " = ? WHERE id = ?")) {
            small.setInt(1, smallVersion);
            small.setLong(2, bulkRows + 1);
            small.executeUpdate();
        }
        committedAt.put((bulkRows + 1) + ":" + smallVersion, System.nanoTime());
        long deadline = committed + TimeUnit.SECONDS.toNanos(300);
        // a coalesced bulk ends in table-wide evictions instead of its remaining events; the small change comes after
        // them on its partition
        while (((bulkEvents.get() < rows && tableEvictions.get() == 0) || receivedAt.isEmpty())
                && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        String cpu = "";
        if (profiled != null) {
            double wall = (System.nanoTime() - start) / 1e9;
            cpu = "\n         CPU during the bulk (" + String.format("%.1f", wall) + " s): connector "
                    + cpuReport(profiled.pid(), threadsBefore, threadTicks(profiled.pid()), wall)
                    + "\n         host:" + hostReport(hostBefore, processTicks(), wall);
        }
        if (recording != null) {
            jcmd(profiled.pid(), "JFR.stop", "name=bulk");
        }
        long last = lastBulkEventNanos.get();
        double seconds = (last - start) / 1e9;
        Long smallReceived = receivedAt.get((bulkRows + 1) + ":" + smallVersion);
        double smallWait = smallReceived == null ? Double.NaN
                : (smallReceived - committedAt.get((bulkRows + 1) + ":" + smallVersion)) / 1e9;
        if (recording != null) {
            System.out.println("bulk profile of " + profiled.name() + ":");
            JfrSummary.print(recording, 15);
        }
        return String.format("bulk     UPDATE of %d rows in one transaction: statement %.2f s, all %d events in Kafka after %.2f s"
                        + " -> %.0f row changes/s (last event %.2f s after the commit returned); a single-row change committed"
                        + " right after it waited %.2f s; %.0f B per event value%s%s",
                rows, (committed - start) / 1e9, bulkEvents.get(), seconds, bulkEvents.get() / seconds, (last - committed) / 1e9,
                smallWait, bulkBytes.get() / (double) Math.max(1, bulkEvents.get()),
                tableEvictions.get() == 0 ? "" : "; coalesced: " + tableEvictions.get() + " table-wide eviction copies"
                        + " instead of the remaining rows (the row rate counts the published rows only)", cpu);
    }

    private static void jcmd(long pid, String... command) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString());
        cmd.add(Long.toString(pid));
        cmd.addAll(List.of(command));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("jcmd " + String.join(" ", command) + " failed");
        }
    }

    private void runAtRate(Connection connection, int firstId, int count, int rate, int version) throws Exception {
        long interval = TimeUnit.SECONDS.toNanos(1) / rate;
        long next = System.nanoTime();
        try (PreparedStatement update = connection.prepareStatement("UPDATE bench_row SET " + versionColumn + " = ? WHERE id = ?")) {
            for (int id = firstId; id < firstId + count; id++) {
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                next += interval;
                update.setInt(1, version);
                update.setLong(2, id);
                update.executeUpdate();
                committedAt.put(id + ":" + version, System.nanoTime());
            }
        }
    }

    private void awaitReceived(int count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (committedAt.keySet().stream().filter(receivedAt::containsKey).count() >= count) {
                return;
            }
            Thread.sleep(10);
        }
        throw new IllegalStateException("only " + committedAt.keySet().stream().filter(receivedAt::containsKey).count()
                + " of " + count + " events arrived within " + timeout);
    }

    private void clear() {
        committedAt.clear();
        receivedAt.clear();
    }

    private static void awaitTopic(LocalStack stack, String topic, JavaProcess connector) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka().bootstrapServers()))) {
            connector.awaitCondition("topic " + topic, Duration.ofSeconds(90), () -> {
                try {
                    return admin.listTopics().names().get().contains(topic);
                } catch (Exception e) {
                    return false;
                }
            });
        }
    }

    private static final byte[] AFTER = "\"after\":{".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] ID = "\"id\":".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] COALESCED = ("\"" + dev.cdccache.contract.CoalescedEviction.FIELD + "\":{")
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private static int indexOf(byte[] data, byte[] pattern, int from) {
        outer:
        for (int i = from; i <= data.length - pattern.length; i++) {
            for (int j = 0; j < pattern.length; j++) {
                if (data[i + j] != pattern[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** The non-negative integer after {@code "name":} at or after {@code from}, -1 if none. */
    private static long numberAfter(byte[] data, byte[] name, int from) {
        int at = indexOf(data, name, from);
        if (at < 0) {
            return -1;
        }
        long n = 0;
        int i = at + name.length;
        for (; i < data.length && data[i] >= '0' && data[i] <= '9'; i++) {
            n = n * 10 + (data[i] - '0');
        }
        return i == at + name.length ? -1 : n;
    }

    private Thread startConsumer(String bootstrapServers, String topic, AtomicBoolean consuming) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "100");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(10)).stream()
                .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position); // resolve the end now, before any change is made
        Thread thread = new Thread(() -> {
            try (consumer) {
                while (consuming.get()) {
                    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(50))) {
                        long now = System.nanoTime();
                        if (record.value() == null) {
                            continue;
                        }
                        // A scan for two numbers instead of a JSON tree: the consumer shares the two cores with
                        // the connector, and parsing 100,000 events as trees took a third of a core.
                        byte[] value = record.value();
                        if (indexOf(value, COALESCED, 0) >= 0) {
                            tableEvictions.incrementAndGet();
                            continue;
                        }
                        int after = indexOf(value, AFTER, 0);
                        long version = after < 0 ? -1 : numberAfter(value, versionField, after);
                        if (version == bulkVersion) {
                            bulkBytes.addAndGet(value.length);
                            bulkEvents.incrementAndGet();
                            lastBulkEventNanos.set(now);
                        } else if (version >= 0) {
                            receivedAt.putIfAbsent(numberAfter(value, ID, after) + ":" + version, now);
                        }
                    }
                }
            }
        }, "bench-consumer");
        thread.start();
        return thread;
    }
}
