package dev.cdccache.ticketorchestrator.it;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.cdccache.client.InvalidationClient;
import dev.cdccache.ticketorchestrator.TicketOrchestratorApplication;
import dev.cdccache.ticketorchestrator.reference.ReferenceType;
import dev.cdccache.ticketorchestrator.statement.StatementCounter;

/** One running ticket-orchestrator (a Spring context on a random port) pointed at the {@link TicketStack}. */
public final class OrchestratorInstance implements AutoCloseable {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final String name;
    private final ConfigurableApplicationContext context;
    private final URI base;

    private OrchestratorInstance(String name, ConfigurableApplicationContext context) {
        this.name = name;
        this.context = context;
        int port = ((WebServerApplicationContext) context).getWebServer().getPort();
        this.base = URI.create("http://127.0.0.1:" + port);
    }

    static OrchestratorInstance start(String name, TicketStack stack, Map<String, String> settings) {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("server.port", "0");
        properties.put("spring.datasource.url", stack.mariaDb().jdbcUrl(TicketStack.DATABASE));
        properties.put("spring.datasource.username", stack.mariaDb().appUser());
        properties.put("spring.datasource.password", stack.mariaDb().appPassword());
        properties.put("spring.datasource.hikari.pool-name", "ticket-db-" + name);
        properties.put("spring.datasource.hikari.maximum-pool-size", "4");
        properties.put("cdc.invalidation.bootstrap-servers", stack.localStack().kafka().bootstrapServers());
        properties.put("spring.main.banner-mode", "off");
        properties.put("logging.level.root", "WARN");
        properties.putAll(settings);
        List<String> args = new ArrayList<>();
        properties.forEach((key, value) -> args.add("--" + key + "=" + value));
        ConfigurableApplicationContext context = new SpringApplicationBuilder(TicketOrchestratorApplication.class)
                .run(args.toArray(String[]::new));
        return new OrchestratorInstance(name, context);
    }

    /** @return the instance name */
    public String name() {
        return name;
    }

    /** @return the statements this instance executed so far */
    public StatementCounter statements() {
        return context.getBean(StatementCounter.class);
    }

    /** Whether this instance's invalidation client proves its caches fresh (its health would say so). */
    public boolean cachesFresh() {
        return context.getBean(InvalidationClient.class).status().fresh();
    }

    /**
     * Everything so far that removed entries from this instance's caches or kept a load out of them, whatever the
     * cause: change events, evictions after a freshness gap or a reset, loads discarded or dropped. A statement
     * count taken while this moved does not show what the composition costs on its own.
     */
    public double cacheDisturbances() {
        MeterRegistry registry = context.getBean(MeterRegistry.class);
        double sum = 0;
        for (String meter : List.of("cdc.client.evictions", "cdc.client.unproven.evictions",
                "cdc.client.loads.discarded", "cdc.client.loads.dropped")) {
            for (Counter counter : registry.find(meter).counters()) {
                sum += counter.count();
            }
            for (FunctionCounter counter : registry.find(meter).functionCounters()) {
                sum += counter.count();
            }
        }
        return sum;
    }

    /** Empties this instance's reference caches (to measure a cold page). */
    public void clearReferenceCaches() {
        CacheManager caches = context.getBean(CacheManager.class);
        for (ReferenceType type : ReferenceType.values()) {
            Cache cache = caches.getCache(type.cacheName());
            if (cache == null) {
                throw new IllegalStateException("no cache " + type.cacheName() + " on " + name);
            }
            cache.clear();
        }
    }

    /** @return the Spring context */
    public ConfigurableApplicationContext context() {
        return context;
    }

    /** {@code GET path} (with query), the raw answer. */
    public HttpResponse<String> get(String pathAndQuery) {
        HttpRequest request = HttpRequest.newBuilder(base.resolve(pathAndQuery)).timeout(Duration.ofSeconds(10))
                .GET().build();
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException("GET " + pathAndQuery + " on " + name + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** {@code PUT path} with a JSON body, the raw answer. */
    public HttpResponse<String> put(String path, String json) {
        HttpRequest request = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(json)).build();
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException("PUT " + path + " on " + name + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** {@code GET path}, expecting 200, parsed. */
    public JsonNode getJson(String pathAndQuery) {
        HttpResponse<String> response = get(pathAndQuery);
        if (response.statusCode() != 200) {
            throw new AssertionError("GET " + pathAndQuery + " on " + name + " answered " + response.statusCode()
                    + ": " + response.body());
        }
        return json(response.body());
    }

    /** One search page, expecting 200. */
    public JsonNode search(long parkingLotId, String from, String to, int page, int size) {
        return getJson("/tickets/search?parkingLotId=" + parkingLotId + "&from=" + from + "&to=" + to + "&page="
                + page + "&size=" + size);
    }

    /** Parses a JSON body. */
    public static JsonNode json(String body) {
        return JSON.readTree(body);
    }

    @Override
    public void close() {
        context.close();
    }
}
