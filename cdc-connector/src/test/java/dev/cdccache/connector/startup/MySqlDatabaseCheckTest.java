package dev.cdccache.connector.startup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.cdccache.connector.config.CapturedTable;
import dev.cdccache.connector.config.ConnectorProperties;
import dev.cdccache.connector.config.ConnectorProperties.Flavor;
import dev.cdccache.connector.testing.MySql8Answers;
import dev.cdccache.connector.testing.RecordedServer;
import dev.cdccache.connector.testing.RecordedServer.Rows;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The start-up database checks with {@code flavor: mysql}, against what MySQL 8.0 and 8.4 answer
 * ({@link MySql8Answers}): the JDBC URL, the binlog variables, {@code SHOW GRANTS} lines, {@code information_schema}
 * answers and the primary-key check.
 */
class MySqlDatabaseCheckTest {

    private static final String USER = "cdc_connector";
    private static final CapturedTable COUPON = CapturedTable.parse("shop.coupon");
    private static final CapturedTable HEARTBEAT = CapturedTable.parse("cdc_meta.heartbeat");

    private static ConnectorProperties.Database database(Flavor flavor) {
        ConnectorProperties.Database database = new ConnectorProperties.Database();
        database.setFlavor(flavor);
        database.setHost("mysql.example.com");
        database.setPort(3306);
        database.setUser(USER);
        database.setPassword("secret");
        return database;
    }

    private static DatabaseCheck check(Flavor flavor, CapturedTable... tables) {
        return new DatabaseCheck(database(flavor), List.of(tables), Optional.of(HEARTBEAT));
    }

    private static RecordedServer mySql(Map<String, String> variables) {
        return MySql8Answers.withVariables(new RecordedServer(), variables);
    }

    @Test
    void theMySqlFlavorsUrlIsServedByMySqlsOwnDriver() throws SQLException {
        String url = DatabaseCheck.jdbcUrl(database(Flavor.MYSQL));
        assertThat(url).startsWith("jdbc:mysql://mysql.example.com:3306/?")
                .as("MySQL 8 users authenticate with caching_sha2_password").contains("allowPublicKeyRetrieval=true");
        assertThat(DriverManager.getDriver(url).getClass().getName()).startsWith("com.mysql.");
        assertThat(DriverManager.getDriver(DatabaseCheck.jdbcUrl(database(Flavor.MARIADB))).getClass().getName())
                .startsWith("org.mariadb.");
    }

    @Test
    void aMySql80Or84ServerSetUpForChangeCaptureHasTheBinlogTheConnectorNeeds() throws SQLException {
        for (Map<String, String> variables : List.of(MySql8Answers.variables80(), MySql8Answers.variables84())) {
            RecordedServer server = mySql(variables);
            assertThatCode(() -> check(Flavor.MYSQL, COUPON).verifyBinlog(server.connection())).doesNotThrowAnyException();
            assertThat(server.issued()).containsExactly("SHOW GLOBAL VARIABLES LIKE 'log_bin'",
                    "SHOW GLOBAL VARIABLES LIKE 'binlog_format'", "SHOW GLOBAL VARIABLES LIKE 'binlog_row_image'",
                    "SHOW GLOBAL VARIABLES LIKE 'log_bin_compress'",
                    "SHOW GLOBAL VARIABLES LIKE 'binlog_row_value_options'");
        }
    }

    @Test
    void aMySqlServerStartedWithoutItsBinlogIsRefusedWithTheConfigurationToAdd() {
        Map<String, String> variables = MySql8Answers.variables80();
        variables.put("log_bin", "OFF"); // --skip-log-bin / --disable-log-bin
        StartupCheckException refused = binlogRefused(variables);
        assertThat(refused.getMessage()).contains("The binary log is off on mysql.example.com:3306 (log_bin=OFF)");
        assertThat(refused.fix()).contains("log-bin=", "binlog_format=ROW", "binlog_row_image=FULL", "server_id=");
    }

    @Test
    void aMixedFormatBinlogIsRefused() {
        Map<String, String> variables = MySql8Answers.variables80();
        variables.put("binlog_format", "MIXED");
        assertThat(binlogRefused(variables).getMessage()).contains("binlog_format is MIXED", "needs ROW");
    }

