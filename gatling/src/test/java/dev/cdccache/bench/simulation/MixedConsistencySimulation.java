package dev.cdccache.bench.simulation;

import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.global;
import static io.gatling.javaapi.core.CoreDsl.jsonPath;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;

import dev.cdccache.bench.freshness.FreshnessTally;
import dev.cdccache.bench.freshness.VersionLedger;
import dev.cdccache.bench.measure.ResultFile;
import dev.cdccache.bench.writer.PacedWriter;
import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Session;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.http.HttpProtocolBuilder;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads on every instance while a writer outside the services changes the same rows with plain SQL, and
 * every read checked against what was committed.
 *
 * <p>The writer (one JDBC connection, autocommit) renames coupons of a changing set ({@code -DchangingRows},
 * default 100, drawn from the hot set) at {@code -DwriteRate} changes/s (default 20), each change writing
 * {@code name = "mixed v<n>"} with a new {@code n}, and logs {@code System.nanoTime()} right after the
 * commit returns ({@link VersionLedger}). Readers ({@code GET /coupons/{id}} over the same rows, at
 * {@code -Drate}/s spread over every instance in {@code -DbaseUrls}) parse the version they were served and
 * classify the read: fresh, or stale by how long the served value had already been replaced when the read
 * started. Reads of rows the writer had not changed yet are counted apart. Figures per instance and
 * overall go to {@code -Dresults}; the simulation asserts no failed request, staleness is reported.
 */
public class MixedConsistencySimulation extends Simulation {

    private static final Pattern VERSION = Pattern.compile("mixed v(\\d+)");

    private final LoadProfile profile = LoadProfile.fromSystemProperties("constant", "100");
    private final Measurement measurement = new Measurement(profile);
    private final List<String> baseUrls = SimulationSettings.couponBaseUrls();
    private final List<Long> rows;
    private final VersionLedger ledger = new VersionLedger();
    private final FreshnessTally overall = new FreshnessTally();
    private final Map<String, FreshnessTally> perInstance = new LinkedHashMap<>();
    private final double writeRate = SimulationSettings.decimal("writeRate", 20);
    private final AtomicBoolean stopWriter = new AtomicBoolean();
    private final AtomicLong writerChanges = new AtomicLong();
    private volatile PacedWriter.Result writerResult;
    private Thread writerThread;

    {
        CouponTestData data = CouponTestData.load();
        List<Long> candidates = new ArrayList<>(data.hotCoupons);
        Collections.shuffle(candidates, new Random(7));
        rows = List.copyOf(candidates.subList(0, Math.min(SimulationSettings.integer("changingRows", 100), candidates.size())));
        baseUrls.forEach(url -> perInstance.put(url, new FreshnessTally()));

        Iterator<Map<String, Object>> feeder = new Iterator<>() {
            private final AtomicLong next = new AtomicLong();

            @Override
            public boolean hasNext() {
                return true;
            }

            @Override
            public Map<String, Object> next() {
                Map<String, Object> values = new HashMap<>();
                values.put("baseUrl", baseUrls.get((int) (next.getAndIncrement() % baseUrls.size())));
                values.put("couponId", rows.get(ThreadLocalRandom.current().nextInt(rows.size())));
                return values;
            }
        };

        HttpProtocolBuilder protocol = http.acceptHeader("application/json").shareConnections();
        ScenarioBuilder scenario = scenario("mixed reads and SQL writes")
                .feed(feeder)
                .exec(measurement.timed("read changing coupon", exec(http("read changing coupon")
                        .get("#{baseUrl}/coupons/#{couponId}")
                        .check(status().is(200), jsonPath("$.name").saveAs("name")))
                        .exec(this::classify)));

        setUp(profile.inject(scenario))
                .protocols(protocol)
                .assertions(global().failedRequests().count().is(0L));
    }

    private Session classify(Session session) {
        if (session.isFailed() || !session.contains("name") || !Measurement.isMeasured(session)) {
            return session;
        }
        long start = Measurement.startOf(session);
        String url = session.getString("baseUrl");
        Matcher matcher = VERSION.matcher(session.getString("name"));
        long version = 0;
        if (matcher.find()) {
            version = Long.parseLong(matcher.group(1));
        } else if (session.getString("name").startsWith("mixed")) {
            overall.addUnparseable();
            return session;
        }
        var verdict = ledger.classify(session.getLong("couponId"), version, start);
        overall.add(verdict);
        perInstance.get(url).add(verdict);
        return session.remove("name");
    }

    @Override
    public void before() {
        String table = SimulationSettings.string("couponDatabase", "coupon_db") + ".coupon";
        long seconds = profile.warmupSeconds + (long) profile.durationSeconds;
        PacedWriter writer = new PacedWriter(() -> DriverManager.getConnection(SimulationSettings.jdbcUrl(),
                SimulationSettings.jdbcUser(), SimulationSettings.jdbcPassword()), 1);
        Map<java.sql.Connection, PreparedStatement> statements = new HashMap<>();
        writerThread = new Thread(() -> {
            try {
                writerResult = writer.run(writeRate, Math.max(1, Math.round(writeRate * seconds)),
                        (connection, sequence) -> {
                            PreparedStatement update = statements.get(connection);
                            if (update == null) {
                                update = connection.prepareStatement("UPDATE " + table + " SET name = ? WHERE id = ?");
                                statements.put(connection, update);
                            }
                            update.setString(1, "mixed v" + sequence);
                            update.setLong(2, rowOf(sequence));
                            update.executeUpdate();
                        },
                        (sequence, nanos) -> {
                            ledger.committed(rowOf(sequence), sequence, nanos);
                            writerChanges.incrementAndGet();
                        },
                        stopWriter::get);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "mixed-sql-writer");
        writerThread.setDaemon(true);
        writerThread.start();
    }

    private long rowOf(long sequence) {
        // a fixed pseudo-random row per change, so changes are spread over the set without a shared RNG
        return rows.get((int) Math.floorMod(sequence * 2_654_435_761L, rows.size()));
    }

    @Override
    public void after() {
        stopWriter.set(true);
        try {
            writerThread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        ResultFile file = new ResultFile();
        file.put("run.simulation", getClass().getSimpleName());
        file.put("run.label", SimulationSettings.label());
        file.put("mixed.changing_rows", rows.size());
        file.put("mixed.write_rate", writeRate);
        file.put("mixed.writer.changes", writerChanges.get());
        if (writerResult != null) {
            file.put("mixed.writer.achieved_rps", String.format(java.util.Locale.ROOT, "%.1f", writerResult.achievedRate()));
            file.put("mixed.writer.failures", writerResult.failures());
        }
        measurement.writeTo(file, "mixed.reads");
        overall.writeTo(file, "mixed.freshness");
        int i = 1;
        for (Map.Entry<String, FreshnessTally> entry : perInstance.entrySet()) {
            file.put("mixed.instance" + i + ".url", entry.getKey());
            entry.getValue().writeTo(file, "mixed.instance" + i + ".freshness");
            i++;
        }
        System.out.printf("mixed [%s]: %d reads of changed rows, %d stale (%.4f%%), stale age p99 %.1f ms, max %.1f ms%n",
                SimulationSettings.label(), overall.readsOfChangedRows(), overall.stale(), overall.staleFraction() * 100,
                overall.staleAges().p99Micros() / 1000.0, overall.staleAges().maxMicros() / 1000.0);
        Path results = SimulationSettings.results();
        if (results != null) {
            file.write(results);
        }
    }
}
