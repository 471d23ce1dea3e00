package com.example.couponlookup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.connector.ConnectorProcess;
import dev.cdccache.infra.mariadb.MariaDbServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A new user's first attempts as a test: the example service with the settings a new user gets wrong, against the
 * real pipeline (MariaDB, Kafka, the connector capturing coupon_db.coupon only). Each mistake must give a clear
 * start-up error or a state a load balancer sees (the readiness group docs/client.md recommends answering 503),
 * never a cache that looks fresh while nothing can evict it.
 */
@ExtendWith(OutputCaptureExtension.class)
class MisconfigurationIT {

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static LocalStack stack;
    private static MariaDbServer mariaDb;
    private static ConnectorProcess connector;

    @BeforeAll
    static void start() {
        stack = LocalStack.shared();
        mariaDb = stack.mariaDb();
        mariaDb.createDatabase("trial_db");
        mariaDb.execute("trial_db",
                "CREATE TABLE coupon (id BIGINT PRIMARY KEY, code VARCHAR(64) NOT NULL UNIQUE, name VARCHAR(200) NOT NULL,"
                        + " discount_value DECIMAL(12,2) NOT NULL, status VARCHAR(16) NOT NULL)",
                "CREATE TABLE coupon_note (id BIGINT PRIMARY KEY, note VARCHAR(200) NOT NULL)");
        // The connector captures the coupon table only; coupon_note is the "table the connector does not capture".
        connector = ConnectorProcess.builder(Path.of("target", "connector", "cdc-connector-exec.jar"), stack)
                .tables(List.of("trial_db.coupon"))
                .name("coupon-lookup-trial")
                .topicPrefix("trial")
                .build()
                .start();
    }

    @AfterAll
    static void stop() {
        if (connector != null) {
            connector.stop();
        }
    }

    /** The example's own application.yml, pointed at the trial database; {@code overrides} as key=value. */
    private static String[] arguments(String... overrides) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("server.port", "0");
        settings.put("spring.datasource.url", mariaDb.jdbcUrl("trial_db"));
        settings.put("spring.datasource.username", mariaDb.appUser());
        settings.put("spring.datasource.password", mariaDb.appPassword());
        settings.put("cdc.invalidation.bootstrap-servers", stack.kafka().bootstrapServers());
        settings.put("cdc.invalidation.topic-prefix", "trial");
        settings.put("cdc.invalidation.caches.coupons.table", "trial_db.coupon");
        settings.put("cdc.invalidation.caches.couponsByCode.table", "trial_db.coupon");
        for (String override : overrides) {
            settings.put(override.substring(0, override.indexOf('=')), override.substring(override.indexOf('=') + 1));
        }
        // Spring joins a repeated command-line argument into a list, so each setting is passed once.
        return settings.entrySet().stream().map(e -> "--" + e.getKey() + "=" + e.getValue()).toArray(String[]::new);
    }

    @Test
    void aMisspelledSettingFailsStartUpNamingItAndTheSettingMeant(CapturedOutput output) {
        assertThatThrownBy(() -> SpringApplication.run(CouponLookupApplication.class,
                arguments("cdc.invalidation.max-stalenes=2s")));
        assertThat(output.getAll()).contains("Unknown setting 'cdc.invalidation.max-stalenes'")
                .contains("Did you mean 'cdc.invalidation.max-staleness'?");
    }

    @Test
    void aWrongTopicPrefixIsDownAndNotReadyNamingTheMissingTopics() {
        try (ConfigurableApplicationContext service = SpringApplication.run(CouponLookupApplication.class,
                arguments("cdc.invalidation.topic-prefix=trail"))) {
            assertDownNaming(service, "trail.trial_db.coupon");
        }
    }

    @Test
    void aCacheOnATableTheConnectorDoesNotCaptureIsDownAndNotReadyNamingItsTopic() {
        try (ConfigurableApplicationContext service = SpringApplication.run(CouponLookupApplication.class,
                arguments("cdc.invalidation.caches.notes.table=trial_db.coupon_note",
                        "cdc.invalidation.caches.notes.key-columns=id"))) {
            assertDownNaming(service, "trial.trial_db.coupon_note");
        }
    }

    private static void assertDownNaming(ConfigurableApplicationContext service, String topic) {
        String base = "http://127.0.0.1:" + ((WebServerApplicationContext) service).getWebServer().getPort();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            HttpResponse<String> health = send(base + "/actuator/health/cdcInvalidation");
            JsonNode body = JSON.readTree(health.body());
            assertThat(body.path("status").asString()).as(health.body()).isEqualTo("DOWN");
            assertThat(body.path("details").path("problems").valueStream()
                    .filter(p -> p.path("code").asString().equals("missing-topic"))
                    .map(p -> p.path("message").asString()).toList())
                    .as(health.body()).anySatisfy(message -> assertThat(message).contains(topic));
        });
        assertThat(send(base + "/actuator/health/readiness").statusCode()).as("what a load balancer sees").isEqualTo(503);
    }

    private static HttpResponse<String> send(String url) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
