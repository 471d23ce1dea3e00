package com.example.couponlookup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.spring.CdcCacheManager;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.connector.ConnectorProcess;
import dev.cdccache.infra.mariadb.MariaDbServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The example service against the real thing: MariaDB with the binlog on, a Kafka broker and the cdc-cache
 * connector (all started by the repository's infra module), and the service itself with its own
 * application.yml. A change made with plain SQL, outside the service, evicts what each of its three read paths
 * cached, and the service then serves the new row.
 */
class CouponLookupServiceIT {

    private static final Duration CONVERGE = Duration.ofSeconds(30);
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static MariaDbServer mariaDb;
    private static ConnectorProcess connector;
    private static ConfigurableApplicationContext service;
    private static String baseUrl;

    @BeforeAll
    static void start() {
        LocalStack stack = LocalStack.shared();
        mariaDb = stack.mariaDb();
        mariaDb.createDatabase("coupon_db");
        mariaDb.execute("coupon_db",
                "CREATE TABLE coupon (id BIGINT PRIMARY KEY, code VARCHAR(64) NOT NULL UNIQUE, name VARCHAR(200) NOT NULL,"
                        + " discount_value DECIMAL(12,2) NOT NULL, status VARCHAR(16) NOT NULL)",
                "INSERT INTO coupon VALUES (1, 'WELCOME', 'Welcome', 5.00, 'ACTIVE'), (2, 'SUMMER', 'Summer', 10.00, 'ACTIVE'),"
                        + " (3, 'WINTER', 'Winter', 15.00, 'PAUSED')");
        connector = ConnectorProcess.builder(Path.of("target", "connector", "cdc-connector-exec.jar"), stack)
                .tables(List.of("coupon_db.coupon"))
                .name("coupon-lookup-it")
                .build()
                .start();
        // application.yml as shipped; only where the database and Kafka are differs
        service = SpringApplication.run(CouponLookupApplication.class,
                "--server.port=0",
                "--spring.datasource.url=" + mariaDb.jdbcUrl("coupon_db"),
                "--spring.datasource.username=" + mariaDb.appUser(),
                "--spring.datasource.password=" + mariaDb.appPassword(),
                "--cdc.invalidation.bootstrap-servers=" + stack.kafka().bootstrapServers());
        baseUrl = "http://127.0.0.1:" + ((WebServerApplicationContext) service).getWebServer().getPort();
        await().atMost(Duration.ofSeconds(60)).until(() ->
                get("/actuator/health").path("components").path("cdcInvalidation").path("status").asString().equals("UP"));
    }

    @AfterAll
    static void stop() {
        if (service != null) {
            service.close();
        }
        if (connector != null) {
            connector.stop();
        }
    }

    @Test
    void anUpdateMadeWithPlainSqlEvictsEveryReadPathAndTheNewRowIsServed() {
        assertThat(get("/coupons/1").path("name").asString()).isEqualTo("Welcome");
        assertThat(get("/coupons/by-code/SUMMER").path("name").asString()).isEqualTo("Summer");
        assertThat(get("/coupons?ids=3,1").valueStream().map(c -> c.path("id").asLong())).containsExactly(3L, 1L);
        InvalidatingCache<Long, Coupon> byId = caches().invalidatingCache("coupons");
        InvalidatingCache<String, Coupon> byCode = caches().invalidatingCache("couponsByCode");
        assertThat(byId.getIfPresent(1L)).as("cached by the first read").isNotNull();
        assertThat(byId.getIfPresent(3L)).as("cached by the bulk read").isNotNull();
        assertThat(byCode.getIfPresent("SUMMER")).as("cached by @Cacheable").isNotNull();
        assertThat(service.getBean(HikariDataSource.class).getHikariPoolMXBean().getActiveConnections())
                .as("connections in use after the reads (a leaked one stays; a load test then hangs)").isZero();

        // another writer, not this service: a batch job, a migration, someone at the SQL prompt
        mariaDb.execute("coupon_db",
                "UPDATE coupon SET name = 'Welcome back' WHERE id = 1",
                "UPDATE coupon SET code = 'SUMMER-2', discount_value = 12.50 WHERE id = 2",
                "UPDATE coupon SET status = 'ACTIVE' WHERE id = 3");

        await().atMost(CONVERGE).untilAsserted(() -> {
            assertThat(byId.getIfPresent(1L)).as("evicted by the change of row 1").isNull();
            assertThat(byId.getIfPresent(3L)).as("evicted by the change of row 3").isNull();
            assertThat(byCode.getIfPresent("SUMMER")).as("the old code evicted").isNull();
        });
        assertThat(get("/coupons/1").path("name").asString()).isEqualTo("Welcome back");
        assertThat(status("/coupons/by-code/SUMMER")).isEqualTo(404);
        assertThat(get("/coupons/by-code/SUMMER-2").path("discountValue").decimalValue()).isEqualByComparingTo("12.50");
        assertThat(get("/coupons?ids=3,1").valueStream().map(c -> c.path("status").asString()))
                .containsExactly("ACTIVE", "ACTIVE");
    }

    private static CdcCacheManager caches() {
        return service.getBean(CdcCacheManager.class);
    }

    private static JsonNode get(String path) {
        HttpResponse<String> response = send(path);
        assertThat(response.statusCode()).as("GET " + path + ": " + response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    private static int status(String path) {
        return send(path).statusCode();
    }

    private static HttpResponse<String> send(String path) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(baseUrl + path)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
