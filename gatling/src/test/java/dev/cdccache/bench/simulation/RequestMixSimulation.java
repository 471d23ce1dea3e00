package dev.cdccache.bench.simulation;

import static io.gatling.javaapi.core.CoreDsl.StringBody;
import static io.gatling.javaapi.core.CoreDsl.csv;
import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.global;
import static io.gatling.javaapi.core.CoreDsl.percent;
import static io.gatling.javaapi.core.CoreDsl.randomSwitch;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;

import dev.cdccache.bench.measure.ResultFile;
import dev.cdccache.bench.mix.RequestFeeder;
import dev.cdccache.bench.mix.RequestMix;
import dev.cdccache.bench.report.Capacity;
import io.gatling.javaapi.core.Choice;
import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.http.HttpRequestActionBuilder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A load test of any HTTP service, described by a request file ({@link RequestMix}: weighted requests with
 * path templates, filled from integer ranges or CSV rows) instead of code. Default load: the open-model
 * staircase of {@link LoadProfile} ({@code -Drates}, {@code -DstepSeconds}; it stops adding load once the
 * service no longer keeps up), any other profile with {@code -Dprofile}. Gatling writes its HTML report; the
 * per-step figures (microsecond latencies) go to the console and {@code -Dresults}. Fails when a request
 * fails (an unexpected status or no answer).
 *
 * <pre>
 * gatling/bin/load-test --base-url http://my-service:8080 --requests my-requests.yml --rates 20,50,100,200
 * </pre>
 */
public class RequestMixSimulation extends Simulation {

    private final RequestMix mix = RequestMix.load(Path.of(required("requests", "the request file, e.g. -Drequests=gatling/requests/coupon-service.yml")));
    private final LoadProfile profile = LoadProfile.fromSystemProperties("staircase", "10,20,50,100,200,400,800");
    private final Measurement measurement = new Measurement(profile);
    private final List<String> baseUrls = SimulationSettings.list("baseUrls", required("baseUrls", "the service's base URL(s), e.g. -DbaseUrls=http://127.0.0.1:8080"));

    {
        List<Choice.WithWeight> choices = new ArrayList<>();
        List<Double> percentages = mix.percentages();
        for (int i = 0; i < mix.requests().size(); i++) {
            RequestMix.Request request = mix.requests().get(i);
            choices.add(percent(percentages.get(i)).then(measurement.timed(request.name(), exec(httpRequest(request)))));
        }
        ScenarioBuilder scenario = scenario("request mix").feed(new RequestFeeder(mix));
        for (RequestMix.CsvRows file : mix.csv()) {
            scenario = scenario.feed(csv(file.file().toString()).random());
        }
        scenario = scenario
                .exec(measurement.stopWhenSaturated())
                .exec(randomSwitch().on(choices));
        setUp(profile.inject(scenario))
                .protocols(http.baseUrls(baseUrls).acceptHeader("application/json").shareConnections())
                .assertions(global().failedRequests().count().is(0L));
    }

    private static HttpRequestActionBuilder httpRequest(RequestMix.Request request) {
        HttpRequestActionBuilder builder = http(request.name()).httpRequest(request.method(), request.path());
        if (request.body() != null) {
            builder = builder.body(StringBody(request.body())).asJson();
        }
        // placeholders in header values are Gatling expressions, filled per request like the path's
        builder = builder.headers(request.headers());
        if (!request.statuses().isEmpty()) {
            builder = builder.check(status().in(request.statuses()));
        }
        return builder; // without statuses Gatling's default check: 2xx or 304
    }

    private static String required(String property, String what) {
        String value = SimulationSettings.string(property, null);
        if (value == null) {
            throw new IllegalArgumentException("-D" + property + " is required: " + what);
        }
        return value;
    }

    @Override
    public void after() {
        ResultFile file = new ResultFile();
        file.put("run.simulation", getClass().getSimpleName());
        file.put("run.label", SimulationSettings.label());
        file.put("run.requests_file", mix.file().toAbsolutePath());
        file.put("run.base_urls", String.join(",", baseUrls));
        measurement.writeTo(file, "mix");
        // every line starts with "request mix: " so that gatling/bin/load-test can show them
        System.out.printf("request mix: %s against %s: %d ok, %d ko, %.1f req/s, p50 %.2f ms, p99 %.2f ms (after the warm-up)%n",
                mix.file().getFileName(), String.join(",", baseUrls),
                measurement.stats.total() - measurement.stats.failed(), measurement.stats.failed(),
                file.getDouble("mix.throughput_rps"), measurement.stats.overall().p50Micros() / 1000.0,
                measurement.stats.overall().p99Micros() / 1000.0);
        if (profile.steps != null) {
            List<Capacity.Step> steps = Capacity.steps(file, "mix.staircase");
            System.out.println("request mix:   offered/s  achieved/s    p50 ms    p99 ms  failed");
            for (Capacity.Step s : steps) {
                System.out.printf("request mix:   %9.1f  %10.1f  %8.2f  %8.2f  %6d%n", s.offered(), s.achieved(),
                        s.latency().p50Micros() / 1000.0, s.latency().p99Micros() / 1000.0, s.failed());
            }
            long boundMs = SimulationSettings.integer("p99BoundMs", 100);
            Capacity.Step capacity = Capacity.atP99(steps, boundMs * 1000);
            System.out.println(capacity == null
                    ? "request mix: no step kept up with p99 <= " + boundMs + " ms and no failed request"
                    : String.format("request mix: capacity at p99 <= %d ms: %.1f requests/s (highest step that kept up"
                            + " without a failed request)", boundMs, capacity.achieved()));
            if ("true".equals(file.get("mix.staircase.stopped_saturated", "false"))) {
                System.out.println("request mix: stopped before the last step: the service no longer kept up");
            }
        }
        Path results = SimulationSettings.results();
        if (results != null) {
            file.write(results);
        }
    }
}
