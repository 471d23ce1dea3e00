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
        CompletableFuture<Void> tickets = CompletableFuture.runAsync(() -> awaitHealth(start("ticket-orchestrator")));
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
        // /work/CONTRACT.md, "Heartbeat row: one per connector"
        assertThat(columns).containsExactlyInAnyOrderEntriesOf(Map.of(
                "id", "varchar(190) NO PRI", "ts", "datetime(6) NO ", "epoch", "varchar(64) NO ", "tables", "text NO "));

        boolean written = waitForHeartbeatRow();
        if (!written && Files.readString(running.get("cdc-connector").logFile()).contains("'epoch'")) {
            Assumptions.abort("this connector writes the former heartbeat row (id, ts) and the database refuses it"
                    + " without epoch and tables: heartbeats start with the connector that writes CONTRACT.md's row");
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
        Set<String> paths = Set.of("user", "datadir", "port", "bind-address", "socket", "pid-file", "init-file");
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

    // --- starting the compose services as local processes -----------------------------------------------

    private static JavaProcess start(String service) {
        Dockerfile dockerfile = Dockerfile.in(compose.buildContext(service));
        JavaProcess.Builder jvm = JavaProcess.builder(service)
                .jar(dockerfile.jar())
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
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(url(service, path))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(service + " " + path + ": " + response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
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
