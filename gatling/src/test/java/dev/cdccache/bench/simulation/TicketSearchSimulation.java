package dev.cdccache.bench.simulation;

import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.global;
import static io.gatling.javaapi.core.CoreDsl.jsonPath;
import static io.gatling.javaapi.core.CoreDsl.onCase;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;

import dev.cdccache.bench.measure.ResultFile;
import io.gatling.javaapi.core.ChainBuilder;
import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.http.HttpProtocolBuilder;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * The reference season-ticket search against ticket-orchestrator: {@code GET /tickets/search} for a parking
 * lot and a random period inside the current month, first page, with page sizes {@code -DpageSizes}
 * (default 10, 30, 50; each request picks one, and each size is reported apart). Profiles
 * ({@code -Dprofile}): {@code reference} (default; the ticket service's reference closed profile: ramp 1 to 5 users over 10 s,
 * hold 40 s, ramp down over 30 s), or {@code staircase} (open model at increasing arrival rates
 * {@code -Drates}, to find the saturation point), or any other {@link LoadProfile}. Asserts no failed
 * request; answers marked {@code degraded} (coupons missing) are counted and reported.
 *
 * <pre>
 * gatling/bin/run-simulation TicketSearchSimulation -Dprofile=reference
 * gatling/bin/run-simulation TicketSearchSimulation -Dprofile=staircase -Drates=10,20,40,80,160
 * </pre>
 */
public class TicketSearchSimulation extends Simulation {

    private final LoadProfile profile = LoadProfile.fromSystemProperties("reference", "10,20,40,80,120,160,240,320");
    private final Measurement measurement = new Measurement(profile);
    private final List<Integer> pageSizes = SimulationSettings.integers("pageSizes", "10,30,50");
    private final List<Long> lots = loadParkingLots();
    private final LongAdder degraded = new LongAdder();

    {
        HttpProtocolBuilder protocol = http
                .baseUrls(SimulationSettings.ticketBaseUrls())
                .acceptHeader("application/json")
                .shareConnections();

        Iterator<Map<String, Object>> feeder = new Iterator<>() {
            @Override
            public boolean hasNext() {
                return true;
            }

            @Override
            public Map<String, Object> next() {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                LocalDate monthStart = LocalDate.now().withDayOfMonth(1);
                int days = monthStart.lengthOfMonth();
                LocalDate from = monthStart.plusDays(random.nextInt(days));
                LocalDate to = from.plusDays(random.nextInt(days - from.getDayOfMonth() + 1));
                Map<String, Object> values = new HashMap<>();
                values.put("lotId", lots.get(random.nextInt(lots.size())));
                values.put("from", from.toString());
                values.put("to", to.toString());
                values.put("size", String.valueOf(pageSizes.get(random.nextInt(pageSizes.size()))));
                return values;
            }
        };

        List<io.gatling.javaapi.core.Choice.WithKey> bySize = new ArrayList<>();
        for (int size : pageSizes) {
            String name = "search size=" + size;
            ChainBuilder search = measurement.timed(name, exec(http(name)
                    .get("/tickets/search?parkingLotId=#{lotId}&from=#{from}&to=#{to}&page=0&size=" + size)
                    .check(status().is(200), jsonPath("$.degraded").ofBoolean().saveAs("degraded")))
                    .exec(session -> {
                        if (Measurement.isMeasured(session) && session.contains("degraded") && session.getBoolean("degraded")) {
                            degraded.increment();
                        }
                        return session;
                    }));
            bySize.add(onCase(String.valueOf(size)).then(search));
        }

        ScenarioBuilder scenario = scenario("ticket search")
                .feed(feeder)
                .exec(measurement.stopWhenSaturated())
                .doSwitch("#{size}").on(bySize);

        setUp(profile.inject(scenario))
                .protocols(protocol)
                .assertions(global().failedRequests().count().is(0L));
    }

    private static List<Long> loadParkingLots() {
        String database = SimulationSettings.string("ticketDatabase", "ticket_db");
        List<Long> ids = new ArrayList<>();
        try (Connection connection = DriverManager.getConnection(SimulationSettings.jdbcUrl(),
                SimulationSettings.jdbcUser(), SimulationSettings.jdbcPassword());
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT id FROM " + database + ".parking_lot ORDER BY id")) {
            while (rows.next()) {
                ids.add(rows.getLong(1));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read parking lots from " + SimulationSettings.jdbcUrl() + ": "
                    + e.getMessage(), e);
        }
        if (ids.isEmpty()) {
            throw new IllegalStateException("no parking lots in " + database + ": run the ticket generator first");
        }
        return ids;
    }

    @Override
    public void after() {
        ResultFile file = new ResultFile();
        file.put("run.simulation", getClass().getSimpleName());
        file.put("run.label", SimulationSettings.label());
        file.put("run.page_sizes", pageSizes.toString());
        file.put("run.parking_lots", lots.size());
        measurement.writeTo(file, "ticket");
        file.put("ticket.degraded", degraded.sum());
        System.out.printf("ticket search [%s]: %d ok, %d ko, %d degraded, %.1f req/s, p50 %.2f ms, p99 %.2f ms%n",
                SimulationSettings.label(), measurement.stats.total() - measurement.stats.failed(),
                measurement.stats.failed(), degraded.sum(), file.getDouble("ticket.throughput_rps"),
                measurement.stats.overall().p50Micros() / 1000.0, measurement.stats.overall().p99Micros() / 1000.0);
        Path results = SimulationSettings.results();
        if (results != null) {
            file.write(results);
        }
    }
}
