package dev.cdccache.connector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.connector.check.ConnectorCheckCommand;
import dev.cdccache.connector.testing.InProcessConnector;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.junit.LocalStackExtension;
import dev.cdccache.infra.mariadb.MariaDbServer;
import dev.cdccache.infra.process.JavaProcess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cdc-connector check} against a real MariaDB and Kafka: a database set up with {@code setup.sql} passes, and
 * once the connector runs a heartbeat goes through the whole pipeline (and fails to once it stopped); a flavor
 * mismatch, a statement-based binlog, MINIMAL row images, a captured table without a primary key and a missing grant
 * each fail with the fix; the probe skipped after a failure names the check that failed. {@code setup.sql} names
 * anonymous accounts, which shadow the connector's user, without dropping them.
 */
@ExtendWith(LocalStackExtension.class)
class ConnectorCheckIT {

    private static final String DB = "own_check_db";
    private static final String USER = "own_check_connector";
    private static final String PASSWORD = "own-check-pw";

    private LocalStack stack;
    private Path config;

    @BeforeEach
    void setUp(LocalStack stack, @TempDir Path dir) throws IOException {
        this.stack = stack;
        MariaDbServer db = stack.mariaDb();
        db.createDatabase(DB);
        db.execute(DB, "CREATE TABLE IF NOT EXISTS product (id INT PRIMARY KEY, name VARCHAR(100))");
        runSetupScript(db);
        config = dir.resolve("connector.yml");
        Files.writeString(config, String.join("\n",
                "cdc:",
                "  connector:",
                "    name: own-check",
                "    database:",
                "      flavor: mariadb",
                "      host: " + db.host(),
                "      port: " + db.port(),
                "      user: " + USER,
                "      password: " + PASSWORD,
                "    tables:",
                "      - " + DB + ".product",
                "    topic-prefix: owncheck",
                "    kafka:",
                "      bootstrap-servers: " + stack.kafka().bootstrapServers(),
                ""));
    }

    private static String runSetupScript(MariaDbServer db) {
        return db.runScript(setupSql(), "--init-command=SET @cdc_database='" + DB + "', @cdc_user='" + USER
                + "', @cdc_password='" + PASSWORD + "'");
    }

    static Path setupSql() {
        for (Path at = Path.of("").toAbsolutePath(); at != null; at = at.getParent()) {
            Path script = at.resolve("cdc-connector/sql/setup.sql");
            if (Files.isRegularFile(script)) {
                return script;
            }
        }
        throw new IllegalStateException("cdc-connector/sql/setup.sql not found");
    }

    @Test
    void aDatabaseSetUpWithTheScriptPassesAndOnceTheConnectorRunsAHeartbeatGoesThrough(@TempDir Path dir) {
        // the runnable jar, as a user runs it, before the connector ever ran: no heartbeat row to probe yet
        JavaProcess jar = JavaProcess.builder("check").jar(ExecJar.path()).logFile(dir.resolve("check.log"))
                .jvmArg("-XX:TieredStopAtLevel=1").arg("check").arg("--config").arg(config.toString()).start();
        assertThat(jar.waitFor(Duration.ofSeconds(120))).as(jar.tail(200)).isZero();
        String before = jar.tail(200);
        assertThat(before).contains("[ok  ] binlog", "[ok  ] grants", "[ok  ] tables", "[ok  ] kafka", "[ok  ] database",
                        "[ok  ] binlog filters   none")
                .contains("[skip] probe").contains("All checks passed");

        try (InProcessConnector connector = InProcessConnector.start(Map.of("server.port", "0",
                "spring.config.additional-location", "file:" + config))) {
            Result after = check();
            assertThat(after.exitCode()).as(after.output()).isZero();
            assertThat(after.output()).containsPattern("\\[ok  \\] probe +a heartbeat written now reached "
                    + "owncheck\\.cdc_meta\\.heartbeat after \\d+ ms");
        }

        // the connector stopped: the settings are still right, but nothing carries a change to the clients (a short
        // wait: nothing will arrive however long it waits)
        Result stopped = check("--probe-timeout=3s");
        assertThat(stopped.exitCode()).as(stopped.output()).isEqualTo(1);
        assertThat(stopped.output()).contains("[FAIL] probe", "did not reach owncheck.cdc_meta.heartbeat within 3 s",
                "start the connector");
    }

