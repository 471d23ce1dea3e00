package dev.cdccache.packaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdccache.infra.DataDirectories;
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
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code docker compose up} without Docker: the MySQL init script runs on the local MariaDB (after the users
 * and heartbeat table the local stack created are dropped), then every application service of
 * infra/docker-compose.yml starts from the jar its Dockerfile copies, with the compose environment and command,
 * in the compose order. Only what cannot be the same outside Docker is replaced: host names and ports
 * ({@code mysql:3306}, {@code kafka:9092}, {@code coupon-service-1:8081}, {@code SERVER_PORT}) by the local
 * processes', and the connector's {@code mysql} flavor by {@code mariadb} (the local server is MariaDB). The
 * connector's start-up checks then judge the init script's grants and heartbeat table, strict binding judges
 * its settings, and a plain SQL change must reach the caches of the services through the compose topic prefix.
 * Also: the MySQL server options and the Kafka settings are those of the local run's servers.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ComposeStackIT {

    private static final Duration START = Duration.ofSeconds(180);
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static final ComposeFile compose = ComposeFile.read();
    private static LocalStack stack;
    private static MariaDbServer mariaDb;
    private static final Map<String, Integer> ports = new LinkedHashMap<>();
    private static final Map<String, JavaProcess> running = new LinkedHashMap<>();

    @BeforeAll
    static void composeUp() throws Exception {
        DataDirectories.delete(Path.of("target", "compose-it")); // the process logs are appended to
        stack = LocalStack.shared();
        mariaDb = stack.mariaDb();
        // what the MySQL image would start from: no users but the admin, no cdc_meta
        mariaDb.execute(null, "DROP USER IF EXISTS '" + mariaDb.connectorUser() + "'@'%', '" + mariaDb.appUser() + "'@'%'",
                "DROP DATABASE IF EXISTS " + MariaDbServer.META_DATABASE);
        for (String statement : statements(Files.readString(Repository.mysqlInitSql()))) {
            mariaDb.execute(null, statement);
        }
        for (String service : compose.builtServices()) {
            if (compose.environment(service).containsKey("SERVER_PORT")) {
                ports.put(service, FreePorts.next());
            }
        }
        CompletableFuture<Void> data = CompletableFuture.runAsync(() -> {
            JavaProcess generator = start("coupon-data");
            assertThat(generator.waitFor(START)).as(generator.tail(30)).isZero();
        });
        // liveness, as the compose file's healthcheck: its caches' topics exist only once the connector runs
        CompletableFuture<Void> tickets = CompletableFuture.runAsync(() -> start("ticket-orchestrator")
                .awaitHttpOk(url("ticket-orchestrator", "/actuator/health/liveness"), START));
        data.join();
        tickets.join();
        awaitHealth(start("cdc-connector")); // health UP: its start-up checks passed
        CompletableFuture<Void> coupons = CompletableFuture.runAsync(() -> awaitHealth(start("coupon-service-1")));
        awaitHealth(start("coupon-lookup-service"));
        coupons.join();
    }

    @AfterAll
    static void composeDown() {
        List<JavaProcess> processes = new ArrayList<>(running.values());
        java.util.Collections.reverse(processes);
        processes.forEach(p -> p.stop(Duration.ofSeconds(20)));
    }

    @Test
    @Order(1)
    void aPlainSqlChangeReachesTheCachesOfTheServicesThroughTheComposeTopicPrefix() throws Exception {
        List<String> services = List.of("coupon-service-1", "coupon-lookup-service");
        Map<String, Double> evictionsBefore = new TreeMap<>();
        for (String service : services) {
            assertThat(get(service, "/coupons/7").path("id").asLong()).isEqualTo(7);
            evictionsBefore.put(service, evictions(service));
        }
        mariaDb.execute("coupon_db", "UPDATE coupon SET name = 'changed outside the services' WHERE id = 7");
        for (String service : services) {
            // evicted by the change event: not merely expired (an entry is reloaded after max-staleness anyway)
            await().atMost(Duration.ofSeconds(60)).until(() -> evictions(service) > evictionsBefore.get(service));
            assertThat(get(service, "/coupons/7").path("name").asString()).isEqualTo("changed outside the services");
        }
    }

    @Test
    @Order(2)
    void theHeartbeatTableIsContractShapedAndTheConnectorsRowsReachTheClients() throws Exception {
        Map<String, String> columns = new TreeMap<>();
        try (Connection c = mariaDb.adminConnection(null); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_KEY FROM information_schema.COLUMNS"
                        + " WHERE TABLE_SCHEMA = 'cdc_meta' AND TABLE_NAME = 'heartbeat'")) {
            while (rs.next()) {
                columns.put(rs.getString(1), rs.getString(2) + " " + rs.getString(3) + " " + rs.getString(4));
            }
        }
        // docs/contract.md, "Heartbeats": one row per connector
        assertThat(columns).containsExactlyInAnyOrderEntriesOf(Map.of(
                "id", "varchar(190) NO PRI", "ts", "datetime(6) NO ", "epoch", "varchar(64) NO ", "tables", "text NO "));

        boolean written = waitForHeartbeatRow();
        if (!written && Files.readString(running.get("cdc-connector").logFile()).contains("'epoch'")) {
            Assumptions.abort("this connector writes the former heartbeat row (id, ts) and the database refuses it"
                    + " without epoch and tables: heartbeats start with the connector that writes the row of docs/contract.md");
        }
        assertThat(written).as("a heartbeat row written (connector log: " + running.get("cdc-connector").logFile() + ")").isTrue();
        for (String service : List.of("coupon-service-1", "coupon-lookup-service", "ticket-orchestrator")) {
            await().atMost(Duration.ofSeconds(60)).until(() ->
                    get(service, "/actuator/health").path("components").path("cdcInvalidation").path("status").asString().equals("UP"));
        }
    }

    @Test
    @Order(3)
    void theDatabaseAndKafkaRunWithTheLocalRunsServerSettings() throws IOException {
        // MySQL options of the compose file against the my.cnf of the local run's MariaDB
        Map<String, String> mysql = new TreeMap<>();
        for (String arg : compose.command("mysql")) {
            String[] kv = arg.replaceFirst("^--", "").split("=", 2);
            mysql.put(kv[0], kv.length > 1 ? kv[1] : "");
        }
        Map<String, String> local = new TreeMap<>();
        for (String line : Files.readAllLines(mariaDb.baseDir().resolve("my.cnf"))) {
            if (!line.startsWith("[") && !line.isBlank()) {
                String[] kv = line.split("=", 2);
                local.put(kv[0], kv.length > 1 ? kv[1].replace("'", "") : "");
            }
        }
        Set<String> paths = Set.of("user", "datadir", "port", "bind-address", "socket", "pid-file", "init-file", "tmpdir");
        // settings that make the throwaway test database fast, at the cost of durability: not for a stack people use
        Set<String> speed = Set.of("innodb-buffer-pool-size", "innodb-flush-log-at-trx-commit", "innodb-doublewrite",
                "performance-schema", "sync-binlog");
        for (Map.Entry<String, String> setting : local.entrySet()) {
            String key = setting.getKey();
            if (paths.contains(key) || speed.contains(key)) {
                continue;
            }
            assertThat(mysql).as("MySQL option " + key + " of the local run's MariaDB").containsKey(key);
            if (!key.equals("log-bin")) {
                assertThat(mysql.get(key)).as(key).isEqualTo(setting.getValue());
            }
        }

        // the broker settings, but for addresses and directories
        Properties broker = new Properties();
        try (var in = Files.newBufferedReader(stack.baseDir().resolve("kafka").resolve("server.properties"))) {
            broker.load(in);
        }
        Map<String, String> kafka = new TreeMap<>();
        compose.environment("kafka").forEach((k, v) -> kafka.put(k.replaceFirst("^KAFKA_", "").toLowerCase().replace('_', '.'), v));
        Set<String> addresses = Set.of("listeners", "advertised.listeners", "controller.quorum.voters", "controller.listener.names",
                "inter.broker.listener.name", "listener.security.protocol.map", "log.dirs");
        for (String key : broker.stringPropertyNames()) {
            if (!addresses.contains(key)) {
                assertThat(kafka.get(key)).as("Kafka setting " + key + " of the local run's broker").isEqualTo(broker.getProperty(key));
            }
        }
    }

    /**
     * Every metric the Grafana dashboard and the Prometheus alert rules of ops/ name is exported by the running
     * applications (their {@code /actuator/prometheus}, after a change and heartbeats went through), with the
     * label values the expressions select ({@code reason="offset_out_of_range"}, {@code result="failed"}...).
     * The names come from the files themselves (OpsFiles): a metric added to the dashboard or rules later is
     * checked the same way, and one that appears only after some event needs that event in this class's run.
     */
    @Test
    @Order(4)
    void everyMetricTheDashboardAndTheAlertRulesNameIsExported() throws Exception {
        List<PrometheusScrape> scrapes = new ArrayList<>();
        for (String application : APPLICATIONS) {
            scrapes.add(scrape(application));
        }
        PrometheusScrape exported = PrometheusScrape.union(scrapes);
        List<String> missing = new ArrayList<>();
        for (OpsFiles.Selector selector : OpsFiles.selectors()) {
            String metric = selector.metric();
            if (OpsFiles.SYNTHETIC.contains(metric)) {
                continue;
            }
            if (!exported.names().contains(metric)) {
                missing.add(selector.source() + ": " + metric);
                continue;
            }
            for (OpsFiles.LabelMatcher matcher : selector.matchers()) {
                if (Set.of("instance", "job").contains(matcher.label()) || matcher.value().contains("$")) {
                    continue; // added by Prometheus, or a dashboard variable
                }
                List<String> values = switch (matcher.op()) {
                    case "=" -> List.of(matcher.value());
                    case "=~" -> matcher.value().matches("[A-Za-z0-9_.|-]+") ? List.of(matcher.value().split("\\|")) : List.of();
                    default -> List.of();
                };
                for (String value : values) {
                    if (!exported.hasLabelValue(metric, matcher.label(), value)) {
                        missing.add(selector.source() + ": " + metric + "{" + matcher.label() + "=\"" + value + "\"} (exported: "
                                + exported.labelValues(metric, matcher.label()) + ")");
                    }
                }
            }
        }
        assertThat(OpsFiles.metricNames()).as("metrics named by ops/").hasSizeGreaterThan(15);
        assertThat(missing).as("named by ops/ but not exported by " + APPLICATIONS).isEmpty();
    }

    /**
     * Little log noise: no Kafka client configuration dumps at start-up, and with Kafka stopped for
     * {@link #KAFKA_DOWN} only a handful of WARN/ERROR lines per application (no per-reconnect "Connection to node
     * ... could not be established" flood) from the outage until the recovery, while health and metrics show the
     * state the whole time and the recovery after it, and a change committed during the outage still reaches the
     * caches. (Freshness itself needs heartbeats, which the contract-shaped table of the compose stack only gets
     * from the connector that writes the row of docs/contract.md: its return is checked only where they flow.)
     */
    @Test
    @Order(5)
    void withKafkaStoppedTheLogsStayQuietWhileHealthAndMetricsShowIt() throws Exception {
        SoftAssertions logs = new SoftAssertions();
        for (String application : APPLICATIONS) {
            logs.assertThat(LogLines.of(running.get(application).logFile()).matching(LogLines.KAFKA_CONFIG_DUMP))
                    .as(application + ": Kafka client configuration dumps at start-up").isEmpty();
        }
        Map<String, Long> offsets = new TreeMap<>();
        Map<String, Boolean> freshBefore = new TreeMap<>();
        Map<String, Double> evictionsBefore = new TreeMap<>();
        for (String application : APPLICATIONS) {
            offsets.put(application, Files.size(running.get(application).logFile()));
        }
        for (String client : CLIENTS) {
            freshBefore.put(client, prometheusValue(client, "cdc_client_fresh") == 1.0);
        }
        for (String service : COUPON_CLIENTS) {
            assertThat(get(service, "/coupons/8").path("id").asLong()).isEqualTo(8);
            evictionsBefore.put(service, evictions(service));
        }
        long stoppedAt = System.nanoTime();
        stack.kafka().stop();
        try {
            // a change while Kafka is down keeps the connector's publishing path busy through the outage
            mariaDb.execute("coupon_db", "UPDATE coupon SET name = 'changed while Kafka was down' WHERE id = 8");
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    get("cdc-connector", "/actuator/health", 503).path("components").path("kafka").path("status").asString().equals("DOWN"));
            double lastEvent = prometheusValue("cdc-connector", "cdc_connector_last_event_time_seconds");
            for (String client : CLIENTS) {
                double failures = consumerFailures(client);
                await().atMost(Duration.ofSeconds(30)).until(() -> consumerFailures(client) > failures
                        && cdcHealth(client).path("details").path("problems").size() > 0
                        && prometheusValue(client, "cdc_client_fresh") == 0.0 // after max-staleness if heartbeats flowed
                        && !cdcHealth(client).path("status").asString().equals("UP"));
            }
            long remaining = KAFKA_DOWN.toNanos() - (System.nanoTime() - stoppedAt);
            if (remaining > 0) {
                Thread.sleep(remaining / 1_000_000); // a flood is a matter of time: keep Kafka down for the whole window
            }
            assertThat(prometheusValue("cdc-connector", "cdc_connector_last_event_time_seconds"))
                    .as("the connector acknowledged nothing while Kafka was down").isEqualTo(lastEvent);
        } finally {
            stack.kafka().start();
        }
        await().atMost(Duration.ofSeconds(60)).until(() ->
                get("cdc-connector", "/actuator/health", 503).path("components").path("kafka").path("status").asString().equals("UP"));
        for (String service : COUPON_CLIENTS) {
            // evicted by the change event published after the outage: nothing lost
            await().atMost(Duration.ofSeconds(60)).until(() -> evictions(service) > evictionsBefore.get(service));
            assertThat(get(service, "/coupons/8").path("name").asString()).isEqualTo("changed while Kafka was down");
        }
        for (String client : CLIENTS) {
            await().atMost(Duration.ofSeconds(60)).until(() -> cdcHealth(client).path("details").path("problems").size() == 0);
            if (freshBefore.get(client)) {
                await().atMost(Duration.ofSeconds(60)).until(() -> prometheusValue(client, "cdc_client_fresh") == 1.0);
            }
        }
        for (String application : APPLICATIONS) { // the outage and the recovery
            List<String> warnings = LogLines.of(running.get(application).logFile(), offsets.get(application))
                    .matching(LogLines.WARN_OR_ERROR);
            logs.assertThat(warnings).as(application + ": WARN/ERROR lines from Kafka down for " + KAFKA_DOWN.toSeconds()
                            + " s until recovered").hasSizeLessThanOrEqualTo(MAX_WARNINGS_WHILE_KAFKA_DOWN)
                    .noneMatch(line -> line.contains("could not be established"));
        }
        logs.assertAll();
    }

    private static final List<String> CLIENTS = List.of("coupon-service-1", "coupon-lookup-service", "ticket-orchestrator");
    private static final List<String> COUPON_CLIENTS = List.of("coupon-service-1", "coupon-lookup-service");
    private static final List<String> APPLICATIONS = List.of("cdc-connector", "coupon-service-1", "coupon-lookup-service",
            "ticket-orchestrator");
    private static final Duration KAFKA_DOWN = Duration.ofSeconds(10);
    /** A few lines of our own per episode (Kafka unreachable, and back), not one per reconnect attempt. */
    private static final int MAX_WARNINGS_WHILE_KAFKA_DOWN = 6;

    private static JsonNode cdcHealth(String client) throws IOException, InterruptedException {
        return get(client, "/actuator/health/cdcInvalidation", 503);
    }

    private static double consumerFailures(String client) throws IOException, InterruptedException {
        return scrape(client).value("cdc_client_errors_total", Map.of("reason", "consumer_failure"));
    }

    // --- starting the compose services as local processes -----------------------------------------------

    private static JavaProcess start(String service) {
        Dockerfile dockerfile = Dockerfile.in(compose.buildContext(service));
        JavaProcess.Builder jvm = JavaProcess.builder(service)
                .jar(dockerfile.jar())
                .startupArchive(false) // java -jar, as the image runs it
                .jvmArg("-XX:TieredStopAtLevel=1")
                .logFile(Path.of("target", "compose-it", service + ".log"))
                .args(compose.command(service));
        dockerfile.env().forEach(jvm::env);
        local(service).forEach(jvm::env);
        JavaProcess process = jvm.start();
        synchronized (running) {
            running.put(service, process);
        }
        return process;
    }

    /** The compose environment with the container addresses replaced by the local processes'. */
    private static Map<String, String> local(String service) {
        Map<String, String> env = new LinkedHashMap<>();
        compose.environment(service).forEach((key, value) -> {
            String v = value.replace("mysql:3306", mariaDb.host() + ":" + mariaDb.port())
                    .replace("kafka:9092", stack.kafka().bootstrapServers());
            for (Map.Entry<String, Integer> other : ports.entrySet()) {
                String address = other.getKey() + ":" + compose.environment(other.getKey()).get("SERVER_PORT");
                v = v.replace(address, "127.0.0.1:" + other.getValue());
            }
            switch (key) {
                case "SERVER_PORT" -> v = String.valueOf(ports.get(service));
                case "CDC_CONNECTOR_DATABASE_HOST" -> v = v.equals("mysql") ? mariaDb.host() : v;
                case "CDC_CONNECTOR_DATABASE_PORT" -> v = String.valueOf(mariaDb.port());
                case "CDC_CONNECTOR_DATABASE_FLAVOR" -> v = "mariadb";
                default -> { }
            }
            env.put(key, v);
        });
        return env;
    }

    private static void awaitHealth(JavaProcess process) {
        process.awaitHttpOk(url(process.name(), "/actuator/health"), START);
    }

    private static String url(String service, String path) {
        return "http://127.0.0.1:" + ports.get(service) + path;
    }

    private static JsonNode get(String service, String path) throws IOException, InterruptedException {
        return get(service, path, 200);
    }

    /** GET with 200 or {@code otherStatus} accepted (a health endpoint answers 503 when DOWN, with its JSON). */
    private static JsonNode get(String service, String path, int otherStatus) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(url(service, path))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(service + " " + path + ": " + response.body()).isIn(200, otherStatus);
        return JSON.readTree(response.body());
    }

    /** The Prometheus exposition of a service ({@code /actuator/prometheus}). */
    static PrometheusScrape scrape(String service) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(url(service, "/actuator/prometheus")))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(service + " /actuator/prometheus").isEqualTo(200);
        return PrometheusScrape.parse(response.body());
    }

    /** The value of an untagged-or-single series of a service's Prometheus exposition. */
    private static double prometheusValue(String service, String name) throws IOException, InterruptedException {
        return scrape(service).singleValue(name);
    }

    /** Evictions the invalidation client applied so far (the meter appears with the first one). */
    private static double evictions(String service) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(url(service,
                "/actuator/metrics/cdc.client.evictions"))).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 404) {
            return 0;
        }
        assertThat(response.statusCode()).as(service + ": " + response.body()).isEqualTo(200);
        return JSON.readTree(response.body()).path("measurements").path(0).path("value").asDouble();
    }

    private static boolean waitForHeartbeatRow() throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (System.nanoTime() < deadline) {
            try (Connection c = mariaDb.adminConnection(null); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM cdc_meta.heartbeat")) {
                if (rs.next() && rs.getLong(1) > 0) {
                    return true;
                }
            }
            Thread.sleep(200);
        }
        return false;
    }

    /** The statements of a SQL script: comment lines dropped, split at the semicolons that end lines. */
    static List<String> statements(String script) {
        StringBuilder text = new StringBuilder();
        for (String line : script.split("\n")) {
            if (!line.trim().startsWith("--")) {
                text.append(line).append('\n');
            }
        }
        List<String> statements = new ArrayList<>();
        for (String statement : text.toString().split(";\\s*\n")) {
            if (!statement.isBlank()) {
                statements.add(statement.trim());
            }
        }
        return statements;
    }
}
