package dev.cdccache.connector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.cdccache.connector.continuity.Continuity;
import dev.cdccache.connector.continuity.ContinuityState;
import dev.cdccache.connector.heartbeat.HeartbeatWriter;
import dev.cdccache.connector.startup.StartupCheckException;
import dev.cdccache.connector.testing.InProcessConnector;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.junit.LocalStackExtension;
import dev.cdccache.infra.mariadb.MariaDbServer;
import dev.cdccache.infra.process.JavaProcess;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The usual mistakes stop the connector at start-up with a message that says what to fix. */
@ExtendWith(LocalStackExtension.class)
class StartupErrorsIT {

    private static final String DB = "errors_db";

    private static Map<String, String> settings(LocalStack stack, String name) {
        stack.mariaDb().createDatabase(DB);
        stack.mariaDb().execute(DB, "CREATE TABLE IF NOT EXISTS present (id INT PRIMARY KEY)");
        return new java.util.LinkedHashMap<>(InProcessConnector.settings(stack, name, name, List.of(DB + ".present")));
    }

    private static StartupCheckException startupFailure(Map<String, String> settings) {
        Throwable failure = catchThrowable(() -> InProcessConnector.run(settings).close());
        assertThat(failure).as("start-up must fail").isNotNull();
        Throwable cause = failure;
        while (cause != null && !(cause instanceof StartupCheckException)) {
            cause = cause.getCause();
        }
        assertThat(cause).as("a StartupCheckException in %s", failure).isInstanceOf(StartupCheckException.class);
        return (StartupCheckException) cause;
    }

    /** Runs the exec jar with {@code settings}, expects exit code 1 within a minute, returns the end of its log. */
    private static String logOfRunnableJarExitingWithOne(String name, Map<String, String> settings, Path dir) {
        JavaProcess.Builder builder = JavaProcess.builder(name)
                .jar(ExecJar.path()).logFile(dir.resolve("connector.log")).jvmArg("-XX:TieredStopAtLevel=1");
        settings.forEach((k, v) -> builder.arg("--" + k + "=" + v));
        JavaProcess process = builder.start();
        assertThat(process.waitFor(Duration.ofSeconds(60))).isEqualTo(1);
        return process.tail(60);
    }

    @Test
    void aColumnProjectionLeavingOutThePrimaryKeyFailsNamingTheColumn(LocalStack stack) {
        Map<String, String> settings = settings(stack, "projection-without-key");
        stack.mariaDb().execute(DB, "CREATE TABLE IF NOT EXISTS projected (id INT PRIMARY KEY, code VARCHAR(32), note VARCHAR(32))");
        settings.put("cdc.connector.tables[1]", DB + ".projected");
        settings.put("cdc.connector.columns.include[0]", DB + ".projected.code");

        StartupCheckException failure = startupFailure(settings);
        assertThat(failure.getMessage()).contains("cdc.connector.columns.include leaves the key column(s) errors_db.projected.id"
                + " (primary key) out of the events");
        assertThat(failure.fix()).contains("Add these columns to cdc.connector.columns.include");
    }

    @Test
    void wrongPasswordFailsNamingTheSettings(LocalStack stack) {
        Map<String, String> settings = settings(stack, "wrong-password");
        settings.put("cdc.connector.database.password", "not-the-password");

        StartupCheckException failure = startupFailure(settings);
        assertThat(failure.getMessage()).contains("refused user 'cdc_connector'").contains("access denied");
        assertThat(failure.fix()).contains("cdc.connector.database.password");
        assertThat(failure.getMessage() + failure.fix()).doesNotContain("not-the-password");
    }

    @Test
    void unknownTableInTheCaptureListFailsNamingTheTable(LocalStack stack) {
        Map<String, String> settings = settings(stack, "unknown-table");
        settings.put("cdc.connector.tables[1]", DB + ".missing_table");

        StartupCheckException failure = startupFailure(settings);
        assertThat(failure.getMessage()).contains("Unknown table(s) in cdc.connector.tables: errors_db.missing_table");
        assertThat(failure.getMessage()).doesNotContain("errors_db.present");
    }