    @Test
    void aBinlogFilterThatLeavesTheCapturedDatabaseOutFailsAndOneOfAnotherDatabaseWarns(@TempDir Path dir) {
        try (MariaDbServer ignoresCaptured = MariaDbServer.builder(dir.resolve("ignores-captured"))
                .setting("binlog-ignore-db=" + DB).build().start()) {
            Result result = checkAgainst(ignoresCaptured);
            assertThat(result.exitCode()).as(result.output()).isEqualTo(1);
            assertThat(result.output()).contains("[FAIL] binlog filters", DB + ".product (ignore-db names " + DB + ")",
                    "call them fresh");
        }
        try (MariaDbServer ignoresOther = MariaDbServer.builder(dir.resolve("ignores-other"))
                .setting("binlog-ignore-db=scratch").build().start()) {
            Result result = checkAgainst(ignoresOther);
            assertThat(result.exitCode()).as(result.output()).isZero();
            assertThat(result.output()).contains("[warn] binlog filters", ignoresOther.port() + " (ignore-db scratch)",
                    "USE <captured database>");
        }
    }

    /** check against another server, set up like the shared one: the captured table and the setup script's user. */
    private Result checkAgainst(MariaDbServer server) {
        server.createDatabase(DB);
        server.execute(DB, "CREATE TABLE IF NOT EXISTS product (id INT PRIMARY KEY, name VARCHAR(100))");
        runSetupScript(server);
        return check("--no-probe", "--cdc.connector.database.port=" + server.port());
    }

    @Test
    void aFlavorOtherThanTheServersIsRefusedNamingTheRightOne() {
        Result result = check("--cdc.connector.database.flavor=mysql");
        assertThat(result.exitCode()).as(result.output()).isEqualTo(1);
        assertThat(result.output()).contains("[FAIL] flavor", "the server is mariadb",
                "fix: set cdc.connector.database.flavor: mariadb");
    }

    @Test
    void aStatementBasedBinlogFailsWithTheSettingToChange() {
        stack.mariaDb().execute(null, "SET GLOBAL binlog_format = 'STATEMENT'");
        try {
            Result result = check("--no-probe");
            assertThat(result.exitCode()).as(result.output()).isEqualTo(1);
            assertThat(result.output()).contains("[FAIL] binlog", "binlog_format is STATEMENT", "binlog_format=ROW");
        } finally {
            stack.mariaDb().execute(null, "SET GLOBAL binlog_format = 'ROW'");
        }
    }

    @Test
    void aMissingGrantIsNamedAndTheOtherChecksStillRun() {
        stack.mariaDb().execute(null, "REVOKE UPDATE ON cdc_meta.heartbeat FROM '" + USER + "'@'%'");
        try {
            Result result = check("--no-probe");
            assertThat(result.exitCode()).as(result.output()).isEqualTo(1);
            assertThat(result.output()).contains("[FAIL] grants", "UPDATE ON cdc_meta.heartbeat (heartbeat table)")
                    .contains("run cdc-connector/sql/setup.sql", "mariadb -h " + stack.mariaDb().host(),
                            "@cdc_user='" + USER + "'")
                    .contains("[ok  ] kafka"); // goes on after a problem
        } finally {
            runSetupScript(stack.mariaDb());
        }
    }