    @Test
    void minimalRowImagesAreRefusedNamingSetGlobalTheConfigurationLineAndTheWayOutOfEventsAlreadyLogged() {
        Map<String, String> variables = MySql8Answers.variables80();
        variables.put("binlog_row_image", "MINIMAL");
        StartupCheckException refused = binlogRefused(variables);
        assertThat(refused.getMessage()).contains("binlog_row_image is MINIMAL on mysql.example.com:3306",
                "every column but the changed ones and the primary key");
        assertThat(refused.fix()).contains("SET GLOBAL binlog_row_image = 'FULL';", "SET PERSIST",
                "binlog_row_image=FULL under [mysqld]", "until they reconnect",
                "delete its stored offsets", "new epoch", "docs/connector.md");
    }

    @Test
    void noBlobRowImagesAreRefusedToo() {
        Map<String, String> variables = MySql8Answers.variables84();
        variables.put("binlog_row_image", "NOBLOB");
        StartupCheckException refused = binlogRefused(variables);
        assertThat(refused.getMessage()).contains("binlog_row_image is NOBLOB", "unchanged BLOB and TEXT columns");
        assertThat(refused.fix()).contains("SET GLOBAL binlog_row_image = 'FULL';");
    }

    @Test
    void partialJsonUpdateEventsAreRefusedBecauseDebeziumSkipsThem() {
        Map<String, String> variables = MySql8Answers.variables84();
        variables.put("binlog_row_value_options", "PARTIAL_JSON");
        StartupCheckException refused = binlogRefused(variables);
        assertThat(refused.getMessage()).contains("binlog_row_value_options is PARTIAL_JSON on mysql.example.com:3306",
                "partial update event");
        assertThat(refused.fix()).contains("SET PERSIST binlog_row_value_options = '';");
    }

    private static StartupCheckException binlogRefused(Map<String, String> variables) {
        RecordedServer server = mySql(variables);
        StartupCheckException refused = catchThrowableOfType(StartupCheckException.class,
                () -> check(Flavor.MYSQL, COUPON).verifyBinlog(server.connection()));
        assertThat(refused).as("refused").isNotNull();
        return refused;
    }

    @Test
    void theGrantsMySqlListsForAUserCreatedBySetupSqlAreEnough() {
        RecordedServer server = MySql8Answers.withGrants(new RecordedServer(), USER, MySql8Answers.setupScriptGrants(USER));
        assertThatCode(() -> check(Flavor.MYSQL, COUPON).verifyPrivileges(server.connection())).doesNotThrowAnyException();
    }

    @Test
    void mySqlsSpelledOutGlobalPrivilegesAndItsDynamicPrivilegeLineCount() {
        // MySQL 8 writes ALL PRIVILEGES ON *.* out as the static privileges, then a line of dynamic privileges
        // (comma-separated without spaces), then the PROXY grant
        RecordedServer server = MySql8Answers.withGrants(new RecordedServer(), "admin",
                "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, RELOAD, SHUTDOWN, PROCESS, FILE, REFERENCES, INDEX,"
                        + " ALTER, SHOW DATABASES, SUPER, CREATE TEMPORARY TABLES, LOCK TABLES, EXECUTE, REPLICATION SLAVE,"
                        + " REPLICATION CLIENT, CREATE VIEW, SHOW VIEW, CREATE ROUTINE, ALTER ROUTINE, CREATE USER, EVENT,"
                        + " TRIGGER, CREATE TABLESPACE, CREATE ROLE, DROP ROLE ON *.* TO `admin`@`%` WITH GRANT OPTION",
                "GRANT APPLICATION_PASSWORD_ADMIN,AUDIT_ABORT_EXEMPT,BACKUP_ADMIN,BINLOG_ADMIN,CONNECTION_ADMIN,"
                        + "REPLICATION_APPLIER,REPLICATION_SLAVE_ADMIN,SYSTEM_VARIABLES_ADMIN,XA_RECOVER_ADMIN ON *.* TO"
                        + " `admin`@`%` WITH GRANT OPTION",
                "GRANT PROXY ON ``@`` TO `admin`@`%` WITH GRANT OPTION");
        assertThatCode(() -> check(Flavor.MYSQL, COUPON).verifyPrivileges(server.connection())).doesNotThrowAnyException();
    }

    @Test
    void aDatabaseNameWithAnUnderscoreIsMatchedThoughMySqlEscapesItInGrants() {
        DatabaseCheck.Grants grants = new DatabaseCheck.Grants();
        grants.add("GRANT SELECT ON `shop\\_db`.* TO `cdc_connector`@`%`");
        assertThat(grants.hasOn(CapturedTable.parse("shop_db.coupon"), "SELECT")).isTrue();
    }

