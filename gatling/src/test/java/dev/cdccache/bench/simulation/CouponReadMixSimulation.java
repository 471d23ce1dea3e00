package dev.cdccache.bench.simulation;

import static io.gatling.javaapi.core.CoreDsl.StringBody;
import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.global;
import static io.gatling.javaapi.core.CoreDsl.percent;
import static io.gatling.javaapi.core.CoreDsl.randomSwitch;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;

import dev.cdccache.bench.measure.ResultFile;
import io.gatling.javaapi.core.ChainBuilder;
import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.http.HttpProtocolBuilder;
import java.nio.file.Path;

/**
 * The reference coupon traffic against coupon-service: 95% of requests on three endpoints, in the
 * proportions a production coupon-metadata service measured (its APM table: 43.7% coupon reads, 30.3% and 20.2% the two progress/aggregation APIs,
 * the remaining ~5% spread over detail, user and reservation-time lookups):
 * <ul>
 * <li>44% {@code GET /coupons/{id}} single reads over the hot set</li>
 * <li>30% {@code GET /places/{placeId}/coupon-progresses} (cached coupons joined with the counts: cached in
 *     mode local, live in the others)</li>
 * <li>21% {@code GET /coupons?ids=} bulk lookups of 50-400 ids (a {@code findAllById})</li>
 * <li>2% {@code GET /coupons/by-code/{code}}, 1.5% {@code GET /coupons/available}, 1.5% the issue write
 *     path {@code POST /coupons/{id}/issue} (201, or 409 when sold out or already held)</li>
 * </ul>
 * Every instance in {@code -DbaseUrls} gets an equal share. Load shape: {@link LoadProfile} ({@code -Dprofile},
 * default {@code constant}). Asserts no failed request; latency is reported, not asserted. Figures go to
 * {@code -Dresults}.
 *
 * <pre>
 * gatling/bin/run-simulation CouponReadMixSimulation -Dprofile=constant -Drate=200 -DdurationSeconds=30
 * </pre>
 */
public class CouponReadMixSimulation extends Simulation {

    private final LoadProfile profile = LoadProfile.fromSystemProperties("constant", "50,100,200,400,800,1200,1600,2400,3200");
    private final Measurement measurement = new Measurement(profile);
    private final CouponTestData data = CouponTestData.load();

    {
        HttpProtocolBuilder protocol = http
                .baseUrls(SimulationSettings.couponBaseUrls())
                .acceptHeader("application/json")
                .shareConnections();

        ChainBuilder single = measurement.timed("single coupon", exec(http("single coupon")
                .get("/coupons/#{couponId}").check(status().is(200))));
        ChainBuilder progresses = measurement.timed("place progresses", exec(http("place progresses")
                .get("/places/#{placeId}/coupon-progresses").check(status().is(200))));
        int bulkMin = SimulationSettings.integer("bulkMin", 50);
        int bulkMax = SimulationSettings.integer("bulkMax", 400);
        ChainBuilder bulk = exec(session -> session.set("ids",
                data.idList(java.util.concurrent.ThreadLocalRandom.current(), bulkMin, bulkMax)))
                .exec(measurement.timed("bulk coupons", exec(http("bulk coupons")
                .get("/coupons?ids=#{ids}").check(status().is(200)))));
        ChainBuilder byCode = measurement.timed("coupon by code", exec(http("coupon by code")
                .get("/coupons/by-code/#{code}").check(status().is(200))));
        ChainBuilder available = measurement.timed("available coupons", exec(http("available coupons")
                .get("/coupons/available?placeId=#{placeId}&price=#{price}").check(status().is(200))));
        ChainBuilder issue = measurement.timed("issue coupon", exec(http("issue coupon")
                .post("/coupons/#{couponId}/issue")
                .body(StringBody("{\"userId\": #{userId}}")).asJson()
                .check(status().in(201, 409))));

        ScenarioBuilder scenario = scenario("coupon read mix")
                .feed(data.feeder())
                .exec(measurement.stopWhenSaturated())
                .exec(randomSwitch().on(
                        percent(44.0).then(single),
                        percent(30.0).then(progresses),
                        percent(21.0).then(bulk),
                        percent(2.0).then(byCode),
                        percent(1.5).then(available),
                        percent(1.5).then(issue)));

        setUp(profile.inject(scenario))
                .protocols(protocol)
                .assertions(global().failedRequests().count().is(0L));
    }

    @Override
    public void after() {
        Path results = SimulationSettings.results();
        ResultFile file = new ResultFile();
        file.put("run.simulation", getClass().getSimpleName());
        file.put("run.label", SimulationSettings.label());
        file.put("run.base_urls", String.join(",", SimulationSettings.couponBaseUrls()));
        file.put("run.coupons", data.couponIds.size()).put("run.places", data.placeIds.size());
        file.put("run.hot_coupons", data.hotCoupons.size()).put("run.hot_places", data.hotPlaces.size());
        measurement.writeTo(file, "coupon");
        System.out.printf("coupon read mix [%s]: %d ok, %d ko, %.1f req/s, p50 %.2f ms, p99 %.2f ms%n",
                SimulationSettings.label(), measurement.stats.total() - measurement.stats.failed(),
                measurement.stats.failed(), file.getDouble("coupon.throughput_rps"),
                measurement.stats.overall().p50Micros() / 1000.0, measurement.stats.overall().p99Micros() / 1000.0);
        if (results != null) {
            file.write(results);
        }
    }
}