    @Test
    void minimalRowImagesFailWithSetGlobalAndTheConfigurationLine() {
        stack.mariaDb().execute(null, "SET GLOBAL binlog_row_image = 'MINIMAL'");
        try {
            Result result = check("--no-probe");
            assertThat(result.exitCode()).as(result.output()).isEqualTo(1);
            assertThat(result.output()).contains("[FAIL] binlog", "binlog_row_image is MINIMAL",
                    "SET GLOBAL binlog_row_image = 'FULL';", "binlog_row_image=FULL under [mysqld]");
        } finally {
            stack.mariaDb().execute(null, "SET GLOBAL binlog_row_image = 'FULL'");
        }
    }

    @Test
    void aCapturedTableWithoutAPrimaryKeyFailsNamingTheUniqueKeyThatCouldBecomeIt() {
        stack.mariaDb().execute(DB, "CREATE TABLE IF NOT EXISTS keyless (code VARCHAR(20), name VARCHAR(100),"
                + " UNIQUE KEY uq_code (code))");
        stack.mariaDb().execute(DB, "CREATE TABLE IF NOT EXISTS unique_keyed (code VARCHAR(20) NOT NULL, name VARCHAR(100),"
                + " UNIQUE KEY uq_code (code))");
        Result result = check("--cdc.connector.tables=" + DB + ".product," + DB + ".keyless," + DB + ".unique_keyed");
        assertThat(result.exitCode()).as(result.output()).isEqualTo(1);
        assertThat(result.output()).contains("[FAIL] tables", "ADD PRIMARY KEY").containsPattern("without a primary key"
                + " on [^ ]+: " + DB + "\\.keyless \\(its unique key uq_code on code would do once those columns are NOT"
                + " NULL\\)\\. The connector publishes"); // neither product (primary key) nor unique_keyed (NOT NULL)
    }

    @Test
    void theProbeSkippedAfterOnlyTheTablesCheckFailedNamesThatCheck() {
        Result result = check("--cdc.connector.tables=" + DB + ".product," + DB + ".missing_table");
        assertThat(result.exitCode()).as(result.output()).isEqualTo(1);
        assertThat(result.output()).contains("[ok  ] database", "[ok  ] kafka", "[FAIL] tables")
                .containsPattern("\\[skip\\] probe +not sent: the tables check above failed");
    }

    @Test
    void theSetupScriptNamesAnonymousAccountsAndTheirDropStatementsButKeepsThem() {
        MariaDbServer db = stack.mariaDb();
        // The test server skips name resolution, so ''@'localhost' matches only socket connections, which no test
        // makes: the shared server's TCP logins are unaffected while it exists.
        assertThat(runSetupScript(db)).as("without anonymous accounts").doesNotContain("WARNING");
        db.execute(null, "CREATE USER IF NOT EXISTS ''@'localhost'");
        try {
            String output = runSetupScript(db);
            assertThat(output).contains("WARNING: anonymous accounts exist", "not as '" + USER + "'@'%'",
                    "access denied", "DROP USER ''@'localhost';").contains("cdc-cache setup done");
            assertThat(anonymousAccounts(db)).as("the script drops nothing itself").isEqualTo(1);
        } finally {
            db.execute(null, "DROP USER IF EXISTS ''@'localhost'");
        }
    }

    private static int anonymousAccounts(MariaDbServer db) {
        try (java.sql.Connection connection = java.sql.DriverManager.getConnection(db.jdbcUrl(""), db.adminUser(),
                db.adminPassword()); java.sql.ResultSet rs = connection.createStatement()
                        .executeQuery("SELECT COUNT(*) FROM mysql.user WHERE user = ''")) {
            rs.next();
            return rs.getInt(1);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private Result check(String... extra) {
        List<String> args = new ArrayList<>(List.of("check", "--config", config.toString()));
        args.addAll(List.of(extra));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int exit = ConnectorCheckCommand.run(args.toArray(String[]::new), new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String output = bytes.toString(StandardCharsets.UTF_8);
        System.out.println(output);
        return new Result(exit, output);
    }

    private record Result(int exitCode, String output) {
    }
}