    @Test
    void aMissingGrantOnMySqlIsFixedWithSetupSqlRunByTheMysqlClient() {
        // privileges held through a role do not show in SHOW GRANTS without USING: the role line names no privilege
        RecordedServer server = MySql8Answers.withGrants(new RecordedServer(), USER,
                "GRANT USAGE ON *.* TO `cdc_connector`@`%`",
                "GRANT SELECT ON `shop`.* TO `cdc_connector`@`%`",
                "GRANT SELECT, INSERT, UPDATE ON `cdc_meta`.`heartbeat` TO `cdc_connector`@`%`",
                "GRANT `cdc_role`@`%` TO `cdc_connector`@`%`");
        StartupCheckException refused = catchThrowableOfType(StartupCheckException.class,
                () -> check(Flavor.MYSQL, COUPON).verifyPrivileges(server.connection()));
        assertThat(refused.getMessage()).contains("User 'cdc_connector' lacks privileges",
                "REPLICATION SLAVE ON *.*", "REPLICATION CLIENT ON *.*").doesNotContain("shop.coupon");
        assertThat(refused.fix()).contains("run cdc-connector/sql/setup.sql", "mysql -h mysql.example.com -P 3306",
                "@cdc_user='cdc_connector'", "< cdc-connector/sql/setup.sql")
                .as("MySQL needs no SLAVE MONITOR: REPLICATION CLIENT covers SHOW REPLICA STATUS")
                .doesNotContain("SLAVE MONITOR");
    }

    @Test
    void onMariaDbTheSameFixUsesTheMariadbClientAndNamesSlaveMonitor() {
        RecordedServer server = MySql8Answers.withGrants(new RecordedServer(), USER, "GRANT USAGE ON *.* TO `cdc_connector`@`%`");
        StartupCheckException refused = catchThrowableOfType(StartupCheckException.class,
                () -> check(Flavor.MARIADB, COUPON).verifyPrivileges(server.connection()));
        assertThat(refused.fix()).contains("mariadb -h mysql.example.com", "cdc-connector/sql/setup.sql", "SLAVE MONITOR")
                .doesNotContain("@cdc_heartbeat_table");
    }

    @Test
    void aHeartbeatTableOtherThanTheDefaultIsPassedToSetupSql() {
        RecordedServer server = MySql8Answers.withGrants(new RecordedServer(), USER, "GRANT USAGE ON *.* TO `cdc_connector`@`%`");
        DatabaseCheck check = new DatabaseCheck(database(Flavor.MYSQL), List.of(COUPON),
                Optional.of(CapturedTable.parse("ops.beats")));
        StartupCheckException refused = catchThrowableOfType(StartupCheckException.class,
                () -> check.verifyPrivileges(server.connection()));
        assertThat(refused.fix()).contains("@cdc_heartbeat_table='ops.beats'");
    }

    /** {@code SHOW BINARY LOG STATUS} (8.2+) / {@code SHOW MASTER STATUS}: one row with the binlog filters. */
    private static Rows binlogStatus(String doDb, String ignoreDb) {
        return Rows.of("File", "Position", "Binlog_Do_DB", "Binlog_Ignore_DB", "Executed_Gtid_Set")
                .row("binlog.000007", "157", doDb, ignoreDb, "");
    }

    @Test
    void aBinlogIgnoreDbNamingACapturedDatabaseIsRefusedOnMySql84() {
        RecordedServer server = new RecordedServer().answer("SHOW BINARY LOG STATUS", binlogStatus("", "audit,shop"));
        StartupCheckException refused = catchThrowableOfType(StartupCheckException.class,
                () -> check(Flavor.MYSQL, COUPON).verifyBinlogFilters(server.connection()));
        assertThat(refused.getMessage()).contains("shop.coupon (ignore-db names shop)").contains("call them fresh");
        assertThat(refused.fix()).contains("binlog-ignore-db");
    }

    @Test
    void aMySqlWithoutBinaryLogStatusIsAskedForItsMasterStatus() {
        RecordedServer server = new RecordedServer()
                .refuse("SHOW BINARY LOG STATUS", MySql8Answers.ER_PARSE_ERROR, "42000", "You have an error in your SQL syntax")
                .answer("SHOW MASTER STATUS", binlogStatus("shop", ""));
        StartupCheckException refused = catchThrowableOfType(StartupCheckException.class,
                () -> check(Flavor.MYSQL, COUPON).verifyBinlogFilters(server.connection()));
        assertThat(refused.getMessage()).as("cdc_meta is not in binlog-do-db").contains("heartbeat table")
                .contains("cdc_meta.heartbeat (do-db shop does not name cdc_meta)");
    }

