package dev.cdccache.connector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.cdccache.connector.check.ConnectorCheckCommand;
import dev.cdccache.connector.continuity.Continuity;
import dev.cdccache.connector.continuity.ContinuityHealthIndicator;
import dev.cdccache.connector.continuity.ContinuityState;
import dev.cdccache.connector.heartbeat.HeartbeatWriter;
import dev.cdccache.connector.startup.StartupCheckException;
import dev.cdccache.connector.testing.ChangeTopicRecorder;
import dev.cdccache.connector.testing.ChangeTopicRecorder.Change;
import dev.cdccache.connector.testing.InProcessConnector;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.junit.LocalStackExtension;
import dev.cdccache.infra.mariadb.MariaDbServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.health.contributor.Status;

/**
 * The connector reading a read replica (docs/connector.md, "Reading a replica"), with real processes: the shared
 * stack's MariaDB is the primary, a second {@code mariadbd} replicates from it with {@code MASTER_DELAY}, and the
 * connector reads the replica's binlog.
 *
 * <p>The guarantee: a heartbeat published with {@code ts = H} proves that every change committed before {@code H}
 * has been published. Written on the replica, the row would be committed there ahead of the primary's changes that
 * are still held back by the delay; written on the primary, it replicates in commit order behind them.
 */
@ExtendWith(LocalStackExtension.class)
class ReplicaHeartbeatIT {

    private static final String DB = "replica_beat_db";
    private static final String PREFIX = "rbeat";
    private static final String DATA_TOPIC = PREFIX + "." + DB + ".item";
    private static final String BEAT_TOPIC = PREFIX + "." + MariaDbServer.HEARTBEAT_TABLE;
    private static final Duration DELAY = Duration.ofSeconds(3);
    private static final Duration CONVERGE = Duration.ofSeconds(60);

    private static MariaDbServer primary;
    private static MariaDbServer replica;

