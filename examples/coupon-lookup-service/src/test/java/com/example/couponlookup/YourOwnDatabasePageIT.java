package com.example.couponlookup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.spring.CdcCacheManager;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.mariadb.MariaDbServer;
import dev.cdccache.infra.process.FreePorts;
import dev.cdccache.infra.process.JavaProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * docs/your-own-database.md, followed as written: its SQL, its setup.sql command, its two YAML files, the check, the
 * connector and the example service, and the SQL change of its last step, against a real MariaDB and Kafka. The
 * blocks are read from the page, so the test breaks when the page drifts. It changes only what a single-broker test
 * cluster without TLS forces (ports, the security blocks, the replication factor, the service's database user), and
 * asserts that the page still says the rest.
 */
class YourOwnDatabasePageIT {

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void thePageTakesAnEmptyDatabaseToItsFirstInvalidation(@TempDir Path dir) throws IOException {
        String page = Files.readString(repositoryFile("docs/your-own-database.md"));
        LocalStack stack = LocalStack.shared();
        MariaDbServer db = stack.mariaDb();
        String kafka = stack.kafka().bootstrapServers();

        // 2. the walkthrough's table, then setup.sql with the page's parameters
        Path tableSql = Files.writeString(dir.resolve("table.sql"), block(page, "```sql\n"));
        db.runScript(tableSql);
        Matcher initCommand = Pattern.compile("--init-command=\"([^\"]+)\"").matcher(page);
        assertThat(initCommand.find()).as("the setup.sql command of step 2").isTrue();
        assertThat(page).contains("< cdc-connector/sql/setup.sql");
        db.runScript(repositoryFile("cdc-connector/sql/setup.sql"), "--init-command=" + initCommand.group(1));
        String password = value(initCommand.group(1), "@cdc_password");

        // 3. the connector's YAML
        String connectorYaml = block(page, "<!-- connector-yaml");
        assertThat(connectorYaml).contains("topic-replication-factor: 3", "protocol: SASL_SSL", "port: 3306",
                "bootstrap-servers: kafka-1:9093,kafka-2:9093,kafka-3:9093");
        Path connectorYml = Files.writeString(dir.resolve("connector.yml"), withoutSecurity(connectorYaml)
                .replace("topic-replication-factor: 3", "topic-replication-factor: 1")
                .replace("port: 3306", "port: " + db.port())
                .replace("kafka-1:9093,kafka-2:9093,kafka-3:9093", kafka));

        // 4. check, before the connector ever ran
        assertThat(page).contains("java -jar cdc-connector/target/cdc-connector-0.1.0-SNAPSHOT-exec.jar check --config connector.yml");
        String firstCheck = check(dir, connectorYml, password, "check-1");
        assertThat(firstCheck).contains("[skip] probe", "All checks passed");

        // 5. the connector
        assertThat(page).contains("java -jar cdc-connector/target/cdc-connector-0.1.0-SNAPSHOT-exec.jar"
                + " --spring.config.additional-location=file:connector.yml");
        int connectorPort = FreePorts.next();
        JavaProcess connector = JavaProcess.builder("page-connector").jar(connectorJar()).logFile(dir.resolve("connector.log"))
                .startupArchive(false) // java -jar, as the page says
                .jvmArg("-XX:TieredStopAtLevel=1").env("CDC_CONNECTOR_DATABASE_PASSWORD", password)
                .arg("--spring.config.additional-location=file:" + connectorYml).arg("--server.port=" + connectorPort).start();
        ConfigurableApplicationContext service = null;
        try {
            await().atMost(Duration.ofSeconds(90)).until(() -> {
                assertThat(connector.isAlive()).as(connector.tail(40)).isTrue();
                return statusOrMinusOne("http://127.0.0.1:" + connectorPort + "/actuator/health") == 200;
            });
            String secondCheck = check(dir, connectorYml, password, "check-2");
            assertThat(secondCheck).containsPattern("\\[ok  \\] probe +a heartbeat written now reached shop\\.cdc_meta\\.heartbeat after \\d+ ms");

            // 6. the service with the page's settings
            String serviceYaml = block(page, "<!-- service-yaml");
            assertThat(serviceYaml).contains("protocol: SASL_SSL", "jdbc:mariadb://127.0.0.1:3306/shop");
            Path serviceYml = Files.writeString(dir.resolve("service.yml"), withoutSecurity(serviceYaml)
                    .replace("127.0.0.1:3306", "127.0.0.1:" + db.port())
                    .replace("kafka-1:9093,kafka-2:9093,kafka-3:9093", kafka));
            assertThat(page).contains("--spring.config.additional-location=file:service.yml");
            service = SpringApplication.run(CouponLookupApplication.class,
                    "--spring.config.additional-location=file:" + serviceYml, "--server.port=0",
                    "--spring.datasource.username=" + db.adminUser(), "--spring.datasource.password=" + db.adminPassword());
            String baseUrl = "http://127.0.0.1:" + ((WebServerApplicationContext) service).getWebServer().getPort();
            await().atMost(Duration.ofSeconds(60)).until(() -> JSON.readTree(send(baseUrl, "/actuator/health").body())
                    .path("components").path("cdcInvalidation").path("status").asString().equals("UP"));

            // 7. read, change with SQL, read again
            assertThat(get(baseUrl, "/coupons/1").path("name").asString()).isEqualTo("Welcome");
            InvalidatingCache<Long, Coupon> coupons = service.getBean(CdcCacheManager.class).invalidatingCache("coupons");
            assertThat(coupons.getIfPresent(1L)).as("cached by the read").isNotNull();
            Matcher update = Pattern.compile("shop -e \"(UPDATE [^\"]+)\"").matcher(page);
            assertThat(update.find()).as("the UPDATE of step 7").isTrue();
            db.execute("shop", update.group(1));
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(coupons.getIfPresent(1L)).as("evicted by the change").isNull());
            assertThat(get(baseUrl, "/coupons/1").path("name").asString()).isEqualTo("Welcome back");
        } finally {
            if (service != null) {
                service.close();
            }
            connector.stop(Duration.ofSeconds(20));
        }
    }

    /** {@code cdc-connector check --config connector.yml} with the connector's jar; expects exit code 0. */
    private static String check(Path dir, Path config, String password, String name) {
        JavaProcess check = JavaProcess.builder(name).jar(connectorJar()).logFile(dir.resolve(name + ".log"))
                .startupArchive(false).jvmArg("-XX:TieredStopAtLevel=1").env("CDC_CONNECTOR_DATABASE_PASSWORD", password)
                .arg("check").arg("--config").arg(config.toString()).start();
        int exit = check.waitFor(Duration.ofSeconds(120));
        String output = check.tail(200);
        System.out.println(output);
        assertThat(exit).as(output).isZero();
        return output;
    }

    /** The first fenced block after {@code marker}, without its fences. */
    private static String block(String page, String marker) {
        int at = page.indexOf(marker);
        assertThat(at).as("the page has " + marker.strip()).isNotNegative();
        int open = page.indexOf("```", at);
        int start = page.indexOf('\n', open) + 1;
        int end = page.indexOf("```", start);
        return page.substring(start, end);
    }

    /** The YAML without its {@code security:} block (the test cluster speaks PLAINTEXT). */
    private static String withoutSecurity(String yaml) {
        StringBuilder kept = new StringBuilder();
        int skipDeeperThan = -1;
        for (String line : yaml.split("\n")) {
            int indent = line.length() - line.stripLeading().length();
            if (skipDeeperThan >= 0 && indent > skipDeeperThan) {
                continue;
            }
            skipDeeperThan = -1;
            if (line.strip().startsWith("security:")) {
                skipDeeperThan = indent;
                continue;
            }
            kept.append(line).append('\n');
        }
        // a key that held only the security block (the client's kafka:) is left without a value: drop it too
        String[] lines = kept.toString().split("\n");
        StringBuilder pruned = new StringBuilder();
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            int indent = line.length() - line.stripLeading().length();
            boolean emptyKey = line.strip().endsWith(":") && (i + 1 == lines.length
                    || lines[i + 1].length() - lines[i + 1].stripLeading().length() <= indent);
            if (!emptyKey) {
                pruned.append(line).append('\n');
            }
        }
        return pruned.toString();
    }

    private static String value(String setCommand, String variable) {
        Matcher m = Pattern.compile(Pattern.quote(variable) + "='([^']*)'").matcher(setCommand);
        assertThat(m.find()).as(variable + " in " + setCommand).isTrue();
        return m.group(1);
    }

    private static Path connectorJar() {
        return Path.of("target", "connector", "cdc-connector-exec.jar");
    }

    private static Path repositoryFile(String path) {
        for (Path at = Path.of("").toAbsolutePath(); at != null; at = at.getParent()) {
            if (Files.isRegularFile(at.resolve(path))) {
                return at.resolve(path);
            }
        }
        throw new IllegalStateException(path + " not found above " + Path.of("").toAbsolutePath());
    }

    private static JsonNode get(String baseUrl, String path) {
        HttpResponse<String> response = send(baseUrl, path);
        assertThat(response.statusCode()).as("GET " + path + ": " + response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    /** The HTTP status, or -1 while nothing listens yet. */
    private static int statusOrMinusOne(String url) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static HttpResponse<String> send(String baseUrl, String path) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(baseUrl + path)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
