package dev.cdccache.connector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.connector.testing.ChangeTopicRecorder;
import dev.cdccache.connector.testing.ChangeTopicRecorder.Change;
import dev.cdccache.connector.testing.InProcessConnector;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.connector.ConnectorProcess;
import dev.cdccache.infra.junit.LocalStackExtension;
import dev.cdccache.infra.mariadb.MariaDbServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two connectors side by side on one database (docs/connector.md, "Several connectors on one database"): different
 * tables, the same topic prefix and heartbeat table. One runs in this JVM, the other as the runnable jar in a
 * process of its own, as two deployments would. Each has its own row (id = its name), epoch and covered tables,
 * each record carries its own connector's header, and neither republishes the other's heartbeat row (which a
 * client would reject: the header would not match the row's id).
 */
@ExtendWith(LocalStackExtension.class)
class SeveralConnectorsIT {

    private static final String DB = "several_db";
    private static final String PREFIX = "sev";
    private static final String ORDERS = "sev-orders";
    private static final String STOCK = "sev-stock";
    private static final String BEAT_TOPIC = PREFIX + "." + MariaDbServer.HEARTBEAT_TABLE;
    private static final Duration WAIT = Duration.ofSeconds(60);

    private static LocalStack stack;
    private static InProcessConnector orders;
    private static ConnectorProcess stock;
    private static ChangeTopicRecorder recorder;
    private static long started;

    @BeforeAll
    static void start(LocalStack localStack) {
        started = System.nanoTime();
        stack = localStack;
        stack.mariaDb().createDatabase(DB);
        stack.mariaDb().execute(DB, "CREATE TABLE orders (id BIGINT PRIMARY KEY, total INT)",
                "CREATE TABLE stock (sku VARCHAR(32) PRIMARY KEY, quantity INT)");
        stock = ConnectorProcess.builder(ExecJar.path(), stack).name(STOCK).topicPrefix(PREFIX).tables(List.of(DB + ".stock"))
                .logFile(Path.of("target", "several-connectors-stock.log")).build().start();
        orders = InProcessConnector.start(InProcessConnector.settings(stack, ORDERS, PREFIX, List.of(DB + ".orders")));
        recorder = new ChangeTopicRecorder(stack.kafka().bootstrapServers(),
                List.of(PREFIX + "." + DB + ".orders", PREFIX + "." + DB + ".stock", BEAT_TOPIC));
    }

    @AfterAll
    static void stop() {
        if (recorder != null) {
            recorder.close();
        }
        if (orders != null) {
            orders.close();
        }
        if (stock != null) {
            stock.close();
        }
        System.out.printf("SeveralConnectorsIT: %d ms in all%n", (System.nanoTime() - started) / 1_000_000);
    }

    @Test
    void eachConnectorPublishesItsOwnHeartbeatRowEpochTablesAndHeaderAndNotTheOthers() {
        recorder.await(BEAT_TOPIC, c -> row(c, ORDERS), 2, WAIT);
        recorder.await(BEAT_TOPIC, c -> row(c, STOCK), 2, WAIT);
        // rows written after both connectors stream: each has captured the other's writes too, and dropped them
        recorder.awaitCaughtUp(WAIT);

        List<Change> beats = recorder.changes(BEAT_TOPIC).stream().filter(c -> c.value() != null).toList();
        assertThat(beats).allSatisfy(c -> assertThat(c.headers().get("cdc-connector"))
                .as("header of the row of %s", c.value().path("after").path("id").asString())
                .isEqualTo(c.value().path("after").path("id").asString()));
        Map<String, Set<String>> tables = beats.stream().collect(Collectors.groupingBy(c -> c.value().path("after").path("id").asString(),
                Collectors.mapping(c -> c.value().path("after").path("tables").asString(), Collectors.toSet())));
        assertThat(tables).containsEntry(ORDERS, Set.of("several_db.orders")).containsEntry(STOCK, Set.of("several_db.stock"));
        Map<String, Set<String>> epochs = beats.stream().collect(Collectors.groupingBy(c -> c.value().path("after").path("id").asString(),
                Collectors.mapping(c -> c.value().path("after").path("epoch").asString(), Collectors.toSet())));
        assertThat(epochs.get(ORDERS)).hasSize(1);
        assertThat(epochs.get(STOCK)).hasSize(1);
        assertThat(epochs.get(ORDERS)).doesNotContainAnyElementsOf(epochs.get(STOCK));
    }

    @Test
    void changesArePublishedOnceByTheConnectorThatCapturesTheirTableWithItsHeader() {
        stack.mariaDb().execute(DB, "INSERT INTO orders VALUES (1, 100)", "INSERT INTO stock VALUES ('sku-1', 5)");

        Change order = recorder.await(PREFIX + "." + DB + ".orders", c -> c.value() != null, 1, WAIT).get(0);
        Change item = recorder.await(PREFIX + "." + DB + ".stock", c -> c.value() != null, 1, WAIT).get(0);
        recorder.awaitCaughtUp(WAIT);

        assertThat(order.headers()).containsEntry("cdc-connector", ORDERS);
        assertThat(item.headers()).containsEntry("cdc-connector", STOCK);
        assertThat(recorder.changes(PREFIX + "." + DB + ".orders")).hasSize(1);
        assertThat(recorder.changes(PREFIX + "." + DB + ".stock")).hasSize(1);
    }

    private static boolean row(Change c, String id) {
        return c.value() != null && id.equals(c.value().path("after").path("id").asString());
    }
}
