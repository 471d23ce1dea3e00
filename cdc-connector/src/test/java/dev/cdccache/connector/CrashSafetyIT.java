package dev.cdccache.connector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdccache.connector.testing.ChangeTopicRecorder;
import dev.cdccache.connector.testing.ChangeTopicRecorder.Change;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.connector.ConnectorProcess;
import dev.cdccache.infra.junit.LocalStackExtension;
import dev.cdccache.infra.mariadb.MariaDbServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * At-least-once across a crash: the connector runs as its own process, a writer keeps committing,
 * the connector is killed with SIGKILL (no shutdown hook, no offset flush) and restarted; every
 * change committed before, during and after the outage must be in Kafka.
 */
@ExtendWith(LocalStackExtension.class)
class CrashSafetyIT {

    private static final String DB = "crash_db";

    /** Commits rows and bumps their version until stopped; remembers every committed (id, version). */
    private static final class Writer implements Runnable {
        final Set<String> committed = ConcurrentHashMap.newKeySet();
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final MariaDbServer db;

        Writer(MariaDbServer db) {
            this.db = db;
        }

        @Override
        public void run() {
            try (Connection connection = db.adminConnection(DB);
                    PreparedStatement insert = connection.prepareStatement(
                            "INSERT INTO ledger (version) VALUES (1)", Statement.RETURN_GENERATED_KEYS);
                    PreparedStatement update = connection.prepareStatement("UPDATE ledger SET version = ? WHERE id = ?")) {
                connection.setAutoCommit(true);
                long lastId = 0;
                int n = 0;
                while (running.get()) {
                    insert.executeUpdate();
                    try (ResultSet keys = insert.getGeneratedKeys()) {
                        keys.next();
                        lastId = keys.getLong(1);
                    }
                    committed.add(lastId + ":1");
                    if (++n % 3 == 0) {
                        update.setInt(1, 2);
                        update.setLong(2, lastId);
                        update.executeUpdate();
                        committed.add(lastId + ":2");
                    }
                    Thread.sleep(2);
                }
            } catch (Throwable e) {
                failure.set(e);
            }
        }
    }

    @Test
    void everyChangeCommittedAroundAKillReachesKafka(LocalStack stack) throws Exception {
        MariaDbServer db = stack.mariaDb();
        db.createDatabase(DB);
        db.execute(DB, "CREATE TABLE ledger (id BIGINT AUTO_INCREMENT PRIMARY KEY, version INT NOT NULL)");
        ConnectorProcess connector = ConnectorProcess.builder(ExecJar.path(), stack)
                .tables(List.of(DB + ".ledger"))
                .topicPrefix("crash")
                .name("crash-it")
                .build()
                .start();
        Writer writer = new Writer(db);
        Thread writerThread = new Thread(writer, "ledger-writer");
        try (ChangeTopicRecorder recorder = new ChangeTopicRecorder(stack.kafka().bootstrapServers(),
                List.of("crash." + DB + ".ledger"))) {
            writerThread.start();
            // let changes flow and offsets be stored, then crash in the middle of the stream
            await().atMost(Duration.ofSeconds(30)).until(() -> recorder.changes().size() >= 300);
            connector.kill();
            int committedAtKill = writer.committed.size();
            // the writer goes on while the connector is down
            await().atMost(Duration.ofSeconds(30)).until(() -> writer.committed.size() >= committedAtKill + 300);
            connector.restart();
            int committedAtRestart = writer.committed.size();
            await().atMost(Duration.ofSeconds(30)).until(() -> writer.committed.size() >= committedAtRestart + 300);
            writer.running.set(false);
            writerThread.join(10_000);
            assertThat(writer.failure.get()).isNull();

            Set<String> committed = Set.copyOf(writer.committed);
            await().atMost(Duration.ofSeconds(60)).until(() -> consumed(recorder).containsAll(committed));
            Set<String> missing = new HashSet<>(committed);
            missing.removeAll(consumed(recorder));
            assertThat(missing).as("committed changes missing from Kafka").isEmpty();
            assertThat(committed.size()).isGreaterThan(900);
            assertThat(java.nio.file.Files.readString(connector.logFile()))
                    .as("the database password never appears in the connector's log")
                    .doesNotContain(db.connectorPassword());
        } finally {
            writer.running.set(false);
            connector.stop();
        }
    }

    private static Set<String> consumed(ChangeTopicRecorder recorder) {
        Set<String> pairs = new HashSet<>();
        for (Change change : recorder.changes()) {
            if (change.value() != null && !change.value().path("after").isNull()) {
                pairs.add(change.value().path("after").path("id").asLong() + ":" + change.value().path("after").path("version").asInt());
            }
        }
        return pairs;
    }
}