    @Test
    void missingReplicationPrivilegesFailWithTheGrantToRun(LocalStack stack) {
        Map<String, String> settings = settings(stack, "no-privileges");
        stack.mariaDb().execute(null, "CREATE USER IF NOT EXISTS 'plain_reader'@'%' IDENTIFIED BY 'reader-pw'",
                "GRANT SELECT ON errors_db.* TO 'plain_reader'@'%'");
        settings.put("cdc.connector.database.user", "plain_reader");
        settings.put("cdc.connector.database.password", "reader-pw");

        StartupCheckException failure = startupFailure(settings);
        assertThat(failure.getMessage()).contains("lacks privileges").contains("REPLICATION SLAVE ON *.*")
                .contains("REPLICATION CLIENT ON *.*").contains("INSERT ON cdc_meta.heartbeat");
        assertThat(failure.fix()).contains("cdc-connector/sql/setup.sql").contains("GRANT REPLICATION SLAVE, REPLICATION CLIENT");
    }

    @Test
    void heartbeatTableOfTheFormerShapeFailsWithTheMigration(LocalStack stack) {
        Map<String, String> settings = settings(stack, "legacy-heartbeat");
        stack.mariaDb().createDatabase("legacy_meta");
        stack.mariaDb().execute("legacy_meta",
                "CREATE TABLE IF NOT EXISTS heartbeat (id TINYINT NOT NULL PRIMARY KEY, ts DATETIME(6) NOT NULL)",
                "GRANT INSERT, UPDATE ON legacy_meta.heartbeat TO '" + stack.mariaDb().connectorUser() + "'@'%'");
        settings.put("cdc.connector.heartbeat.table", "legacy_meta.heartbeat");

        StartupCheckException failure = startupFailure(settings);
        assertThat(failure.getMessage()).contains("heartbeat table legacy_meta.heartbeat").contains("former shape")
                .contains("one row per connector");
        assertThat(failure.fix()).contains("ALTER TABLE legacy_meta.heartbeat MODIFY id VARCHAR(190)")
                .contains("CREATE TABLE legacy_meta.heartbeat (id VARCHAR(190) NOT NULL PRIMARY KEY");
    }

    @Test
    void binlogOffFailsWithHowToEnableIt(LocalStack stack, @TempDir Path dir) {
        Map<String, String> settings = settings(stack, "binlog-off");
        try (MariaDbServer noBinlog = MariaDbServer.builder(dir.resolve("no-binlog")).binlog(false).build().start()) {
            settings.put("cdc.connector.database.port", Integer.toString(noBinlog.port()));
            settings.put("cdc.connector.database.user", noBinlog.connectorUser());
            settings.put("cdc.connector.database.password", noBinlog.connectorPassword());

            StartupCheckException failure = startupFailure(settings);
            assertThat(failure.getMessage()).contains("binary log is off").contains("log_bin=OFF");
            assertThat(failure.fix()).contains("log-bin").contains("binlog_format=ROW");
        }
    }

