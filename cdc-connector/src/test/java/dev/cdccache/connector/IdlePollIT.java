package dev.cdccache.connector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.connector.testing.ChangeTopicRecorder;
import dev.cdccache.connector.testing.ChangeTopicRecorder.Change;
import dev.cdccache.connector.testing.InProcessConnector;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.junit.LocalStackExtension;
import dev.cdccache.infra.mariadb.MariaDbServer;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The default {@code poll-interval} (1 s) only paces an idle engine: a change committed while the engine's poll waits
 * on an empty queue is published at once, not when the wait is over. Real MariaDB binlog, Debezium engine and Kafka
 * broker; heartbeats off, so that nothing but the change ends the wait.
 */
@ExtendWith(LocalStackExtension.class)
class IdlePollIT {

    private static final String DB = "idle_poll_db";
    private static final String TOPIC = "idle." + DB + ".item";

    private static MariaDbServer db;
    private static InProcessConnector connector;
    private static ChangeTopicRecorder recorder;

    @BeforeAll
    static void startConnector(LocalStack stack) {
        db = stack.mariaDb();
        db.createDatabase(DB);
        db.execute(DB, "CREATE TABLE item (id BIGINT PRIMARY KEY, version INT NOT NULL)",
                "INSERT INTO item VALUES (1, 0)");
        Map<String, String> settings = InProcessConnector.settings(stack, "idle-poll-it", "idle", List.of(DB + ".item"));
        settings.put("cdc.connector.heartbeat.interval", "0"); // poll-interval left at its default
        connector = InProcessConnector.start(settings);
        recorder = new ChangeTopicRecorder(stack.kafka().bootstrapServers(), List.of(TOPIC));
    }

    @AfterAll
    static void stopConnector() {
        if (recorder != null) {
            recorder.close();
        }
        if (connector != null) {
            connector.close();
        }
    }

    @Test
    void aChangeOnAnIdleConnectorIsPublishedWithoutWaitingForTheEmptyPollToEnd() throws Exception {
        assertThat(connector.context().getEnvironment().getProperty("cdc.connector.poll-interval")).isNull();
        List<Long> millis = new ArrayList<>();
        try (Connection connection = db.adminConnection(DB); Statement statement = connection.createStatement()) {
            connection.setAutoCommit(true);
            for (int version = 1; version <= 8; version++) {
                // 1.37 s apart: the changes land at different points of the engine's 1 s empty-poll wait
                Thread.sleep(1_370);
                long committed = System.nanoTime();
                statement.executeUpdate("UPDATE item SET version = " + version + " WHERE id = 1");
                int expected = version;
                Change change = recorder.await(TOPIC, c -> c.value() != null
                        && c.value().path("after").path("version").asInt() == expected, 1, Duration.ofSeconds(30)).get(0);
                millis.add((change.receivedNanos() - committed) / 1_000_000);
            }
        }

        // A queue that held changes until its 1 s poll is over would give a median of about 500 ms.
        List<Long> sorted = millis.stream().sorted().toList();
        assertThat(sorted.get(sorted.size() / 2)).as("median ms from commit to the consumer of %s", millis)
                .isLessThan(200);
    }
}
