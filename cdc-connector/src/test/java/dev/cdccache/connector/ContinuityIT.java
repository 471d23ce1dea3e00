package dev.cdccache.connector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.cdccache.connector.startup.StartupCheckException;
import dev.cdccache.connector.testing.ChangeTopicRecorder;
import dev.cdccache.connector.testing.ChangeTopicRecorder.Change;
import dev.cdccache.connector.testing.InProcessConnector;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.connector.ConnectorProcess;
import dev.cdccache.infra.junit.LocalStackExtension;
import dev.cdccache.infra.mariadb.MariaDbServer;
import io.debezium.embedded.KafkaConnectUtil;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Continuity and epochs (docs/connector.md) for real: a MariaDB of its own (binlogs are purged and reset here), the
 * shared Kafka broker, the connector restarted in the situations where it can or cannot prove that it resumes where
 * it stopped. Clients see a new epoch in the heartbeat exactly when changes may have been missed; log and health say
 * what happened.
 */
@ExtendWith({LocalStackExtension.class, OutputCaptureExtension.class})
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ContinuityIT {

    private static final String NAME = "continuity-a";
    private static final String DB = "continuity_db";
    private static final String PREFIX = "cont";
    private static final String ITEM_TOPIC = PREFIX + "." + DB + ".item";
    private static final String BEAT_TOPIC = PREFIX + "." + MariaDbServer.HEARTBEAT_TABLE;
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static LocalStack stack;
    private static MariaDbServer db;
    private static ChangeTopicRecorder recorder;
    private static InProcessConnector connector;
    private static long started;
    private static long nextId = 1;

    @BeforeAll
    static void start(LocalStack localStack) {
        started = System.nanoTime();
        stack = localStack;
        db = MariaDbServer.builder(Path.of("target", "continuity-db-" + ProcessHandle.current().pid())).build().start();
        db.createDatabase(DB);
        db.execute(DB, "CREATE TABLE item (id BIGINT PRIMARY KEY, name VARCHAR(64))");
        connector = InProcessConnector.start(settings(NAME));
        recorder = new ChangeTopicRecorder(stack.kafka().bootstrapServers(), List.of(ITEM_TOPIC, BEAT_TOPIC));
    }

    @AfterEach
    void closeConnector() {
        // every test leaves the connector stopped; the next one starts it in its situation
        if (connector != null) {
            connector.close();
            connector = null;
        }
    }

    @AfterAll
    static void stop() {
        if (recorder != null) {
            recorder.close();
        }
        if (db != null) {
            db.close();
        }
        System.out.printf("ContinuityIT: %d ms in all%n", (System.nanoTime() - started) / 1_000_000);
    }

    /** Starts the connector (stopping one left running, when a test runs alone). */
    private static void startConnector(String name) {
        if (connector != null) {
            connector.close();
        }
        connector = InProcessConnector.start(settings(name));
    }

    private static Map<String, String> settings(String name) {
        Map<String, String> settings = new LinkedHashMap<>(InProcessConnector.settings(stack, name, PREFIX, List.of(DB + ".item")));
        settings.put("cdc.connector.database.port", Integer.toString(db.port()));
        settings.put("cdc.connector.database.user", db.connectorUser());
        settings.put("cdc.connector.database.password", db.connectorPassword());
        return settings;
    }

    @Test
    @Order(1)
    void restartWithItsOffsetsKeepsTheEpochAndDeliversWhatWasCommittedWhileDown() throws Exception {
        String epoch = epochOf(NAME);
        awaitHeartbeatWithEpoch(NAME, epoch);
        connector.close();
        long id = insert(); // while the connector is down

        startConnector(NAME);

        assertThat(epochOf(NAME)).isEqualTo(epoch);
        assertThat(continuityHealth().path("details").path("verdict").asString()).isEqualTo("RESUMED");
        recorder.await(ITEM_TOPIC, c -> isInsert(c, id), 1, WAIT);
    }

    @Test
    @Order(2)
    void binlogPurgedWhileDownStartsANewEpochAtTheCurrentPositionAndSaysWhatHappened(CapturedOutput output) throws Exception {
        startConnector(NAME);
        String before = epochOf(NAME);
        connector.close();
        insert(); // lost to CDC: its binlog file is purged below
        purgeBinlogs();

        startConnector(NAME);

        String after = epochOf(NAME);
        assertThat(after).isNotEqualTo(before);
        awaitHeartbeatWithEpoch(NAME, after); // what makes every client drop what it cannot prove
        JsonNode health = continuityHealth();
        assertThat(health.path("status").asString()).isEqualTo("UP");
        assertThat(health.path("details").path("verdict").asString()).isEqualTo("POSITION_PURGED");
        assertThat(health.path("details").path("gap").asBoolean()).isTrue();
        assertThat(health.path("details").path("message").asString()).contains("no longer on the server", "purged");
        assertThat(health.path("details").path("action").asString()).contains("binlog_expire_logs_seconds");
        assertThat(output.getOut()).contains("Continuity gap: The binlog position connector 'continuity-a' stopped at");
        long id = insertPublished();
    }

    @Test
    @Order(3)
    void binlogPurgedWithPolicyFailStopsStartUpWithTheRemedy() throws Exception {
        startConnector(NAME);
        awaitHeartbeatWithEpoch(NAME, epochOf(NAME));
        connector.close();
        insert();
        purgeBinlogs();
        Map<String, String> settings = settings(NAME);
        settings.put("cdc.connector.continuity.on-lost-position", "fail");

        StartupCheckException cause = startupRefusal(settings);
        assertThat(cause.getMessage()).contains("connector 'continuity-a' stopped at").contains("is no longer on the server");
        assertThat(cause.fix()).contains("cdc.connector.continuity.on-lost-position=new-epoch");
    }

    @Test
    @Order(4)
    void lostOffsetsStartANewEpochAndSaySo(CapturedOutput output) throws Exception {
        startConnector(NAME); // recovers from test 3's purge under a new epoch
        String before = epochOf(NAME);
        connector.close();
        deleteStoredOffsets();

        startConnector(NAME);

        String after = epochOf(NAME);
        assertThat(after).isNotEqualTo(before);
        awaitHeartbeatWithEpoch(NAME, after);
        JsonNode details = continuityHealth().path("details");
        assertThat(details.path("verdict").asString()).isEqualTo("OFFSETS_LOST");
        assertThat(details.path("message").asString()).contains("its offsets were lost");
        assertThat(output.getOut()).contains("Continuity gap: Connector 'continuity-a' ran before");
    }

    @Test
    @Order(5)
    void renamedConnectorStartsANewEpochAndNamesTheOldName() throws Exception {
        awaitHeartbeatWithEpoch(NAME, epochOf(NAME)); // the old name's row exists

        startConnector("continuity-renamed");

        JsonNode details = continuityHealth().path("details");
        assertThat(details.path("verdict").asString()).isEqualTo("RENAMED");
        assertThat(details.path("message").asString()).contains("'continuity-a'");
        assertThat(details.path("action").asString()).contains("DELETE FROM cdc_meta.heartbeat WHERE id = '<old name>'");
        awaitHeartbeatWithEpoch("continuity-renamed", epochOf("continuity-renamed"));
    }

    @Test
    @Order(6)
    void binlogResetWhileDownStartsANewEpochAlthoughAFileOfTheStoredNameExists(CapturedOutput output) throws Exception {
        startConnector(NAME);
        long id = insertPublished();
        String before = epochOf(NAME);
        awaitHeartbeatWithEpoch(NAME, before);
        connector.close();
        rename(id, "before the reset"); // its binlog file is deleted by the reset
        String[] end = binlogEnd(); // the stored position is in this file, before this offset
        resetBinlog();
        // the new history reaches a file of the stored name and grows past the stored position there
        while (!binlogEnd()[0].equals(end[0])) {
            db.execute(null, "FLUSH BINARY LOGS");
        }
        for (int i = 0; Long.parseLong(binlogEnd()[1]) <= Long.parseLong(end[1]); i++) {
            rename(id, "after the reset " + i);
        }

        startConnector(NAME);

        String after = epochOf(NAME);
        assertThat(after).as("epoch after a binlog reset").isNotEqualTo(before);
        awaitHeartbeatWithEpoch(NAME, after);
        JsonNode details = continuityHealth().path("details");
        assertThat(details.path("verdict").asString()).isEqualTo("BINLOG_RESET");
        assertThat(details.path("gap").asBoolean()).isTrue();
        assertThat(output.getOut()).contains("Continuity gap: The binlog of");
        long next = insertPublished();
    }

    @Test
    @Order(8)
    void aRowChangeTheBinlogHoldsAsAStatementMakesTheNextHeartbeatCarryANewEpoch(CapturedOutput output) throws Exception {
        String before = startAndAwaitHeartbeat();
        long id = insertPublished();

        // a writer whose session logs statements: Debezium cannot read which rows changed, and publishes nothing
        try (Connection c = db.adminConnection(DB); Statement s = c.createStatement()) {
            s.execute("SET SESSION binlog_format = 'STATEMENT'");
            s.executeUpdate("UPDATE item SET name = 'changed by a statement' WHERE id = " + id);
        }

        // the row first (the topic holds earlier tests' epochs too), then the heartbeat that carries it to clients
        org.awaitility.Awaitility.await().atMost(WAIT).until(() -> !before.equals(epochOf(NAME)));
        String after = epochOf(NAME);
        awaitHeartbeatWithEpoch(NAME, after);
        JsonNode health = continuityHealth();
        assertThat(health.path("details").path("verdict").asString()).isEqualTo("STATEMENT_IN_BINLOG");
        assertThat(health.path("details").path("gap").asBoolean()).isTrue();
        assertThat(health.path("details").path("action").asString()).contains("binlog_format=ROW");
        assertThat(output.getOut()).contains("Continuity gap: A row change reached the binlog as an SQL statement")
                .contains("UPDATE item ...").doesNotContain("Continuity gap: A row change reached the binlog as an SQL"
                        + " statement, not as rows (UPDATE item SET");

        // REPLACE too, which Debezium's default DDL filter drops with only a DEBUG line, and no warning
        try (Connection c = db.adminConnection(DB); Statement s = c.createStatement()) {
            s.execute("SET SESSION binlog_format = 'STATEMENT'");
            s.executeUpdate("REPLACE INTO item VALUES (" + id + ", 'replaced by a statement')");
        }
        org.awaitility.Awaitility.await().atMost(WAIT).until(() -> !after.equals(epochOf(NAME)));
        awaitHeartbeatWithEpoch(NAME, epochOf(NAME));
        assertThat(output.getOut()).contains("(REPLACE INTO item ...)");

        // and forms Debezium does not take for a row change at all: a leading comment, a lower-case SET STATEMENT
        for (String statement : List.of("/* nightly job */ UPDATE item SET name = 'commented' WHERE id = " + id,
                "set statement max_statement_time=10 for update item set name = 'set' where id = " + id)) {
            String epoch = epochOf(NAME);
            try (Connection c = db.adminConnection(DB); Statement s = c.createStatement()) {
                s.execute("SET SESSION binlog_format = 'STATEMENT'");
                s.executeUpdate(statement);
            }
            org.awaitility.Awaitility.await(statement).atMost(WAIT).until(() -> !epoch.equals(epochOf(NAME)));
        }
    }

    @Test
    @Order(9)
    void loadDataLoggedAsAStatementAndACompressedEventStartANewEpochAndACompressedHeartbeatIsHeldBack(
            CapturedOutput output) throws Exception {
        String before = startAndAwaitHeartbeat();
        long id = insertPublished();

        // LOAD DATA from a session that logs statements reaches the binlog as events other than a query, which
        // Debezium skips without a warning
        Path rows = db.baseDir().resolve("rows.tsv").toAbsolutePath();
        java.nio.file.Files.writeString(rows, (id + 1_000) + "\tloaded by a statement\n");
        try (Connection c = db.adminConnection(DB); Statement s = c.createStatement()) {
            s.execute("SET SESSION binlog_format = 'STATEMENT'");
            s.executeUpdate("LOAD DATA INFILE '" + rows + "' INTO TABLE item");
        }
        await("LOAD DATA").atMost(WAIT).until(() -> !before.equals(epochOf(NAME)));
        String afterLoad = epochOf(NAME);
        awaitHeartbeatWithEpoch(NAME, afterLoad);
        assertThat(continuityHealth().path("details").path("verdict").asString()).isEqualTo("STATEMENT_IN_BINLOG");
        assertThat(output.getOut()).contains("(LOAD DATA ...)");

        // MariaDB compresses every event of at least log_bin_compress_min_len bytes, which the binlog reader cannot
        // decode: the update below never reaches a client as a row event. The heartbeat row with a new epoch would be
        // compressed too, so the connector stops at the event, before it stores a position past it
        try {
            db.execute(null, "SET GLOBAL log_bin_compress_min_len = 10", "SET GLOBAL log_bin_compress = ON");
            db.execute(DB, "UPDATE item SET name = '" + "compressed ".repeat(5) + "' WHERE id = " + id);
            await("stopped at the compressed event").atMost(WAIT).until(() -> continuityHealth().path("details")
                    .path("error").asString().contains("log_bin_compress is ON"));
            JsonNode health = continuityHealth();
            assertThat(health.path("status").asString()).isEqualTo("DOWN");
            assertThat(health.path("details").path("error").asString()).contains("SET GLOBAL log_bin_compress = OFF;");
            assertThat(epochOf(NAME)).isEqualTo(afterLoad);
            connector.close();
            connector = null;

            // a connector started while the server compresses is refused, with the fix
            StartupCheckException cause = startupRefusal(settings(NAME));
            assertThat(cause.getMessage()).contains("log_bin_compress is ON");
            assertThat(cause.fix()).contains("SET GLOBAL log_bin_compress = OFF;");
        } finally {
            db.execute(null, "SET GLOBAL log_bin_compress = OFF");
        }
        // once the server no longer compresses, a start reads the event again and starts a new epoch for it
        startConnector(NAME);
        await("compressed event read again").atMost(WAIT).until(() -> !afterLoad.equals(epochOf(NAME)));
        awaitHeartbeatWithEpoch(NAME, epochOf(NAME));
        JsonNode health = continuityHealth();
        assertThat(health.path("details").path("verdict").asString()).isEqualTo("UNREADABLE_EVENT_IN_BINLOG");
        assertThat(health.path("status").asString()).isEqualTo("UP");
    }

    @Test
    @Order(10)
    void aHeartbeatRowLoggedAsAStatementHoldsHeartbeatsBackInsteadOfStartingEpochsWithoutEnd(CapturedOutput output)
            throws Exception {
        String epoch = startAndAwaitHeartbeat();
        long id = insertPublished();
        try {
            holdHeartbeats(output);
            JsonNode health = continuityHealth();
            assertThat(health.path("status").asString()).isEqualTo("DOWN");
            assertThat(health.path("details").path("heartbeats").asString()).contains("binlog_format is STATEMENT");
            assertThat(health.path("details").path("epoch").asString()).as("no new epoch for a heartbeat")
                    .isEqualTo(epoch);
        } finally {
            releaseHeartbeats();
        }
        // the writer reconnects in ROW format and heartbeats are published again, of the same epoch
        String ts = heartbeatTimestampOf(NAME);
        await().atMost(WAIT).until(() -> "UP".equals(continuityHealth().path("status").asString()));
        await().atMost(WAIT).until(() -> !ts.equals(heartbeatTimestampOf(NAME)));
        awaitHeartbeatWithEpoch(NAME, epoch);
        assertThat(epochOf(NAME)).isEqualTo(epoch);

        // held once more, a row change arrives as a statement: its new epoch cannot be published, so the connector
        // stops before it stores a position past the statement, and a start reads the statement again
        try {
            holdHeartbeats(output);
            try (Connection c = db.adminConnection(DB); Statement s = c.createStatement()) {
                s.execute("SET SESSION binlog_format = 'STATEMENT'");
                s.executeUpdate("UPDATE item SET name = 'while held' WHERE id = " + id);
            }
            await("stopped at the statement").atMost(WAIT).until(() -> continuityHealth().path("details")
                    .path("error").asString().contains("heartbeat rows are held back"));
            assertThat(epochOf(NAME)).isEqualTo(epoch);
            connector.close();
            connector = null;
        } finally {
            releaseHeartbeats();
        }
        startConnector(NAME);
        await("statement read again").atMost(WAIT).until(() -> !epoch.equals(epochOf(NAME)));
        awaitHeartbeatWithEpoch(NAME, epochOf(NAME));
        assertThat(continuityHealth().path("details").path("verdict").asString()).isEqualTo("STATEMENT_IN_BINLOG");
    }

    /**
     * Sets the global format to STATEMENT and makes the heartbeat writer reconnect (a failed write does): its rows
     * then reach the binlog as statements, which Debezium does not publish, and the connector holds them back.
     */
    private void holdHeartbeats(CapturedOutput output) {
        String connectorUser = "'" + db.connectorUser() + "'@'%'";
        long failures = output.getOut().split("Could not write the heartbeat row", -1).length;
        db.execute(null, "SET GLOBAL binlog_format = 'STATEMENT'",
                "REVOKE INSERT, UPDATE ON " + MariaDbServer.HEARTBEAT_TABLE + " FROM " + connectorUser);
        await("a failed heartbeat write").atMost(WAIT)
                .until(() -> output.getOut().split("Could not write the heartbeat row", -1).length > failures);
        db.execute(null, "GRANT INSERT, UPDATE ON " + MariaDbServer.HEARTBEAT_TABLE + " TO " + connectorUser);
        await("heartbeats held").atMost(WAIT)
                .until(() -> continuityHealth().path("details").path("heartbeats").asString().contains("held"));
    }

    private void releaseHeartbeats() {
        db.execute(null, "SET GLOBAL binlog_format = 'ROW'",
                "GRANT INSERT, UPDATE ON " + MariaDbServer.HEARTBEAT_TABLE + " TO '" + db.connectorUser() + "'@'%'");
    }

    @Test
    @Order(11)
    void theCommitOfAPreparedXaTransactionMakesTheNextHeartbeatCarryANewEpoch(CapturedOutput output) throws Exception {
        String before = startAndAwaitHeartbeat();
        long id = insertPublished();

        // an XA transaction of a table that is not captured: its commit changes nothing a client caches
        db.execute(DB, "CREATE TABLE audit_note (id BIGINT PRIMARY KEY, body VARCHAR(64))");
        try (Connection c = db.adminConnection(DB); Statement s = c.createStatement()) {
            s.execute("XA START 'audit-7'");
            s.executeUpdate("INSERT INTO audit_note VALUES (1, 'prepared elsewhere')");
            s.execute("XA END 'audit-7'");
            s.execute("XA PREPARE 'audit-7'");
            s.execute("XA COMMIT 'audit-7'");
        }
        long marker = insertPublished();
        assertThat(epochOf(NAME)).as("no new epoch for another table's XA commit").isEqualTo(before);

        try (Connection c = db.adminConnection(DB); Statement s = c.createStatement()) {
            s.execute("XA START 'order-42'");
            s.executeUpdate("UPDATE item SET name = 'prepared' WHERE id = " + id);
            s.execute("XA END 'order-42'");
            s.execute("XA PREPARE 'order-42'");
            // the row is in the binlog, and published, while every reader still sees the old name: a client that
            // loads it now caches the old row, and the commit below carries no row to evict it by
            recorder.await(ITEM_TOPIC, ch -> ch.value() != null && "u".equals(ch.op())
                    && ch.value().path("after").path("id").asLong() == id
                    && "prepared".equals(ch.value().path("after").path("name").asString()), 1, WAIT);
            try (Connection reader = db.adminConnection(DB); Statement r = reader.createStatement();
                    ResultSet rs = r.executeQuery("SELECT name FROM item WHERE id = " + id)) {
                rs.next();
                assertThat(rs.getString(1)).isEqualTo("row " + id);
            }
            assertThat(epochOf(NAME)).as("no new epoch at XA PREPARE").isEqualTo(before);
            s.execute("XA COMMIT 'order-42'");
        }
        await("XA COMMIT").atMost(WAIT).until(() -> !before.equals(epochOf(NAME)));
        awaitHeartbeatWithEpoch(NAME, epochOf(NAME));
        JsonNode health = continuityHealth();
        assertThat(health.path("details").path("verdict").asString()).isEqualTo("XA_COMMIT_AFTER_PREPARE");
        assertThat(health.path("status").asString()).isEqualTo("UP");
        assertThat(output.getOut()).contains("Continuity gap: A prepared XA transaction was committed.");
    }

    @Test
    @Order(12)
    void aTableSwappedInByRenameTableMakesTheNextHeartbeatCarryANewEpoch(CapturedOutput output) throws Exception {
        String before = startAndAwaitHeartbeat();
        long id = insertPublished();

        // a schema change of a table that is not captured changes nothing clients cache
        db.execute(DB, "CREATE TABLE item_staging (id BIGINT PRIMARY KEY, name VARCHAR(64))",
                "ALTER TABLE item_staging ADD INDEX by_name (name)");
        // reference data reloaded the way many teams do it: a staging table filled, then swapped in. No row event
        // of the captured table says that row id now has another name
        db.execute(DB, "INSERT INTO item_staging VALUES (" + id + ", 'swapped in')");
        long marker = insertPublished();
        assertThat(epochOf(NAME)).as("no new epoch for another table's schema").isEqualTo(before);
        db.execute(DB, "RENAME TABLE item TO item_old, item_staging TO item");
        await("RENAME TABLE").atMost(WAIT).until(() -> !before.equals(epochOf(NAME)));
        awaitHeartbeatWithEpoch(NAME, epochOf(NAME));
        assertThat(continuityHealth().path("details").path("verdict").asString())
                .isEqualTo("SCHEMA_CHANGE_OF_CAPTURED_TABLE");
        assertThat(output.getOut()).contains("Continuity gap: A schema change named a captured table (RENAME TABLE item ...)");

        // a restart with the offsets stored past the change resumes the renewed epoch: the clients dropped their
        // caches for the change once, not once more at every start
        String renewed = epochOf(NAME);
        insertPublished();
        connector.close(); // stores the position it reached
        connector = null;
        startConnector(NAME);
        JsonNode restarted = continuityHealth().path("details");
        assertThat(restarted.path("verdict").asString()).isEqualTo("RESUMED");
        assertThat(restarted.path("epoch").asString()).isEqualTo(renewed);
        assertThat(restarted.path("message").asString()).contains("renewed while streaming");
        assertThat(epochOf(NAME)).isEqualTo(renewed);
    }

    @Test
    @Order(14)
    void anIncidentEventMakesTheNextHeartbeatCarryANewEpoch(CapturedOutput output) throws Exception {
        String before = startAndAwaitHeartbeat();
        // a change to a non-transactional table that does not fit the statement cache: the row is stored, the
        // binlog gets an incident (LOST_EVENTS) instead of it, and Debezium reads on
        db.execute(DB, "CREATE TABLE legacy_note (id BIGINT PRIMARY KEY, body LONGTEXT) ENGINE=MyISAM");
        String cacheSize;
        try (Connection c = db.adminConnection(null); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@GLOBAL.max_binlog_stmt_cache_size")) {
            rs.next();
            cacheSize = rs.getString(1);
        }
        try {
            db.execute(null, "SET GLOBAL max_binlog_stmt_cache_size = 4096");
            try (Connection c = db.adminConnection(DB); Statement s = c.createStatement()) {
                catchThrowable(() -> s.executeUpdate("INSERT INTO legacy_note VALUES (1, REPEAT('x', 100000))"));
            }
        } finally {
            db.execute(null, "SET GLOBAL max_binlog_stmt_cache_size = " + cacheSize);
        }
        await("incident").atMost(WAIT).until(() -> !before.equals(epochOf(NAME)));
        awaitHeartbeatWithEpoch(NAME, epochOf(NAME));
        assertThat(continuityHealth().path("details").path("verdict").asString()).isEqualTo("SERVER_INCIDENT");
        assertThat(output.getOut()).contains("Continuity gap: The binlog held an incident event");

        // the server sends the file's incident event again to a reader that resumes in it by GTID: covered already
        String renewed = epochOf(NAME);
        insertPublished();
        connector.close();
        connector = null;
        startConnector(NAME);
        insertPublished(); // read past where the incident was sent again
        assertThat(continuityHealth().path("details").path("verdict").asString()).isEqualTo("RESUMED");
        assertThat(epochOf(NAME)).isEqualTo(renewed);
        assertThat(output.getOut()).contains("was read again");
    }

    @Test
    @Order(15)
    void anEncryptedBinlogStartsNoEpochAtItsFiles(CapturedOutput output) throws Exception {
        // MariaDB starts every encrypted binlog file with an event of a type the binlog reader does not know; it
        // changes nothing, and must not cost the clients their caches at every rotation
        Path base = Path.of("target", "continuity-db3-" + ProcessHandle.current().pid()).toAbsolutePath();
        java.nio.file.Files.createDirectories(base);
        byte[] key = new byte[32];
        new java.security.SecureRandom().nextBytes(key);
        Path keys = java.nio.file.Files.writeString(base.resolve("binlog-keys.txt"),
                "1;" + java.util.HexFormat.of().formatHex(key) + "\n");
        MariaDbServer encrypted = MariaDbServer.builder(base).serverId(3)
                .setting("plugin-load-add=file_key_management").setting("file-key-management-filename=" + keys)
                .setting("encrypt-binlog=ON").build().start();
        String name = "continuity-encrypted";
        try {
            encrypted.createDatabase(DB);
            encrypted.execute(DB, "CREATE TABLE item (id BIGINT PRIMARY KEY, name VARCHAR(64))");
            Map<String, String> settings = new LinkedHashMap<>(settings(name));
            settings.put("cdc.connector.database.port", Integer.toString(encrypted.port()));
            settings.put("cdc.connector.database.user", encrypted.connectorUser());
            settings.put("cdc.connector.database.password", encrypted.connectorPassword());
            startConnector(settings);
            String epoch = epochOn(encrypted, name);
            for (long id = 900_001; id <= 900_003; id++) {
                encrypted.execute(DB, "INSERT INTO item VALUES (" + id + ", 'row " + id + "')");
                long inserted = id;
                recorder.await(ITEM_TOPIC, c -> isInsert(c, inserted), 1, WAIT);
                encrypted.execute(null, "FLUSH BINARY LOGS");
            }
            encrypted.execute(DB, "INSERT INTO item VALUES (900004, 'last')");
            recorder.await(ITEM_TOPIC, c -> isInsert(c, 900_004), 1, WAIT);
            awaitHeartbeatWithEpoch(name, epoch);
            assertThat(epochOn(encrypted, name)).isEqualTo(epoch);
            assertThat(continuityHealth().path("status").asString()).isEqualTo("UP");
            assertThat(output.getOut()).doesNotContain("cannot decode");
        } finally {
            if (connector != null) {
                connector.close();
                connector = null;
            }
            encrypted.close();
        }
    }

    @Test
    @Order(13)
    void aCompressedSchemaChangeStopsTheConnectorUntilItsOffsetsAreDeleted(CapturedOutput output) throws Exception {
        String before = startAndAwaitHeartbeat();
        insertPublished();
        connector.close();
        connector = null;
        // while the connector is down, the server compresses events for a while, and a column is added before the
        // others: read with the columns it had before, the table's rows would put values (the key among them) in
        // the wrong fields. Item keeps the new column: tests after this one name the columns they insert.
        try {
            db.execute(null, "SET GLOBAL log_bin_compress_min_len = 10", "SET GLOBAL log_bin_compress = ON");
            // first a compressed query event that changes no captured table: read back from the server, not a stop
            db.execute(DB, "CREATE TABLE compressed_elsewhere (id BIGINT PRIMARY KEY)");
            db.execute(DB, "ALTER TABLE item ADD COLUMN note VARCHAR(64) NOT NULL DEFAULT 'none' FIRST");
        } finally {
            db.execute(null, "SET GLOBAL log_bin_compress = OFF");
        }

        // the compressed event is not among a table's rows: read back, it is such a change, which no epoch sets right
        startConnector(NAME);
        await("stopped at the compressed query event").atMost(WAIT).until(() -> continuityHealth().path("details")
                .path("error").asString().contains("a compressed schema change of a captured table (ALTER TABLE item ...)"));
        JsonNode health = continuityHealth();
        assertThat(health.path("status").asString()).isEqualTo("DOWN");
        assertThat(health.path("details").path("error").asString()).contains("Delete the connector's stored offsets",
                "--delete --topic " + NAME + ".offsets").doesNotContain("log_bin_compress = OFF");
        // the other statement renewed the epoch; this one stops
        assertThat(output.getOut()).contains("Stopped at an event that may have changed rows, because the binlog held"
                + " a compressed schema change of a captured table (ALTER TABLE item ...), which Debezium did not read")
                .contains("Continuity gap: The binlog held a compressed statement that changes no captured table's"
                        + " schema (a statement)");
        connector.close();
        connector = null;
        // stopped at the event already, the engine closes without a failure of its own, and releases the lease
        assertThat(output.getOut()).doesNotContain("Failed to stop bean 'changeEventEngine'");

        // the runnable connector stops there again, with the exit code that tells a supervisor not to restart it
        ConnectorProcess again = ConnectorProcess.builder(ExecJar.path(), stack).name(NAME).topicPrefix(PREFIX)
                .tables(List.of(DB + ".item")).property("cdc.connector.database.port", Integer.toString(db.port()))
                .property("cdc.connector.database.user", db.connectorUser())
                .env("CDC_CONNECTOR_DATABASE_PASSWORD", db.connectorPassword())
                .logFile(Path.of("target", "continuity-compressed-schema-change.log")).build().launch();
        assertThat(again.awaitExit(WAIT)).as("exit code").isEqualTo(4);
        assertThat(java.nio.file.Files.readString(again.logFile()))
                .contains("because the binlog held a compressed schema change of a captured table");

        // the remedy it names: without offsets it starts at the current position, with the table's current columns
        deleteStoredOffsets();
        startConnector(NAME);
        String after = epochOf(NAME);
        assertThat(after).isNotEqualTo(before);
        awaitHeartbeatWithEpoch(NAME, after);
        assertThat(continuityHealth().path("details").path("verdict").asString()).isEqualTo("OFFSETS_LOST");
        long id = nextId++;
        db.execute(DB, "INSERT INTO item (id, name, note) VALUES (" + id + ", 'after the change', 'noted')");
        Change inserted = recorder.await(ITEM_TOPIC, c -> isInsert(c, id), 1, WAIT).get(0);
        assertThat(inserted.value().path("after").path("name").asString()).isEqualTo("after the change");
        assertThat(inserted.value().path("after").path("note").asString()).isEqualTo("noted");
    }

    @Test
    @Order(16)
    void offsetsWithoutTheRecordOfWhatTheyWereWrittenUnderStartANewEpoch(CapturedOutput output) throws Exception {
        startConnector(NAME);
        String before = epochOf(NAME);
        awaitHeartbeatWithEpoch(NAME, before);
        connector.close();
        connector = null;
        // the record next to the offsets is gone (damaged, or the offsets came from another program): the row's epoch
        // says nothing of the offsets any more
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka().bootstrapServers()),
                new ByteArraySerializer(), new ByteArraySerializer())) {
            byte[] key = KafkaConnectUtil.converterForOffsetStore().fromConnectData(NAME, null,
                    List.of(NAME, Map.of("cdc-connector", "origin")));
            producer.send(new ProducerRecord<>(NAME + ".offsets", key, null)).get();
        }

        startConnector(NAME);

        JsonNode details = continuityHealth().path("details");
        assertThat(details.path("verdict").asString()).isEqualTo("EPOCH_UNKNOWN");
        assertThat(details.path("message").asString()).contains("holds no record of the epoch, server and tables");
        String after = epochOf(NAME);
        assertThat(after).isNotEqualTo(before);
        awaitHeartbeatWithEpoch(NAME, after);
    }

    /** Deletes the connector's offsets topic, as an operator would: its stored binlog position is gone. */
    private static void deleteStoredOffsets() throws Exception {
        try (Admin admin = stack.kafka().admin()) {
            admin.deleteTopics(List.of(NAME + ".offsets")).all().get();
            await().atMost(WAIT).until(() -> !admin.listTopics().names().get().contains(NAME + ".offsets"));
        }
    }

    private static void startConnector(Map<String, String> settings) {
        if (connector != null) {
            connector.close();
        }
        connector = InProcessConnector.start(settings);
    }

    private static String epochOn(MariaDbServer server, String name) throws Exception {
        try (Connection c = server.adminConnection(null); PreparedStatement s = c.prepareStatement(
                "SELECT epoch FROM " + MariaDbServer.HEARTBEAT_TABLE + " WHERE id = ?")) {
            s.setString(1, name);
            try (ResultSet rs = s.executeQuery()) {
                assertThat(rs.next()).as("heartbeat row of %s", name).isTrue();
                return rs.getString(1);
            }
        }
    }

    private static String heartbeatTimestampOf(String name) throws Exception {
        try (Connection c = db.adminConnection(null);
                PreparedStatement s = c.prepareStatement("SELECT ts FROM " + MariaDbServer.HEARTBEAT_TABLE + " WHERE id = ?")) {
            s.setString(1, name);
            try (ResultSet rs = s.executeQuery()) {
                assertThat(rs.next()).as("heartbeat row of %s", name).isTrue();
                return rs.getString(1);
            }
        }
    }

    /** Starts the connector and waits for its heartbeat: returns the epoch it carries. */
    private static String startAndAwaitHeartbeat() throws Exception {
        startConnector(NAME);
        String epoch = epochOf(NAME);
        awaitHeartbeatWithEpoch(NAME, epoch);
        return epoch;
    }

    /** Inserts a row and waits until the connector has published it: returns its id. */
    private static long insertPublished() {
        long id = insert();
        recorder.await(ITEM_TOPIC, c -> isInsert(c, id), 1, WAIT);
        return id;
    }

    /** The start-up check's refusal of a connector started with {@code settings}. */
    private static StartupCheckException startupRefusal(Map<String, String> settings) {
        Throwable failure = catchThrowable(() -> InProcessConnector.run(settings).close());
        Throwable cause = failure;
        while (cause != null && !(cause instanceof StartupCheckException)) {
            cause = cause.getCause();
        }
        assertThat(cause).as("a StartupCheckException in %s", failure).isInstanceOf(StartupCheckException.class);
        return (StartupCheckException) cause;
    }

    private static long insert() {
        long id = nextId++;
        db.execute(DB, "INSERT INTO item (id, name) VALUES (" + id + ", 'row " + id + "')");
        return id;
    }

    @Test
    @Order(7)
    void offsetsOfAnotherServerStartANewEpochEvenWhenTheRowWithTheEpochCameAlong(CapturedOutput output) throws Exception {
        startConnector(NAME);
        String before = epochOf(NAME);
        connector.close();
        MariaDbServer failover = MariaDbServer.builder(Path.of("target", "continuity-db2-" + ProcessHandle.current().pid()))
                .serverId(2).build().start();
        try {
            failover.createDatabase(DB);
            failover.execute(DB, "CREATE TABLE item (id BIGINT PRIMARY KEY, name VARCHAR(64))");
            // the heartbeat row replicated to the new primary: its epoch alone proves nothing
            failover.execute(null, "INSERT INTO " + MariaDbServer.HEARTBEAT_TABLE + " (id, ts, epoch, tables) VALUES ('"
                    + NAME + "', UTC_TIMESTAMP(6), '" + before + "', '" + DB + ".item')");
            Map<String, String> settings = settings(NAME);
            settings.put("cdc.connector.database.port", Integer.toString(failover.port()));
            connector = InProcessConnector.start(settings);

            JsonNode details = continuityHealth().path("details");
            assertThat(details.path("verdict").asString()).isEqualTo("SERVER_CHANGED");
            assertThat(details.path("gap").asBoolean()).isTrue();
            assertThat(details.path("epoch").asString()).isNotEqualTo(before);
            assertThat(details.path("message").asString()).contains("server_id 1", "server_id 2");
            assertThat(output.getOut()).contains("Continuity gap: The binlog position connector 'continuity-a' stopped at");
        } finally {
            if (connector != null) {
                connector.close();
                connector = null;
            }
            failover.close();
        }
    }

    private static void rename(long id, String name) {
        db.execute(DB, "UPDATE item SET name = '" + name + "' WHERE id = " + id);
    }

    /** RESET MASTER once the stopped connector's dump thread is gone: a new binlog history from file 1 on. */
    private static void resetBinlog() throws Exception {
        try (Connection c = db.adminConnection(null); Statement s = c.createStatement()) {
            awaitNoBinlogReader(s);
            s.execute("RESET MASTER");
        }
    }

    /** The current binlog file and the offset of its end ({@code SHOW MASTER STATUS}). */
    private static String[] binlogEnd() throws Exception {
        try (Connection c = db.adminConnection(null); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW MASTER STATUS")) {
            rs.next();
            return new String[] {rs.getString(1), rs.getString(2)};
        }
    }

    private static void awaitNoBinlogReader(Statement s) {
        await().atMost(WAIT).until(() -> {
            try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'")) {
                rs.next();
                return rs.getInt(1) == 0;
            }
        });
    }

    private static boolean isInsert(Change c, long id) {
        return c.value() != null && "c".equals(c.op()) && c.value().path("after").path("id").asLong() == id;
    }

    /** Rotates the binlog and purges every earlier file: the position the stopped connector stored is gone. */
    private static void purgeBinlogs() throws Exception {
        try (Connection c = db.adminConnection(null); Statement s = c.createStatement()) {
            // the server keeps a file a replication connection still reads: wait until the stopped one is gone
            awaitNoBinlogReader(s);
            s.execute("FLUSH BINARY LOGS");
            String current;
            try (ResultSet rs = s.executeQuery("SHOW MASTER STATUS")) {
                rs.next();
                current = rs.getString(1);
            }
            // the previous file is kept until InnoDB's next binlog checkpoint (crash recovery may need it): retry
            await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> {
                s.execute("PURGE BINARY LOGS TO '" + current + "'");
                try (ResultSet rs = s.executeQuery("SHOW BINARY LOGS")) {
                    rs.next();
                    return rs.getString(1).equals(current);
                }
            });
        }
    }

    private static String epochOf(String name) throws Exception {
        try (Connection c = db.adminConnection(null);
                PreparedStatement s = c.prepareStatement("SELECT epoch FROM " + MariaDbServer.HEARTBEAT_TABLE + " WHERE id = ?")) {
            s.setString(1, name);
            try (ResultSet rs = s.executeQuery()) {
                assertThat(rs.next()).as("heartbeat row of %s", name).isTrue();
                return rs.getString(1);
            }
        }
    }

    private static void awaitHeartbeatWithEpoch(String name, String epoch) {
        recorder.await(BEAT_TOPIC, c -> c.value() != null && name.equals(c.value().path("after").path("id").asString())
                && epoch.equals(c.value().path("after").path("epoch").asString())
                && name.equals(c.headers().get("cdc-connector")), 1, WAIT);
    }

    private static JsonNode continuityHealth() throws Exception {
        HttpResponse<String> health = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create(connector.baseUrl() + "/actuator/health")).build(),
                HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(health.body()).path("components").path("continuity");
    }
}
