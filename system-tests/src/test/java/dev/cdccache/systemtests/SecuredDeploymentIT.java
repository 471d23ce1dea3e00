package dev.cdccache.systemtests;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import dev.cdccache.contract.KafkaSecurity;
import dev.cdccache.infra.DataDirectories;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.connector.ConnectorProcess;
import dev.cdccache.infra.kafka.KafkaBroker;
import dev.cdccache.infra.mariadb.MariaDbServer;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Production security settings, end to end with real processes: a Kafka broker that requires SASL/SCRAM
 * over TLS, the connector process connecting to MariaDB as the least-privilege user created from
 * {@code cdc-connector/sql/setup.sql}, its secrets from the environment and a configtree file, a table
 * configured to send only its key column, and an invalidation client over SCRAM/TLS. One stack for the class.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SecuredDeploymentIT {

    private static final String DB = "secured_db";
    private static final String PREFIX = "sec";
    private static final String DB_USER = "secured_connector";
    private static final Duration CONVERGE = Duration.ofSeconds(30);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    // Random secrets: a test that finds one in a log cannot pass by accident.
    private static final String DB_PASSWORD = "db-" + UUID.randomUUID();
    private static final String ADMIN_KAFKA_PASSWORD = "admin-" + UUID.randomUUID();
    private static final String CONNECTOR_KAFKA_PASSWORD = "connector-" + UUID.randomUUID();
    private static final String CLIENT_KAFKA_PASSWORD = "client-" + UUID.randomUUID();

    private static final AtomicLong ids = new AtomicLong(5_000);
    private static final ListAppender<ILoggingEvent> clientLog = new ListAppender<>();

    private static Path dir;
    private static MariaDbServer mariaDb;
    private static KafkaBroker kafka;
    private static ConnectorProcess connector;
    private static InvalidationClient client;

    @BeforeAll
    static void startSecuredStack() throws Exception {
        clientLog.start();
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(clientLog);
        dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "secured-it-");
        for (String name : List.of("secured-it", "secured-it-wrong")) {
            Files.deleteIfExists(Path.of("target", "connector-" + name + ".log")); // the scans read this run only
        }
        LocalStack stack = LocalStack.shared();
        mariaDb = stack.mariaDb();
        mariaDb.createDatabase(DB);
        mariaDb.execute(DB,
                "CREATE TABLE IF NOT EXISTS item (id BIGINT PRIMARY KEY, code VARCHAR(32) NOT NULL, price DECIMAL(10,2) NOT NULL)",
                "CREATE TABLE IF NOT EXISTS person (id BIGINT PRIMARY KEY, email VARCHAR(128) NOT NULL, "
                        + "full_name VARCHAR(128) NOT NULL)");
        createConnectorUserFromTheRepositoryScript();

        kafka = KafkaBroker.builder(dir.resolve("kafka"))
                .scram("SCRAM-SHA-512", "admin", ADMIN_KAFKA_PASSWORD)
                .scram("SCRAM-SHA-512", "cdc-connector", CONNECTOR_KAFKA_PASSWORD)
                .scram("SCRAM-SHA-512", "coupon-service", CLIENT_KAFKA_PASSWORD)
                .tls(true)
                .heap("384m")
                .build()
                .start();

        // The trust store password comes from a file, the way Kubernetes mounts secrets (Spring's configtree).
        Path secrets = Files.createDirectories(dir.resolve("secrets"));
        Files.writeString(secrets.resolve("cdc.connector.kafka.security.ssl.truststore-password"), kafka.truststorePassword());
        connector = connector("secured-it", CONNECTOR_KAFKA_PASSWORD, secrets).start();

        client = new InvalidationClient(clientConfig(CLIENT_KAFKA_PASSWORD).build());
        client.start();
        assertThat(client.awaitReady(Duration.ofSeconds(30))).as("client ready over SCRAM/TLS").isTrue();
        // Topics appear with the first change; wait until the client reads them and the heartbeat.
        long id = ids.incrementAndGet();
        insertItem(id, "warmup-" + id);
        insertPerson(id, "warmup");
        await().atMost(Duration.ofSeconds(60)).until(() -> client.status().fresh());
    }

    @AfterAll
    static void stopSecuredStack() {
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(clientLog);
        if (client != null) {
            client.close();
        }
        if (connector != null) {
            connector.stop();
        }
        if (kafka != null) {
            kafka.close();
        }
        if (dir != null) {
            DataDirectories.delete(dir);
        }
    }

    private static ConnectorProcess.Builder connectorBuilder(String name, String kafkaPassword, Path secrets) {
        return ConnectorProcess.builder(ConnectorJar.path(), LocalStack.shared())
                .kafka(kafka)
                .name(name)
                .topicPrefix(PREFIX)
                .tables(List.of(DB + ".item", DB + ".person"))
                .logFile(Path.of("target", "connector-" + name + ".log").toAbsolutePath())
                .property("cdc.connector.database.user", DB_USER)
                .env("CDC_CONNECTOR_DATABASE_PASSWORD", DB_PASSWORD)
                .property("cdc.connector.kafka.security.protocol", "SASL_SSL")
                .property("cdc.connector.kafka.security.sasl.mechanism", "SCRAM-SHA-512")
                .property("cdc.connector.kafka.security.sasl.username", "cdc-connector")
                .env("CDC_CONNECTOR_KAFKA_SECURITY_SASL_PASSWORD", kafkaPassword)
                .property("cdc.connector.kafka.security.ssl.truststore-location", kafka.truststore().toString())
                .property("cdc.connector.kafka.security.ssl.truststore-type", "PKCS12")
                .property("spring.config.import", "configtree:" + secrets + "/")
                // person may carry personal data: only its key column travels.
                .property("cdc.connector.columns.include[0]", DB + ".person.id")
                // An operator who turns every value on: the secrets must still be masked.
                .property("management.endpoints.web.exposure.include", "health,env,configprops")
                .property("management.endpoint.env.show-values", "always")
                .property("management.endpoint.configprops.show-values", "always");
    }

    private static ConnectorProcess connector(String name, String kafkaPassword, Path secrets) {
        return connectorBuilder(name, kafkaPassword, secrets).build();
    }

    private static InvalidationClientConfig.Builder clientConfig(String kafkaPassword) {
        return InvalidationClientConfig.builder()
                .bootstrapServers(kafka.bootstrapServers())
                .topicPrefix(PREFIX)
                .maxStaleness(Duration.ofSeconds(3))
                .clientId("secured-it")
                .kafkaSecurity(KafkaSecurity.builder()
                        .protocol(KafkaSecurity.Protocol.SASL_SSL)
                        .sasl(KafkaSecurity.Mechanism.SCRAM_SHA_512, "coupon-service", kafkaPassword)
                        .truststore(kafka.truststore(), kafka.truststorePassword(), "PKCS12")
                        .build())
                .cache(CacheDefinition.builder("items").table(DB + ".item").keyColumns("id").build())
                .cache(CacheDefinition.builder("people").table(DB + ".person").keyColumns("id").build());
    }

    /** The setup script users run, with the test's user, password and database as its parameters. */
    private static void createConnectorUserFromTheRepositoryScript() throws IOException {
        // A fresh user each run: a stale password from an earlier run must not linger.
        mariaDb.execute(null, "DROP USER IF EXISTS '" + DB_USER + "'@'%'");
        mariaDb.runScript(repositoryFile("cdc-connector/sql/setup.sql"), "--init-command=SET @cdc_database='" + DB
                + "', @cdc_user='" + DB_USER + "', @cdc_password='" + DB_PASSWORD + "'");
    }

    private static Path repositoryFile(String path) {
        for (Path at = Path.of("").toAbsolutePath(); at != null; at = at.getParent()) {
            if (Files.isRegularFile(at.resolve(path))) {
                return at.resolve(path);
            }
        }
        throw new IllegalStateException(path + " not found above " + Path.of("").toAbsolutePath());
    }

    private static void insertItem(long id, String code) {
        mariaDb.execute(DB, "INSERT INTO item (id, code, price) VALUES (" + id + ", '" + code + "', 1.00)");
    }

    private static void insertPerson(long id, String name) {
        mariaDb.execute(DB, "INSERT INTO person (id, email, full_name) VALUES (" + id + ", '" + name
                + "@example.com', '" + name + "')");
    }

    private static String query(String sql, Object key) {
        try (Connection c = mariaDb.adminConnection(DB); var ps = c.prepareStatement(sql)) {
            ps.setObject(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Caches {@code key}, changes the row with {@code update}, and waits until the client serves the new value. */
    private static void assertEvictedOnChange(String cache, long key, String select, String update) {
        InvalidatingCache<Long, String> c = client.cache(cache);
        Function<Long, String> loader = k -> query(select, k);
        await().atMost(CONVERGE).until(() -> {
            c.get(key, loader);
            return c.lookup(key) != null; // a load racing the row's own insert event is (rightly) not kept
        });
        String before = query(select, key);
        mariaDb.execute(DB, update);
        String after = query(select, key);
        assertThat(after).isNotEqualTo(before);
        await().atMost(CONVERGE).until(() -> c.caffeine().getIfPresent(key) == null);
        assertThat(c.get(key, loader)).isEqualTo(after);
    }

    @Test
    @Order(1)
    void connectorAndClientWorkOverScramAndTls() {
        long id = ids.incrementAndGet();
        insertItem(id, "scram-" + id);
        assertEvictedOnChange("items", id, "SELECT price FROM item WHERE id = ?",
                "UPDATE item SET price = 2.50 WHERE id = " + id);
        assertThat(client.status().fresh()).isTrue();
    }

    @Test
    @Order(2)
    void keyOnlyTableNeverSendsItsOtherColumnsAndStillEvictsByKey() throws Exception {
        long id = ids.incrementAndGet();
        insertPerson(id, "ada");
        assertEvictedOnChange("people", id, "SELECT email FROM person WHERE id = ?",
                "UPDATE person SET email = 'ada.lovelace@example.com', full_name = 'Ada Lovelace' WHERE id = " + id);
        insertItem(id, "per-table-" + id);
        mariaDb.execute(DB, "UPDATE item SET price = 3.00 WHERE id = " + id);

        List<JsonNode> people = read(PREFIX + "." + DB + ".person", id, 2);
        assertThat(people).extracting(e -> e.get("op").asString()).containsExactly("c", "u");
        for (JsonNode event : people) {
            for (String side : List.of("before", "after")) {
                JsonNode row = event.get(side);
                if (!row.isNull()) {
                    assertThat(fieldNames(row)).as("%s of %s", side, event).containsExactly("id");
                }
            }
            assertThat(event.toString()).doesNotContain("ada").doesNotContain("Lovelace").doesNotContain("example.com");
        }
        // The list is per table: item, not named in it, keeps every column.
        List<JsonNode> items = read(PREFIX + "." + DB + ".item", id, 2);
        assertThat(fieldNames(items.get(1).get("after"))).containsExactlyInAnyOrder("id", "code", "price");
        assertThat(fieldNames(items.get(1).get("before"))).containsExactlyInAnyOrder("id", "code", "price");
    }

    @Test
    @Order(3)
    void connectorRunsWithExactlyTheGrantsOfTheScript() throws SQLException {
        Set<String> grants = new TreeSet<>();
        Pattern line = Pattern.compile("^GRANT (.+?) ON (\\S+) TO .*$");
        try (Connection c = mariaDb.adminConnection(null); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW GRANTS FOR '" + DB_USER + "'@'%'")) {
            while (rs.next()) {
                Matcher m = line.matcher(rs.getString(1));
                assertThat(m.matches()).as(rs.getString(1)).isTrue();
                for (String privilege : m.group(1).split(",")) {
                    grants.add(privilege.trim() + " ON " + m.group(2).replace("`", ""));
                }
            }
        }
        // Exactly the script's privileges, nothing granted elsewhere (MariaDB shows REPLICATION CLIENT as BINLOG MONITOR,
        // and reads SLAVE MONITOR from the script's MariaDB-only comment).
        assertThat(grants).containsExactlyInAnyOrder("REPLICATION SLAVE ON *.*", "BINLOG MONITOR ON *.*", "SLAVE MONITOR ON *.*",
                "RELOAD ON *.*", "SHOW DATABASES ON *.*", "SELECT ON " + DB + ".*",
                "SELECT ON cdc_meta.heartbeat", "INSERT ON cdc_meta.heartbeat", "UPDATE ON cdc_meta.heartbeat");
        assertThat(connector.isAlive()).isTrue();
    }

    @Test
    @Order(4)
    void actuatorMasksEverySecretEvenWithShowValuesAlways() throws Exception {
        for (String endpoint : List.of("env", "configprops")) {
            String body = get("http://127.0.0.1:" + connector.port() + "/actuator/" + endpoint);
            assertThat(body).as("values are shown (show-values=always)").contains("cdc-connector");
            assertThat(body).as(endpoint).contains("******");
            assertNoSecretIn(endpoint, body);
        }
    }

    @Test
    @Order(5)
    void wrongConnectorCredentialsStopStartUpWithAClearError() throws IOException {
        String wrong = "wrong-" + UUID.randomUUID();
        ConnectorProcess refused = connector("secured-it-wrong", wrong, dir.resolve("secrets"));
        assertThatThrownBy(refused::start).hasMessageContaining("exited with code 1");
        String log = Files.readString(refused.logFile());
        assertThat(log).contains("refused the connector's credentials").contains("cdc.connector.kafka.security.sasl.username");
        assertThat(log).doesNotContain(wrong);
    }

    @Test
    @Order(6)
    void wrongClientCredentialsLeaveTheClientVisiblyNotFresh() {
        String wrong = "wrong-" + UUID.randomUUID();
        try (InvalidationClient refused = new InvalidationClient(clientConfig(wrong).clientId("secured-it-wrong").build())) {
            refused.start();
            assertThat(refused.awaitReady(Duration.ofSeconds(5))).isFalse();
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(refused.status().problem())
                    .contains("Authentication failed"));
            assertThat(refused.status().fresh()).isFalse();
            await().atMost(Duration.ofSeconds(5)).until(() -> clientLogText().contains("check kafka.security"));
            assertThat(clientLogText()).doesNotContain(wrong);
        }
    }

    @Test
    @Order(7)
    void noSecretAppearsInTheLogsOfTheConnectorOrTheClient() throws IOException {
        String connectorLog = Files.readString(connector.logFile());
        assertThat(connectorLog).as("the scan reads the real log").contains("Started").contains(DB_USER);
        assertNoSecretIn("connector log", connectorLog);
        assertThat(connectorLog).as("the schema history reader's noise is quiet by default")
                .doesNotContain("Not updating high watermark");
        String clientLogText = clientLogText();
        assertThat(clientLogText).as("the scan reads the client's log").contains("secured-it");
        assertNoSecretIn("client log", clientLogText);
    }

    private static void assertNoSecretIn(String where, String text) {
        for (String secret : List.of(DB_PASSWORD, CONNECTOR_KAFKA_PASSWORD, CLIENT_KAFKA_PASSWORD, ADMIN_KAFKA_PASSWORD,
                kafka.truststorePassword())) {
            assertThat(text).as("%s must not contain a secret", where).doesNotContain(secret);
        }
    }

    private static String clientLogText() {
        StringBuilder text = new StringBuilder();
        for (ILoggingEvent event : List.copyOf(clientLog.list)) {
            text.append(event.getFormattedMessage()).append('\n');
            if (event.getThrowableProxy() != null) {
                text.append(ThrowableProxyUtil.asString(event.getThrowableProxy())).append('\n');
            }
        }
        return text.toString();
    }

    private static String get(String url) throws IOException, InterruptedException {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(url).isEqualTo(200);
        return response.body();
    }

    private static List<String> fieldNames(JsonNode row) {
        return new ArrayList<>(row.propertyNames());
    }

    /** The first {@code count} change events of row {@code id} on {@code topic}, read by a real SCRAM consumer. */
    private static List<JsonNode> read(String topic, long id, int count) {
        Map<String, Object> props = new HashMap<>(kafka.adminClientProperties());
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        List<JsonNode> events = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(10)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            await().atMost(CONVERGE).until(() -> {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    JsonNode value = record.value() == null ? null : JSON.readTree(record.value());
                    if (value != null && JSON.readTree(record.key()).get("id").asLong() == id) {
                        events.add(value);
                    }
                }
                return events.size() >= count;
            });
        }
        return events;
    }
}