    @BeforeAll
    static void startReplica(LocalStack stack) {
        primary = stack.mariaDb();
        replica = MariaDbServer.builder(Path.of("target", "replica-heartbeat-" + ProcessHandle.current().pid()))
                .serverId(2).build().start();
        replica.replicateFrom(primary, Duration.ZERO);
        primary.createDatabase(DB);
        primary.execute(DB, "CREATE TABLE IF NOT EXISTS item (id BIGINT PRIMARY KEY, version INT NOT NULL)",
                "INSERT INTO item VALUES (1, 0) ON DUPLICATE KEY UPDATE version = 0");
        replica.awaitReplicated(primary, CONVERGE);
        replica.replicationDelay(DELAY);
        // "reached the topic" is the broker's append time: a consumer reading two topics may receive a later
        // record of one before an earlier record of the other, while a client that applied a heartbeat checks
        // the log end of its topics, which the earlier record is already below
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                stack.kafka().bootstrapServers()))) {
            Map<String, String> appendTime = Map.of(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "LogAppendTime",
                    TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE);
            admin.createTopics(List.of(new NewTopic(DATA_TOPIC, 3, (short) 1).configs(appendTime),
                    new NewTopic(BEAT_TOPIC, 3, (short) 1).configs(appendTime))).all().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("could not create the topics with LogAppendTime", e);
        }
    }

    @AfterAll
    static void stopReplica() {
        if (replica != null) {
            replica.close();
        }
    }

    /** A connector on the replica, as the replica's connector user. */
    private static Map<String, String> onReplica(LocalStack stack, String name) {
        return onReplica(stack, name, DB + ".item");
    }

    /** A connector on the replica capturing {@code table}, as the replica's connector user. */
    private static Map<String, String> onReplica(LocalStack stack, String name, String table) {
        Map<String, String> settings = new LinkedHashMap<>(InProcessConnector.settings(stack, name, PREFIX,
                List.of(table)));
        settings.put("cdc.connector.database.host", replica.host());
        settings.put("cdc.connector.database.port", Integer.toString(replica.port()));
        return settings;
    }

    /** Adds the heartbeat primary (the shared stack's MariaDB), as its connector user, and a 200 ms heartbeat. */
    private static Map<String, String> withPrimary(Map<String, String> settings) {
        settings.put("cdc.connector.heartbeat.primary.host", primary.host());
        settings.put("cdc.connector.heartbeat.primary.port", Integer.toString(primary.port()));
        settings.put("cdc.connector.heartbeat.primary.user", primary.connectorUser());
        settings.put("cdc.connector.heartbeat.primary.password", primary.connectorPassword());
        settings.put("cdc.connector.heartbeat.interval", "200ms");
        return settings;
    }

    /** What {@code cdc-connector check --no-probe} prints for these settings. */
    private static String check(Map<String, String> settings) {
        try {
            Path config = Files.createTempFile("replica-check", ".yml");
            Files.writeString(config, "cdc:\n  connector: {}\n");
            List<String> args = new ArrayList<>(List.of("check", "--config", config.toString(), "--no-probe"));
            settings.forEach((key, value) -> args.add("--" + key + "=" + value));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ConnectorCheckCommand.run(args.toArray(String[]::new),
                    new PrintStream(out, true, StandardCharsets.UTF_8));
            Files.delete(config);
            String printed = out.toString(StandardCharsets.UTF_8);
            System.out.println(printed);
            return printed;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
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

    @Test
    void aConnectorOnAReplicaWithoutItsPrimaryRefusesToStartNamingTheSettingAndWhy(LocalStack stack) {
        StartupCheckException failure = startupFailure(onReplica(stack, "replica-without-primary"));

        assertThat(failure.getMessage()).contains(replica.host() + ":" + replica.port() + " is a replica")
                .contains("cdc.connector.heartbeat.primary.host is not set")
                .contains("replication lag");
        assertThat(failure.fix()).contains("cdc.connector.heartbeat.primary.host");
    }

    @Test
    void aReplicationFilterThatSkipsACapturedTableIsRefusedNamingTheFilter(LocalStack stack) {
        // the replica would apply no change of the item table while the primary's heartbeats replicate on
        Map<String, String> settings = withPrimary(onReplica(stack, "replica-filtered"));
        assertThat(check(settings)).as("check before the filter").contains("[ok  ] replica          a replica of");
        replica.execute(null, "STOP SLAVE", "SET GLOBAL replicate_wild_ignore_table = '" + DB + ".it%'", "START SLAVE");
        try {
            StartupCheckException failure = startupFailure(settings);

            assertThat(failure.getMessage()).contains(replica.host() + ":" + replica.port() + " does not apply every change")
                    .contains(DB + ".item (wild-ignore-table " + DB + ".it% matches it)")
                    .contains("call them fresh");
            assertThat(failure.fix()).contains("STOP SLAVE", "<variable> = '<its list without the rule>'", "START SLAVE",
                    "replicate_wild_ignore_table");
            assertThat(check(settings)).contains("[FAIL] replica", DB + ".item (wild-ignore-table " + DB + ".it%");
        } finally {
            replica.execute(null, "STOP SLAVE", "SET GLOBAL replicate_wild_ignore_table = ''", "START SLAVE");
        }
    }

    @Test
    void aPrimarySettingThatNamesAReplicaIsRefused(LocalStack stack) {
        Map<String, String> settings = onReplica(stack, "primary-is-a-replica");
        settings.put("cdc.connector.heartbeat.primary.host", replica.host());
        settings.put("cdc.connector.heartbeat.primary.port", Integer.toString(replica.port()));

        StartupCheckException failure = startupFailure(settings);

        assertThat(failure.getMessage()).contains("cdc.connector.heartbeat.primary " + replica.host() + ":"
                + replica.port() + " is itself a replica");
    }

    @Test
    void aPrimarySettingOnAConnectorThatReadsThePrimaryIsRefused(LocalStack stack) {
        Map<String, String> settings = new LinkedHashMap<>(InProcessConnector.settings(stack, "primary-on-primary", PREFIX,
                List.of(DB + ".item")));
        settings.put("cdc.connector.heartbeat.primary.host", replica.host());
        settings.put("cdc.connector.heartbeat.primary.port", Integer.toString(replica.port()));

        StartupCheckException failure = startupFailure(settings);

        assertThat(failure.getMessage()).contains("is not a replica");
    }

    @Test
    void aConnectorUserThatMayNotReadTheReplicationStatusIsRefusedNamingTheGrant(LocalStack stack) {
        primary.execute(null, "CREATE USER IF NOT EXISTS 'no_monitor'@'%' IDENTIFIED BY 'no-monitor-pw'",
                "GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'no_monitor'@'%'",
                "GRANT SELECT, INSERT, UPDATE ON " + MariaDbServer.HEARTBEAT_TABLE + " TO 'no_monitor'@'%'");
        Map<String, String> settings = new LinkedHashMap<>(InProcessConnector.settings(stack, "no-monitor", PREFIX,
                List.of(DB + ".item")));
        settings.put("cdc.connector.database.user", "no_monitor");
        settings.put("cdc.connector.database.password", "no-monitor-pw");

        StartupCheckException failure = startupFailure(settings);

        assertThat(failure.getMessage()).contains("cannot tell whether").contains("is a replica");
        assertThat(failure.fix()).contains("GRANT SLAVE MONITOR ON *.*");
    }

    @Test
    void theSetupScriptGrantsSlaveMonitorOnMariaDb() throws Exception {
        replica.execute(null, "CREATE DATABASE IF NOT EXISTS script_db");
        replica.runScript(Path.of("sql", "setup.sql"),
                "--init-command=SET @cdc_database='script_db', @cdc_user='script_user', @cdc_password='script-pw'");
        try (Connection c = replica.adminConnection(null); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW GRANTS FOR 'script_user'@'%'")) {
            StringBuilder grants = new StringBuilder();
            while (rs.next()) {
                grants.append(rs.getString(1)).append('\n');
            }
            assertThat(grants.toString()).contains("SLAVE MONITOR").contains("REPLICATION SLAVE");
        }
    }

    /**
     * Commit a change on the primary; {@code t} is the primary's clock read after the commit returned. Every heartbeat
     * of this connector that reached its topic (the broker's append time) before the change's record must be dated
     * before {@code t}: a later one would prove to clients that the change was published when it was not. The
     * replica applies each change {@code DELAY} after the primary committed it, so a heartbeat written on the replica
     * breaks this by seconds.
     */
    @Test
    void aHeartbeatNeverProvesATimeAfterAPrimaryCommitThatIsNotPublishedYet(LocalStack stack) throws Exception {
        String name = "replica-beat-" + ProcessHandle.current().pid();
        Map<String, String> settings = withPrimary(onReplica(stack, name));

        List<long[]> commits = new ArrayList<>(); // version, primary time after its commit (µs since the epoch)
        try (InProcessConnector connector = InProcessConnector.start(settings);
                ChangeTopicRecorder recorder = new ChangeTopicRecorder(stack.kafka().bootstrapServers(),
                        List.of(DATA_TOPIC, BEAT_TOPIC));
                Connection writer = primary.adminConnection(DB); Statement statement = writer.createStatement()) {
            // the first heartbeats, written on the primary, arrive through the delayed replica
            recorder.await(BEAT_TOPIC, c -> isOwnHeartbeat(c, name), 1, CONVERGE);
            int base = (int) (System.currentTimeMillis() % 1_000_000) * 10;
            for (int i = 1; i <= 8; i++) {
                statement.executeUpdate("UPDATE item SET version = " + (base + i) + " WHERE id = 1");
                try (ResultSet rs = statement.executeQuery("SELECT UNIX_TIMESTAMP(NOW(6))")) {
                    rs.next();
                    commits.add(new long[] {base + i, rs.getBigDecimal(1).movePointRight(6).longValueExact()});
                }
                Thread.sleep(400);
            }
            long lastVersion = base + 8;
            recorder.await(DATA_TOPIC, c -> version(c) == lastVersion, 1, CONVERGE);
            // heartbeats dated after the last commit: the heartbeat stream went on past every change
            recorder.await(BEAT_TOPIC, c -> isOwnHeartbeat(c, name) && beatMicros(c) > commits.get(7)[1], 1, CONVERGE);

            List<Change> all = recorder.changes();
            List<Change> beats = all.stream().filter(c -> c.topic().equals(BEAT_TOPIC) && isOwnHeartbeat(c, name)).toList();
            assertThat(beats).as("heartbeats of this connector").hasSizeGreaterThan(8);
            List<String> violations = new ArrayList<>();
            for (long[] commit : commits) {
                Change change = all.stream().filter(c -> c.topic().equals(DATA_TOPIC) && version(c) == commit[0])
                        .findFirst().orElseThrow(() -> new AssertionError("version " + commit[0] + " not published"));
                for (Change beat : beats) {
                    // appended in an earlier millisecond: before the change for sure (the same millisecond counts as after)
                    if (beat.timestamp() < change.timestamp() && beatMicros(beat) >= commit[1]) {
                        violations.add("heartbeat dated " + beatMicros(beat) + " µs reached its topic "
                                + (change.timestamp() - beat.timestamp()) + " ms before version "
                                + commit[0] + ", committed on the primary before " + commit[1] + " µs");
                    }
                }
            }
            assertThat(violations).as("heartbeats that proved a primary commit published before it was").isEmpty();
        }
    }

    /**
     * A replication filter set on the replica while the connector runs: the replica stops applying the item table's
     * changes while the primary's heartbeat rows replicate on and would prove them published. The connector must write
     * no heartbeat row while the filter is in place, start an epoch clients drop their caches for, say so in health,
     * and a start after the filter was removed must not resume an epoch of the stopped process, not even one renewed
     * during the hold (for a schema change of another captured table) and recorded with the offsets: the replica never
     * applied what the filter skipped, so a start is refused until the stored offsets are deleted (after a re-sync).
     * Removed while the connector runs, rows stay held for the same reason.
     */
    @Test
    void aReplicationFilterSetWhileTheConnectorRunsHoldsHeartbeatsBackAndEndsTheEpoch(LocalStack stack) throws Exception {
        String name = "replica-filter-live-" + ProcessHandle.current().pid();
        replica.replicationDelay(Duration.ZERO); // the filter acts as the replica applies; no delay keeps that prompt
        replica.awaitReplicated(primary, CONVERGE);
        primary.execute(DB, "CREATE TABLE IF NOT EXISTS renewed_item (id BIGINT PRIMARY KEY, version INT NOT NULL)");
        replica.awaitReplicated(primary, CONVERGE);
        Map<String, String> settings = withPrimary(onReplica(stack, name));
        settings.put("cdc.connector.tables[1]", DB + ".renewed_item"); // not filtered: its schema change renews
        try (ChangeTopicRecorder recorder = new ChangeTopicRecorder(stack.kafka().bootstrapServers(),
                List.of(DATA_TOPIC, BEAT_TOPIC))) {
            String before;
            String renewedDuringHold;
            try (InProcessConnector connector = InProcessConnector.start(settings)) {
                before = verdictOf(connector).epoch();
                recorder.await(BEAT_TOPIC, c -> isOwnHeartbeat(c, name) && before.equals(epoch(c)), 1, CONVERGE);
                String held = filterAndAwaitHold(connector, recorder, name, before);
                assertThat(held).isNotEqualTo(before);
                // a renewal while held: written to the row (clients drop their entries for it), never resumed
                primary.execute(DB, "ALTER TABLE renewed_item COMMENT = 'during the hold " + System.nanoTime() + "'");
                await("the renewal during the hold").atMost(CONVERGE).until(() -> verdictOf(connector).verdict()
                        == Continuity.Verdict.SCHEMA_CHANGE_OF_CAPTURED_TABLE);
                renewedDuringHold = verdictOf(connector).epoch();
                await("the renewal in the primary's row").atMost(CONVERGE)
                        .until(() -> renewedDuringHold.equals(epochOnPrimary(name)));
                assertThat(connector.context().getBean(HeartbeatWriter.class).heldBecause()).isPresent();
            } finally {
                setFilter("");
            }
            // stopped while held, the filter removed: the replica never applied what it skipped, so no start goes on
            // from there until the offsets are deleted (after a re-sync, which this test's replica does not need:
            // the filtered change below is applied on the replica by hand)
            StartupCheckException refused = startupFailure(settings);
            assertThat(refused.getMessage()).contains("kept changes of captured tables from being applied on the replica");
            assertThat(refused.fix()).contains("Re-sync the replica's captured tables",
                    "--delete --topic " + name + ".offsets", "sql_log_bin = 0");
            assertThat(check(settings)).contains("[FAIL] offsets", "Re-sync the replica's captured tables");
            resyncItemRow();
            deleteStoredOffsets(stack, name);
            assertThat(check(settings)).contains("[ok  ] offsets          none stored yet");
            try (InProcessConnector connector = InProcessConnector.start(settings)) {
                Continuity started = verdictOf(connector);
                assertThat(started.verdict()).isEqualTo(Continuity.Verdict.OFFSETS_LOST);
                assertThat(started.epoch()).isNotIn(before, renewedDuringHold);

                // removed while the connector runs: the replica never applied what the filter skipped, so rows
                // stay held until a restart (after a re-sync of the replica)
                String held;
                try {
                    held = filterAndAwaitHold(connector, recorder, name, started.epoch());
                } finally {
                    setFilter("");
                }
                HeartbeatWriter writer = connector.context().getBean(HeartbeatWriter.class);
                await("the hold that outlasts the filter").atMost(CONVERGE).until(() ->
                        writer.heldBecause().orElse("").contains("re-sync the replica's captured tables"));
                assertThat(writer.heldBecause().orElseThrow()).startsWith("The filter that left captured tables out"
                        + " is gone, but " + replica.host() + ":" + replica.port() + " did not apply");
                long removed = System.currentTimeMillis();
                Thread.sleep(2_000); // 10 heartbeat intervals
                assertThat(verdictOf(connector).verdict()).isEqualTo(Continuity.Verdict.FILTERED_FROM_BINLOG);
                assertThat(verdictOf(connector).epoch()).isEqualTo(held);
                assertThat(connector.context().getBean(ContinuityHealthIndicator.class).health().getStatus())
                        .isEqualTo(Status.DOWN);
                assertThat(recorder.changes()).as("heartbeats after the filter was removed")
                        .noneMatch(c -> c.topic().equals(BEAT_TOPIC) && isOwnHeartbeat(c, name)
                                && beatMicros(c) >= removed * 1000);
            }
        } finally {
            replica.replicationDelay(DELAY);
        }
    }

    /**
     * Sets a filter that skips the item table on the replica, awaits the connector's hold, then commits an item change
     * the replica filters out and checks that no heartbeat dated after it is published.
     *
     * @return the epoch of the hold
     */
    private static String filterAndAwaitHold(InProcessConnector connector, ChangeTopicRecorder recorder, String name,
            String running) throws Exception {
        setFilter(DB + ".it%");
        await("the hold").atMost(CONVERGE)
                .until(() -> verdictOf(connector).verdict() == Continuity.Verdict.FILTERED_FROM_BINLOG);
        String held = verdictOf(connector).epoch();
        assertThat(held).isNotEqualTo(running);
        assertThat(connector.context().getBean(HeartbeatWriter.class).heldBecause()).hasValueSatisfying(why ->
                assertThat(why).contains(DB + ".item (wild-ignore-table " + DB + ".it% matches it)"));
        assertThat(connector.context().getBean(ContinuityHealthIndicator.class).health().getStatus())
                .isEqualTo(Status.DOWN);
        // the hold's epoch reaches clients: they drop their entries of the item table
        recorder.await(BEAT_TOPIC, c -> isOwnHeartbeat(c, name) && held.equals(epoch(c)), 1, CONVERGE);

        long version = System.nanoTime() % 1_000_000_000L;
        long committed;
        try (Connection writer = primary.adminConnection(DB); Statement statement = writer.createStatement()) {
            statement.executeUpdate("UPDATE item SET version = " + version + " WHERE id = 1");
            try (ResultSet rs = statement.executeQuery("SELECT UNIX_TIMESTAMP(NOW(6))")) {
                rs.next();
                committed = rs.getBigDecimal(1).movePointRight(6).longValueExact();
            }
        }
        Thread.sleep(3_000); // 15 heartbeat intervals
        assertThat(recorder.changes()).as("heartbeats that prove the filtered change published")
                .noneMatch(c -> c.topic().equals(BEAT_TOPIC) && isOwnHeartbeat(c, name) && beatMicros(c) >= committed);
        assertThat(recorder.changes()).as("the filtered change never reaches the replica's binlog")
                .noneMatch(c -> c.topic().equals(DATA_TOPIC) && version(c) == version);
        return held;
    }

    /** Applies the primary's item row to the replica by hand, as a re-sync would (the filter skipped its change). */
    private static void resyncItemRow() throws Exception {
        long version;
        try (Connection c = primary.adminConnection(DB); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT version FROM item WHERE id = 1")) {
            rs.next();
            version = rs.getLong(1);
        }
        // on the replica only, outside replication: not logged, so no binlog event reaches anyone
        replica.execute(DB, "SET SESSION sql_log_bin = 0", "UPDATE item SET version = " + version + " WHERE id = 1");
    }

    /** Deletes a connector's offsets topic, as an operator would. */
    private static void deleteStoredOffsets(LocalStack stack, String name) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                stack.kafka().bootstrapServers()))) {
            admin.deleteTopics(List.of(name + ".offsets")).all().get(30, TimeUnit.SECONDS);
            await("the offsets topic gone").atMost(CONVERGE)
                    .until(() -> !admin.listTopics().names().get().contains(name + ".offsets"));
        }
    }

    private static void setFilter(String wildIgnoreTable) {
        replica.execute(null, "STOP SLAVE", "SET GLOBAL replicate_wild_ignore_table = '" + wildIgnoreTable + "'",
                "START SLAVE");
    }

    private static String epoch(Change change) {
        return change.value() == null ? null : change.value().path("after").path("epoch").asString();
    }

    /**
     * A renewal of the epoch while streaming (here for a schema change of a captured table) is written to the heartbeat
     * row on the primary. A failover to a server the row's latest write had not reached yet loses it, while the stored
     * offsets are past the change already: the next start must not resume the epoch before the renewal, or clients
     * that never saw the renewal would keep what the change made stale, under an epoch that says nothing happened.
     */
    @Test
    void aRenewalTheHeartbeatPrimaryLosesInAFailoverIsNotResumedFrom(LocalStack stack) throws Exception {
        String name = "replica-renewal-" + ProcessHandle.current().pid();
        primary.execute(DB, "CREATE TABLE IF NOT EXISTS renewed_item (id BIGINT PRIMARY KEY, version INT NOT NULL)");
        replica.replicationDelay(Duration.ZERO); // the delay matters to the heartbeat order only, not here
        try {
            renewalsAcrossAFailover(stack, name);
        } finally {
            replica.replicationDelay(DELAY);
        }
    }

    private static void renewalsAcrossAFailover(LocalStack stack, String name) throws Exception {
        replica.awaitReplicated(primary, CONVERGE);
        Map<String, String> settings = withPrimary(onReplica(stack, name, DB + ".renewed_item"));

        String[] first = new String[1];
        String renewed = renewForASchemaChange(stack, settings, name, epoch -> first[0] = epoch);

        // the primary fails over to a server its row's latest writes had not reached: the row shows the epoch before
        primary.execute(null, "UPDATE " + MariaDbServer.HEARTBEAT_TABLE + " SET epoch = '" + first[0] + "' WHERE id = '"
                + name + "'");
        String afterFailover;
        try (InProcessConnector connector = InProcessConnector.start(settings)) {
            Continuity started = verdictOf(connector);
            assertThat(started.verdict()).isEqualTo(Continuity.Verdict.EPOCH_UNKNOWN);
            assertThat(started.epoch()).isNotIn(first[0], renewed);
            assertThat(started.message()).contains("failed over");
            afterFailover = started.epoch();
        }

        // without a failover, a restart resumes a renewed epoch: clients dropped their caches for the change once
        String renewedAgain = renewForASchemaChange(stack, settings, name,
                epoch -> assertThat(epoch).isEqualTo(afterFailover));
        try (InProcessConnector connector = InProcessConnector.start(settings)) {
            Continuity restarted = verdictOf(connector);
            assertThat(restarted.verdict()).isEqualTo(Continuity.Verdict.RESUMED);
            assertThat(restarted.epoch()).isEqualTo(renewedAgain);
        }
    }

    /**
     * Runs the connector until a schema change of its table has renewed the epoch in the primary's row and a change
     * behind it is published, then stops it: the offsets it stores are past the change.
     *
     * @param started given the epoch the connector started with
     * @return the renewed epoch
     */
    private static String renewForASchemaChange(LocalStack stack, Map<String, String> settings, String name,
            Consumer<String> started) throws Exception {
        String table = "renewed_item";
        String topic = PREFIX + "." + DB + "." + table;
        try (InProcessConnector connector = InProcessConnector.start(settings);
                ChangeTopicRecorder recorder = new ChangeTopicRecorder(stack.kafka().bootstrapServers(),
                        List.of(topic))) {
            String epoch = verdictOf(connector).epoch();
            started.accept(epoch);
            primary.execute(DB, "ALTER TABLE " + table + " COMMENT = 'reloaded " + System.nanoTime() + "'");
            await("the renewal in the primary's row").atMost(CONVERGE).until(() -> !epoch.equals(epochOnPrimary(name)));
            assertThat(verdictOf(connector).verdict()).isEqualTo(Continuity.Verdict.SCHEMA_CHANGE_OF_CAPTURED_TABLE);
            long id = System.nanoTime();
            primary.execute(DB, "INSERT INTO " + table + " VALUES (" + id + ", 1)");
            recorder.await(topic, c -> c.value() != null && c.value().path("after").path("id").asLong() == id, 1,
                    CONVERGE);
            return epochOnPrimary(name);
        }
    }

    private static Continuity verdictOf(InProcessConnector connector) {
        return connector.context().getBean(ContinuityState.class).current()
                .orElseThrow(() -> new AssertionError("no continuity verdict"));
    }

    private static String epochOnPrimary(String name) throws Exception {
        try (Connection c = primary.adminConnection(null); PreparedStatement s = c.prepareStatement(
                "SELECT epoch FROM " + MariaDbServer.HEARTBEAT_TABLE + " WHERE id = ?")) {
            s.setString(1, name);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    private static boolean isOwnHeartbeat(Change change, String name) {
        return change.value() != null && name.equals(change.value().path("after").path("id").asString());
    }

    private static long beatMicros(Change change) {
        return change.value().path("after").path("ts").asLong();
    }

    private static long version(Change change) {
        return change.value() == null ? -1 : change.value().path("after").path("version").asLong(-1);
    }
}