    @Test
    void binlogFiltersThatLogEveryCapturedTablePass() {
        RecordedServer server = new RecordedServer().answer("SHOW BINARY LOG STATUS", binlogStatus("shop,cdc_meta", "audit"));
        assertThatCode(() -> check(Flavor.MYSQL, COUPON).verifyBinlogFilters(server.connection()))
                .doesNotThrowAnyException();
    }

    @Test
    void capturedAndHeartbeatTablesAreFoundInMySqlsInformationSchema() {
        RecordedServer server = new RecordedServer()
                .answer("SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = '(shop|cdc_meta)' AND TABLE_NAME = '(coupon|heartbeat)'",
                        Rows.of("1").row("1"))
                .answer("SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'cdc_meta'"
                        + " AND TABLE_NAME = 'heartbeat'", Rows.of("COLUMN_NAME", "DATA_TYPE")
                        .row("id", "varchar").row("ts", "datetime").row("epoch", "varchar").row("tables", "text"));
        assertThatCode(() -> check(Flavor.MYSQL, COUPON).verifyTablesExist(server.connection())).doesNotThrowAnyException();
    }

    @Test
    void aTableMySqlDoesNotShowIsUnknown() {
        RecordedServer server = new RecordedServer()
                .answer("SELECT 1 FROM information_schema.TABLES WHERE .*", Rows.of("1"));
        StartupCheckException refused = catchThrowableOfType(StartupCheckException.class,
                () -> check(Flavor.MYSQL, COUPON).verifyTablesExist(server.connection()));
        assertThat(refused.getMessage()).contains("Unknown table(s) in cdc.connector.tables: shop.coupon");
    }

    @Test
    void aCapturedTableWithAPrimaryKeyPasses() {
        RecordedServer server = keys(keyRows().row("PRIMARY", "id", "NO").row("code", "code", "YES"));
        assertThatCode(() -> check(Flavor.MYSQL, COUPON).verifyPrimaryKeys(server.connection())).doesNotThrowAnyException();
    }

    @Test
    void aUniqueKeyOnNotNullColumnsServesAsThePrimaryKeyAsDebeziumTakesItForOne() {
        RecordedServer server = keys(keyRows().row("uq_place_code", "place_id", "NO").row("uq_place_code", "code", "NO"));
        assertThatCode(() -> check(Flavor.MYSQL, COUPON).verifyPrimaryKeys(server.connection())).doesNotThrowAnyException();
    }

    @Test
    void aCapturedTableWithOnlyANullableUniqueKeyIsRefusedNamingTheKeyThatCouldServe() {
        RecordedServer server = keys(keyRows().row("uq_place_code", "place_id", "NO").row("uq_place_code", "code", "YES"));
        StartupCheckException refused = catchThrowableOfType(StartupCheckException.class,
                () -> check(Flavor.MYSQL, COUPON).verifyPrimaryKeys(server.connection()));
        assertThat(refused).as("refused").isNotNull();
        assertThat(refused.getMessage()).contains("Captured table(s) without a primary key on mysql.example.com:3306:"
                + " shop.coupon (its unique key uq_place_code on place_id, code would do once those columns are NOT NULL)");
        assertThat(refused.fix()).contains("ALTER TABLE <database>.<table> ADD PRIMARY KEY (<columns>);",
                "remove the table from cdc.connector.tables");
    }

    @Test
    void aCapturedTableWithNoKeyAtAllIsRefused() {
        RecordedServer server = keys(keyRows());
        StartupCheckException refused = catchThrowableOfType(StartupCheckException.class,
                () -> check(Flavor.MYSQL, COUPON).verifyPrimaryKeys(server.connection()));
        assertThat(refused.getMessage()).contains(": shop.coupon. The connector publishes every change keyed by the"
                + " row's primary key");
    }

    private static Rows keyRows() {
        return Rows.of("CONSTRAINT_NAME", "COLUMN_NAME", "IS_NULLABLE");
    }

    /**
     * MySQL's KEY_COLUMN_USAGE joined with COLUMNS for shop.coupon: a primary key is the constraint named PRIMARY, a
     * unique key is named after its index, IS_NULLABLE is YES or NO.
     */
    private static RecordedServer keys(Rows rows) {
        return new RecordedServer().answer("SELECT k.CONSTRAINT_NAME, k.COLUMN_NAME, c.IS_NULLABLE FROM"
                + " information_schema.KEY_COLUMN_USAGE k JOIN information_schema.COLUMNS c .* WHERE k.TABLE_SCHEMA = 'shop'"
                + " AND k.TABLE_NAME = 'coupon' AND k.REFERENCED_TABLE_NAME IS NULL ORDER BY .*", rows);
    }
}