    /**
     * A binlog-ignore-db that leaves a captured table out of the binlog. The server restarted with it while the
     * connector streams: the connector writes no more heartbeat rows (each would prove the table's changes published)
     * after one with a new epoch; restarted without it, rows resume under one more epoch (the server's own tables are
     * right); started with it in place, the connector fails naming the table.
     */
    @Test
    void aBinlogIgnoreDbThatLeavesACapturedTableOutHoldsHeartbeatsBackWhileStreamingAndFailsTheNextStart(
            LocalStack stack, @TempDir Path dir) throws Exception {
        String name = "binlog-ignore-db";
        Map<String, String> settings = settings(stack, name);
        Path serverDir = dir.resolve(name);
        MariaDbServer server = MariaDbServer.builder(serverDir).build().start();
        try {
            server.createDatabase(DB);
            server.execute(DB, "CREATE TABLE IF NOT EXISTS present (id INT PRIMARY KEY)");
            settings.put("cdc.connector.database.port", Integer.toString(server.port()));
            settings.put("cdc.connector.database.user", server.connectorUser());
            settings.put("cdc.connector.database.password", server.connectorPassword());
            settings.put("cdc.connector.heartbeat.interval", "200ms");
            try (InProcessConnector connector = InProcessConnector.start(settings)) {
                ContinuityState state = connector.context().getBean(ContinuityState.class);
                String before = state.current().orElseThrow().epoch();
                server.stop();
                server = MariaDbServer.builder(serverDir).port(server.port()).setting("binlog-ignore-db=" + DB).build()
                        .start();
                await("the hold").atMost(Duration.ofSeconds(60)).until(() ->
                        state.current().orElseThrow().verdict() == Continuity.Verdict.FILTERED_FROM_BINLOG);
                String held = state.current().orElseThrow().epoch();
                assertThat(held).isNotEqualTo(before);
                assertThat(connector.context().getBean(HeartbeatWriter.class).heldBecause()).hasValueSatisfying(why ->
                        assertThat(why).contains(DB + ".present (ignore-db names " + DB + ")"));
                // the row carries the hold's epoch (a start would not resume the epoch before), and is written no more
                String[] row = heartbeatRow(server, name);
                assertThat(row[0]).isEqualTo(held);
                Thread.sleep(2_000); // 10 heartbeat intervals
                assertThat(heartbeatRow(server, name)).as("the heartbeat row after 2 s on hold").containsExactly(row);

                // restarted without it: the server's own tables are right, so rows resume under one more epoch
                server.stop();
                server = MariaDbServer.builder(serverDir).port(server.port()).build().start();
                await("the end of the hold").atMost(Duration.ofSeconds(60)).until(() ->
                        state.current().orElseThrow().verdict() == Continuity.Verdict.FILTER_REMOVED);
                String after = state.current().orElseThrow().epoch();
                assertThat(after).isNotIn(before, held);
                MariaDbServer resumed = server;
                await("rows again, with that epoch").atMost(Duration.ofSeconds(30))
                        .until(() -> heartbeatRow(resumed, name)[0].equals(after) && advances(resumed, name));
                assertThat(connector.context().getBean(HeartbeatWriter.class).heldBecause()).isEmpty();
            }
            server.stop();
            server = MariaDbServer.builder(serverDir).port(server.port()).setting("binlog-ignore-db=" + DB).build()
                    .start();

            StartupCheckException failure = startupFailure(settings);
            assertThat(failure.getMessage()).contains("leave captured table(s) out of the binlog")
                    .contains(DB + ".present (ignore-db names " + DB + ")").contains("call them fresh");
            assertThat(failure.fix()).contains("binlog-ignore-db");
        } finally {
            server.close();
        }
    }

    /** Whether the connector's heartbeat row is written again within a second (five heartbeat intervals). */
    private static boolean advances(MariaDbServer server, String connector) throws Exception {
        String[] first = heartbeatRow(server, connector);
        Thread.sleep(1_000);
        return !heartbeatRow(server, connector)[1].equals(first[1]);
    }

    /** The epoch and time of a connector's heartbeat row. */
    private static String[] heartbeatRow(MariaDbServer server, String connector) throws SQLException {
        try (Connection c = server.adminConnection(null); PreparedStatement s = c.prepareStatement(
                "SELECT epoch, ts FROM " + MariaDbServer.HEARTBEAT_TABLE + " WHERE id = ?")) {
            s.setString(1, connector);
            try (ResultSet rs = s.executeQuery()) {
                assertThat(rs.next()).as("the heartbeat row of %s", connector).isTrue();
                return new String[] {rs.getString(1), rs.getString(2)};
            }
        }
    }

    @Test
    void runnableJarExitsNonZeroPrintingProblemAndFix(LocalStack stack, @TempDir Path dir) {
        Map<String, String> settings = settings(stack, "exit-code");
        settings.put("cdc.connector.database.password", "not-the-password");

        String log = logOfRunnableJarExitingWithOne("connector-wrong-password", settings, dir);
        assertThat(log).contains("CDC connector cannot start: The database at").contains("access denied")
                .contains("Action:").contains("cdc.connector.database.password")
                .doesNotContain("not-the-password");
    }

    @Test
    void maskingAKeyColumnFailsNamingTheSettingAndTheColumn(LocalStack stack) {
        Map<String, String> settings = settings(stack, "masked-key");
        settings.put("cdc.connector.debezium.column.mask.with.8.chars", DB + "\\.present\\..*");

        StartupCheckException failure = startupFailure(settings);
        assertThat(failure.getMessage()).contains("cdc.connector.debezium.column.mask.with.8.chars masks the key column(s) "
                + DB + ".present.id (primary key)");
        assertThat(failure.fix()).contains("Take the key columns out of these settings");
    }

