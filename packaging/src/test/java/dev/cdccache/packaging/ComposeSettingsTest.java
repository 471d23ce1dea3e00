package dev.cdccache.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.contract.HeartbeatTable;
import dev.cdccache.infra.mariadb.MariaDbServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * infra/docker-compose.yml and the Dockerfiles against the build and the local run, without Docker: what the
 * images copy is what the build produces, every setting names a property its application knows (a misspelled
 * one would be silently ignored, or fail the connector's strict binding at start-up), and ports, topic prefix,
 * captured tables, users and heartbeat table are the local run's.
 */
class ComposeSettingsTest {

    /** Environment variables the JVM or the image reads, not Spring. */
    private static final List<String> NOT_SPRING = List.of("JAVA_TOOL_OPTIONS", "JAVA_OPTS", "TZ");

    /**
     * Command-line switches that are no configuration property: coupon-service's data generator
     * ({@code DataGeneratorCommand} looks for it among the arguments).
     */
    private static final List<String> SWITCHES = List.of("coupon.generate");

    private final ComposeFile compose = ComposeFile.read();
    private final LocalRun localRun = LocalRun.read();

    @Test
    void everyImageCopiesTheRunnableJarTheBuildProduces() throws IOException {
        assertThat(compose.builtServices()).isNotEmpty();
        for (String service : compose.builtServices()) {
            Dockerfile dockerfile = Dockerfile.in(compose.buildContext(service));
            assertThat(dockerfile.args().get("VERSION")).as(dockerfile.file() + " VERSION").isEqualTo(Repository.projectVersion());
            Path jar = dockerfile.jar();
            assertThat(jar).as(service + ": " + dockerfile.file() + " copies a jar the build produces"
                    + " (./mvnw -B package -DskipTests)").isRegularFile();
            try (JarFile file = new JarFile(jar.toFile())) {
                assertThat(file.getManifest().getMainAttributes().getValue("Main-Class"))
                        .as(jar + " is Spring Boot's runnable jar").startsWith("org.springframework.boot.loader");
            }
        }
        assertThat(compose.builtServices().stream().map(s -> compose.buildContext(s).getFileName().toString()).distinct())
                .containsExactlyInAnyOrder("cdc-connector", "coupon-service", "ticket-orchestrator", "coupon-lookup-service");
    }

    @Test
    void everySettingNamesAPropertyItsApplicationKnows() {
        Map<String, List<String>> unknown = new LinkedHashMap<>();
        for (String service : compose.builtServices()) {
            ApplicationJar application = ApplicationJar.read(Dockerfile.in(compose.buildContext(service)).jar());
            List<String> problems = new ArrayList<>();
            compose.environment(service).keySet().stream()
                    .filter(variable -> !NOT_SPRING.contains(variable) && !application.knowsEnvironmentVariable(variable))
                    .forEach(problems::add);
            for (String arg : compose.command(service)) {
                String property = arg.replaceFirst("^--", "").split("=", 2)[0];
                if (!arg.startsWith("--") || !(application.knowsProperty(property) || SWITCHES.contains(property))) {
                    problems.add(arg);
                }
            }
            if (!problems.isEmpty()) {
                unknown.put(service, problems);
            }
        }
        assertThat(unknown).as("settings no property of the service's application matches").isEmpty();
    }

    @Test
    void portsTopicPrefixTablesAndDataAreTheLocalRuns() {
        List<Integer> couponPorts = localRun.ports("COUPON_PORTS");
        assertPublished("coupon-service-1", couponPorts.get(0));
        assertPublished("coupon-service-2", couponPorts.get(1));
        assertPublished("ticket-orchestrator", localRun.port("TICKET_PORT"));
        assertPublished("cdc-connector", localRun.port("CONNECTOR_PORT"));
        assertThat(compose.ports("mysql")).containsEntry(localRun.port("MARIADB_PORT"), 3306);
        assertThat(compose.ports("kafka")).containsKey(localRun.port("KAFKA_PORT"));

        String prefix = localRun.defaultOf("TOPIC_PREFIX");
        Map<String, String> connector = compose.environment("cdc-connector");
        assertThat(connector).containsEntry("CDC_CONNECTOR_TOPIC_PREFIX", prefix);
        assertThat(Arrays.asList(connector.get("CDC_CONNECTOR_TABLES").split(","))).isEqualTo(localRun.connectorTables());
        assertThat(compose.command("coupon-data")).contains("--coupon.generate=" + localRun.couponData());

        String kafka = internalKafkaAddress();
        assertThat(connector).containsEntry("CDC_CONNECTOR_KAFKA_BOOTSTRAP_SERVERS", kafka);
        for (String client : List.of("coupon-service-1", "coupon-service-2", "ticket-orchestrator", "coupon-lookup-service")) {
            assertThat(compose.environment(client)).as(client)
                    .containsEntry("CDC_INVALIDATION_TOPIC_PREFIX", prefix)
                    .containsEntry("CDC_INVALIDATION_BOOTSTRAP_SERVERS", kafka);
        }
        assertThat(compose.environment("coupon-service-1")).containsEntry("COUPON_CACHE_MODE", "local");
        assertThat(compose.environment("ticket-orchestrator"))
                .containsEntry("TICKET_COUPONS_BASE_URL", "http://coupon-service-1:" + couponPorts.get(0));
    }

    @Test
    void theComposeConnectorUserHasExactlyTheGrantsOfTheSetupScript() throws IOException {
        // setup.sql builds each GRANT from its parameters: CONCAT('GRANT <privileges> ON <scope> TO ', @cdc_account),
        // the scope *.*, the captured database (@cdc_db) or the heartbeat table (@cdc_hb). Compose captures two
        // databases (setup.sql run once per database) with the default heartbeat table and RELOAD available. A MariaDB-only
        // privilege sits in a /*M!version ... */ comment that MySQL skips.
        String setup = Files.readString(Repository.setupSql());
        Matcher m = Pattern.compile("CONCAT\\('GRANT ([A-Z ,]+?(?: /\\*M!\\d+ , [A-Z ]+ \\*/)?) ON (\\*\\.\\*|', @(\\w+), '(\\.\\*)?) TO ', @cdc_account\\)")
                .matcher(setup);
        Set<String> expected = new TreeSet<>();
        while (m.find()) {
            String privileges = m.group(1);
            String variable = m.group(3);
            List<String> scopes = variable == null ? List.of("*.*")
                    : "cdc_db".equals(variable) ? List.of("coupon_db.*", "ticket_db.*")
                    : "cdc_hb".equals(variable) ? List.of(MariaDbServer.HEARTBEAT_TABLE)
                    : List.of("unknown variable @" + variable);
            if (privileges.equals("LOCK TABLES")) {
                continue; // only with @cdc_reload=0, where the server grants no RELOAD
            }
            for (String scope : scopes) {
                expected.add("GRANT " + privileges + " ON " + scope + " TO 'cdc_connector'@'%';");
            }
        }
        assertThat(expected).as("the setup script's grants").hasSize(5);
        assertThat(connectorGrants(Files.readString(Repository.mysqlInitSql()))).isEqualTo(expected);
    }

    @Test
    void theSetupScriptTheComposeInitScriptAndTheLocalRunCreateTheContractsHeartbeatTable() throws IOException {
        String contract = columnsOf(HeartbeatTable.createStatement(MariaDbServer.HEARTBEAT_TABLE));
        assertThat(contract).startsWith("(id VARCHAR(190) NOT NULL PRIMARY KEY,");
        String setup = Files.readString(Repository.setupSql()).replaceAll("'\\s*,\\s*'", "");
        assertThat(columnsOf(setup)).as("setup.sql").isEqualTo(contract);
        assertThat(columnsOf(Files.readString(Repository.mysqlInitSql()))).as("the compose init script").isEqualTo(contract);
        assertThat(columnsOf(MariaDbServer.heartbeatTableStatement())).as("the local run").isEqualTo(contract);
    }

    /** The column list of the first CREATE TABLE of the heartbeat table in {@code sql}, whitespace normalised. */
    private static String columnsOf(String sql) {
        Matcher m = Pattern.compile("(?s)CREATE TABLE .*?(\\(\\s*id .*?\\))\\s*(ENGINE|')").matcher(sql);
        assertThat(m.find()).as("a CREATE TABLE of the heartbeat table in " + sql).isTrue();
        return m.group(1).replaceAll("\\s+", " ").replace("( ", "(").replace(" )", ")");
    }

    /** The GRANT statements to 'cdc_connector', whitespace normalised. */
    private static Set<String> connectorGrants(String sql) {
        Set<String> grants = new TreeSet<>();
        Matcher m = Pattern.compile("(?m)^GRANT [^;]+ TO 'cdc_connector'@'%';").matcher(sql);
        while (m.find()) {
            grants.add(m.group().replaceAll("\\s+", " "));
        }
        return grants;
    }

    @Test
    void usersPasswordsAndTheHeartbeatTableAreThoseTheInitScriptCreates() throws IOException {
        String sql = Files.readString(Repository.mysqlInitSql());
        Map<String, String> users = new LinkedHashMap<>();
        Matcher m = Pattern.compile("CREATE USER IF NOT EXISTS '(\\w+)'@'%' IDENTIFIED BY '([^']+)'").matcher(sql);
        while (m.find()) {
            users.put(m.group(1), m.group(2));
        }
        Map<String, String> connector = compose.environment("cdc-connector");
        assertThat(users).containsEntry(connector.get("CDC_CONNECTOR_DATABASE_USER"), connector.get("CDC_CONNECTOR_DATABASE_PASSWORD"));
        assertThat(connector).containsEntry("CDC_CONNECTOR_DATABASE_HOST", "mysql").containsEntry("CDC_CONNECTOR_DATABASE_PORT", "3306");
        for (String app : List.of("coupon-data", "coupon-service-1", "coupon-service-2", "ticket-orchestrator", "coupon-lookup-service")) {
            Map<String, String> env = compose.environment(app);
            assertThat(users).as(app).containsEntry(env.get("SPRING_DATASOURCE_USERNAME"), env.get("SPRING_DATASOURCE_PASSWORD"));
            String database = env.get("SPRING_DATASOURCE_URL").replaceFirst("^jdbc:mariadb://mysql:3306/", "");
            assertThat(env.get("SPRING_DATASOURCE_URL")).as(app).startsWith("jdbc:mariadb://mysql:3306/");
            assertThat(sql).as(app + " may migrate its database")
                    .contains("GRANT ALL PRIVILEGES ON " + database + ".* TO '" + env.get("SPRING_DATASOURCE_USERNAME") + "'@'%'");
        }
        // the connector captures and writes the heartbeat table the script creates; the local run's is the same
        ApplicationJar connectorJar = ApplicationJar.read(Dockerfile.in(compose.buildContext("cdc-connector")).jar());
        String heartbeat = connectorJar.defaultValue("cdc.connector.heartbeat.table");
        assertThat(heartbeat).isEqualTo(MariaDbServer.HEARTBEAT_TABLE);
        assertThat(connector).doesNotContainKey("CDC_CONNECTOR_HEARTBEAT_TABLE");
        assertThat(sql).contains("CREATE TABLE IF NOT EXISTS " + heartbeat + " (")
                .contains("GRANT SELECT, INSERT, UPDATE ON " + heartbeat + " TO '" + connector.get("CDC_CONNECTOR_DATABASE_USER") + "'@'%'");
    }

    private void assertPublished(String service, int port) {
        assertThat(compose.ports(service)).as(service + " publishes the local run's port").containsEntry(port, port);
        assertThat(compose.environment(service)).as(service + " listens on it").containsEntry("SERVER_PORT", String.valueOf(port));
    }

    /** The listener Kafka advertises to the other containers. */
    private String internalKafkaAddress() {
        String advertised = compose.environment("kafka").get("KAFKA_ADVERTISED_LISTENERS");
        String inter = compose.environment("kafka").get("KAFKA_INTER_BROKER_LISTENER_NAME");
        for (String listener : advertised.split(",")) {
            if (listener.startsWith(inter + "://")) {
                return listener.substring(inter.length() + 3);
            }
        }
        throw new AssertionError("Kafka advertises no " + inter + " listener: " + advertised);
    }
}