    @Test
    void maskingAUniqueKeyColumnFailsNamingTheUniqueKey(LocalStack stack) {
        stack.mariaDb().execute(DB, "CREATE TABLE IF NOT EXISTS member (id INT PRIMARY KEY, email VARCHAR(100) NOT NULL,"
                + " nickname VARCHAR(40), CONSTRAINT member_email UNIQUE (email))");
        Map<String, String> settings = settings(stack, "masked-unique");
        settings.put("cdc.connector.tables[1]", DB + ".member");
        settings.put("cdc.connector.columns.mask[0]", DB + ".member.email");

        StartupCheckException failure = startupFailure(settings);
        assertThat(failure.getMessage()).contains("cdc.connector.columns.mask masks the key column(s) " + DB
                + ".member.email (unique key member_email)");
    }

    @Test
    void theKafkaConnectExportChecksAMaskAgainstTheDatabasesKeyColumnsToo(LocalStack stack) {
        Map<String, String> settings = settings(stack, "export-masked-key");
        settings.put("cdc.connector.export-connect-config", "true");
        settings.put("cdc.connector.columns.mask[0]", DB + ".present.id");

        StartupCheckException failure = startupFailure(settings);
        assertThat(failure.getMessage()).contains("cdc.connector.columns.mask masks the key column(s) " + DB + ".present.id (primary key)");
    }

    @Test
    void theKafkaConnectExportRefusesToCoalesceLargeTransactions(LocalStack stack) {
        Map<String, String> settings = settings(stack, "export-large-transactions");
        settings.put("cdc.connector.export-connect-config", "true");
        settings.put("cdc.connector.large-transactions.evict-table-after-rows", "5000");

        StartupCheckException failure = startupFailure(settings);
        assertThat(failure.getMessage()).contains("The Kafka Connect export cannot coalesce large transactions");
        assertThat(failure.fix()).contains("Remove cdc.connector.large-transactions.evict-table-after-rows");
    }

    @Test
    void aThresholdThatIsNotANumberOfRowsFailsStartUpNamingTheSetting(LocalStack stack) {
        Map<String, String> settings = settings(stack, "large-transactions-typo");
        settings.put("cdc.connector.large-transactions.evict-table-after-rows", "10k");

        Throwable failure = catchThrowable(() -> InProcessConnector.run(settings).close());

        assertThat(failure).isNotNull();
        assertThat(org.assertj.core.util.Throwables.getStackTrace(failure))
                .contains("cdc.connector.large-transactions.evict-table-after-rows").contains("10k");
    }

    @Test
    void runnableJarRefusesAnOverrideThatBreaksTheContractBeforeConnecting(LocalStack stack, @TempDir Path dir) {
        Map<String, String> settings = settings(stack, "skipped-truncate");
        settings.put("cdc.connector.debezium.skipped.operations", "t");

        String log = logOfRunnableJarExitingWithOne("connector-skipped-operations", settings, dir);
        assertThat(log).contains("CDC connector cannot start: Debezium overrides that would break the event contract:"
                        + " cdc.connector.debezium.skipped.operations (the event contract publishes every operation")
                .contains("Action:").contains("Remove them").doesNotContain("Debezium engine started");
    }

    @Test
    void aCompactedChangeTopicFailsStartUpWithHowToFixIt(LocalStack stack) throws Exception {
        Map<String, String> settings = settings(stack, "compacted");
        String topic = "compacted." + DB + ".present";
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka().bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)
                    .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT)))).all().get();
        }

        StartupCheckException failure = startupFailure(settings);
        assertThat(failure.getMessage()).contains("Change topic(s) " + topic + " (cleanup.policy=compact) are compacted");
        assertThat(failure.fix()).contains("--entity-name <topic> --add-config cleanup.policy=delete");
    }

    @Test
    void unknownSettingFailsStartUpNamingTheSetting(LocalStack stack) {
        Map<String, String> settings = settings(stack, "typo");
        settings.put("cdc.connector.topic-partitons", "6");

        Throwable failure = catchThrowable(() -> InProcessConnector.run(settings).close());

        assertThat(failure).isNotNull();
        assertThat(org.assertj.core.util.Throwables.getRootCause(failure))
                .hasMessageContaining("cdc.connector.topic-partitons");
    }
}
