package dev.cdccache.connector.continuity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.turbo.DuplicateMessageFilter;
import ch.qos.logback.core.read.ListAppender;
import ch.qos.logback.classic.util.ContextInitializer;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.EventHeaderV4;
import com.github.shyiko.mysql.binlog.event.EventType;
import com.github.shyiko.mysql.binlog.event.QueryEventData;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDeserializer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;
import org.springframework.boot.logging.LoggingInitializationContext;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.core.env.StandardEnvironment;

class StatementEventDetectorTest {

    @Test
    void theDebeziumInTheBuildStillLogsTheLinesTheDetectorWatchesFor() throws Exception {
        try (InputStream in = getClass().getClassLoader()
                .getResourceAsStream("io/debezium/connector/binlog/BinlogStreamingChangeEventSource.class")) {
            assertThat(in).as("Debezium's binlog streaming source").isNotNull();
            String constants = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(constants).contains(StatementEventDetector.DEBEZIUM_TEMPLATE,
                    StatementEventDetector.DEBEZIUM_FILTERED_TEMPLATE, StatementEventDetector.DEBEZIUM_QUERY_TEMPLATE,
                    StatementEventDetector.DEBEZIUM_IGNORED_TEMPLATE, StatementEventDetector.DEBEZIUM_INCIDENT_TEMPLATE,
                    StatementEventDetector.DEBEZIUM_TABLE_MAP_TEMPLATE, StatementEventDetector.DEBEZIUM_XA_PREPARE_TEMPLATE,
                    StatementEventDetector.DEBEZIUM_FILTERED_EVENT_TEMPLATE);
        }
        try (InputStream in = getClass().getClassLoader()
                .getResourceAsStream("io/debezium/connector/mariadb/MariaDbStreamingChangeEventSource.class")) {
            assertThat(in).isNotNull();
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8))
                    .contains(StatementEventDetector.MARIADB_GTID_TEMPLATE);
        }
    }

    @Test
    void theWarningIsSeenEvenWhenItsLoggerIsSwitchedOff() {
        List<String> seen = new ArrayList<>();
        StatementEventDetector detector = StatementEventDetector.install(change -> seen.add(change.detail()));
        ch.qos.logback.classic.Logger debezium = context().getLogger(StatementEventDetector.DEBEZIUM_LOGGER);
        Level before = debezium.getLevel();
        try {
            debezium.setLevel(Level.OFF);
            debezium.warn(StatementEventDetector.DEBEZIUM_TEMPLATE, "UPDATE shop.product SET name = 'x' WHERE id = 1");
            debezium.warn("Some other warning {}", "UPDATE t SET a = 1");
        } finally {
            debezium.setLevel(before);
            detector.uninstall();
        }
        debezium.warn(StatementEventDetector.DEBEZIUM_TEMPLATE, "after uninstall");

        assertThat(seen).containsExactly("UPDATE shop.product SET name = 'x' WHERE id = 1");
    }

    @Test
    void theWarningIsSeenWhenAnAncestorLoggerIsSilenced() {
        List<String> seen = new ArrayList<>();
        StatementEventDetector detector = StatementEventDetector.install(change -> seen.add(change.detail()));
        ch.qos.logback.classic.Logger ancestor = context().getLogger("io.debezium");
        Level before = ancestor.getLevel();
        try {
            ancestor.setLevel(Level.ERROR);
            context().getLogger(StatementEventDetector.DEBEZIUM_LOGGER)
                    .warn(StatementEventDetector.DEBEZIUM_TEMPLATE, "DELETE FROM t");
        } finally {
            ancestor.setLevel(before);
            context().getLogger(StatementEventDetector.DEBEZIUM_LOGGER).setLevel(null);
            detector.uninstall();
        }

        assertThat(seen).containsExactly("DELETE FROM t");
    }

    @Test
    void theWarningIsSeenAfterTheLoggingContextIsReset() throws Exception {
        List<String> seen = new ArrayList<>();
        StatementEventDetector detector = StatementEventDetector.install(change -> seen.add(change.detail()));
        try {
            context().reset();
            new ContextInitializer(context()).autoConfig();
            context().getLogger(StatementEventDetector.DEBEZIUM_LOGGER)
                    .warn(StatementEventDetector.DEBEZIUM_TEMPLATE, "INSERT INTO t VALUES (1)");
        } finally {
            detector.uninstall();
        }

        assertThat(seen).containsExactly("INSERT INTO t VALUES (1)");
    }

    @Test
    void theWarningIsSeenAfterSpringBootReinitialisesLogging() {
        // Spring Boot's LogbackLoggingSystem (re)initialises with loggerContext.stop() then reset(): stop() drops
        // every context listener, reset-resistant or not, and the reset detaches every appender
        List<String> seen = new ArrayList<>();
        StatementEventDetector detector = StatementEventDetector.install(change -> seen.add(change.detail()));
        LoggingSystem system = LoggingSystem.get(getClass().getClassLoader());
        try {
            system.cleanUp();
            system.beforeInitialize();
            system.initialize(new LoggingInitializationContext(new StandardEnvironment()), null, null);
            context().getLogger("io.debezium").setLevel(Level.ERROR);
            context().getLogger(StatementEventDetector.DEBEZIUM_LOGGER)
                    .warn(StatementEventDetector.DEBEZIUM_TEMPLATE, "UPDATE t SET a = 2");
        } finally {
            context().getLogger("io.debezium").setLevel(null);
            context().getLogger(StatementEventDetector.DEBEZIUM_LOGGER).setLevel(null);
            detector.uninstall();
            system.cleanUp();
        }

        assertThat(seen).containsExactly("UPDATE t SET a = 2");
    }

    @Test
    void aFailureToActOnTheWarningReachesDebeziumsEventHandler() {
        // The heartbeat row with the new epoch could not be written: Debezium's handler must see the exception on
        // the binlog thread (it fails the engine) before an offset past the statement can be stored.
        StatementEventDetector detector = StatementEventDetector.install(change -> {
            throw new IllegalStateException("Could not write the heartbeat row with the new epoch");
        });
        try {
            assertThatThrownBy(() -> context().getLogger(StatementEventDetector.DEBEZIUM_LOGGER)
                    .warn(StatementEventDetector.DEBEZIUM_TEMPLATE, "UPDATE t SET a = 3"))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("heartbeat row");
        } finally {
            detector.uninstall();
        }
    }

    @Test
    void theOnlyTurboFilterItAddsIsThePassage() {
        StatementEventDetector detector = StatementEventDetector.install(change -> { });
        try {
            // a turbo filter runs on every logging call before the level check: per binlog row
            assertThat(context().getTurboFilterList()).singleElement()
                    .isInstanceOf(StatementEventDetector.Passage.class);
        } finally {
            detector.uninstall();
        }
        assertThat(context().getTurboFilterList()).isEmpty();
    }

    @Test
    void aReplaceThatDebeziumsDdlFilterDropsIsSeenAtAnyLevel() {
        List<String> seen = new ArrayList<>();
        StatementEventDetector detector = StatementEventDetector.install(change -> seen.add(change.detail()));
        ch.qos.logback.classic.Logger debezium = context().getLogger(StatementEventDetector.DEBEZIUM_LOGGER);
        try {
            assertThat(debezium.isDebugEnabled()).as("Debezium's DEBUG line is disabled").isFalse();
            for (String sql : List.of("REPLACE INTO shop.product VALUES (1, 'x')",
                    "SET STATEMENT max_statement_time=10 FOR replace into t values (2)",
                    "REPLACE INTO item VALUES (3, 'see rds_monitor')",
                    "SET STATEMENT max_statement_time=5 FOR UPDATE item SET note='replace into x' WHERE id=4",
                    "SAVEPOINT s1", "REPLACE INTO mysql.rds_heartbeat2(id, value) values (1, 2)",
                    "INSERT INTO rds_heartbeat2(id, value) values (1, 2) ON DUPLICATE KEY UPDATE value = 3",
                    "DELETE FROM mysql.rds_sysinfo where name = 'x'", "DROP TEMPORARY TABLE IF EXISTS t",
                    "CREATE OR REPLACE VIEW v AS SELECT 1")) {
                debezium.debug(StatementEventDetector.DEBEZIUM_FILTERED_TEMPLATE, sql);
            }
        } finally {
            detector.uninstall();
        }

        assertThat(seen).containsExactly("REPLACE INTO shop.product VALUES (1, 'x')",
                "SET STATEMENT max_statement_time=10 FOR replace into t values (2)",
                "REPLACE INTO item VALUES (3, 'see rds_monitor')",
                "SET STATEMENT max_statement_time=5 FOR UPDATE item SET note='replace into x' WHERE id=4");
    }

    @Test
    void aRowChangeInAFormDebeziumDoesNotRecogniseIsSeenFromItsQueryLineOnce() {
        List<String> seen = new ArrayList<>();
        StatementEventDetector detector = StatementEventDetector.install(change -> seen.add(change.detail()));
        ch.qos.logback.classic.Logger debezium = context().getLogger(StatementEventDetector.DEBEZIUM_LOGGER);
        try {
            for (String sql : List.of("/* job 7 */ UPDATE item SET a = 1 WHERE id = 2",
                    "set statement max_statement_time=5 for delete from item where id = 3",
                    "# generated\n  -- by a tool\n INSERT INTO item VALUES (4)", "BEGIN", "COMMIT",
                    "CREATE TABLE updates (id INT)", "INSERT INTO mysql.rds_heartbeat2(id, value) values (1, 2)",
                    "SAVEPOINT s1")) {
                debezium.debug(StatementEventDetector.DEBEZIUM_QUERY_TEMPLATE, queryEvent(sql, false));
            }
            // a plain statement: its query line first, then Debezium's own warning about it, counted once
            debezium.debug(StatementEventDetector.DEBEZIUM_QUERY_TEMPLATE, queryEvent("UPDATE t SET a = 5", true));
            debezium.warn(StatementEventDetector.DEBEZIUM_TEMPLATE, "UPDATE t SET a = 5");
            debezium.debug(StatementEventDetector.DEBEZIUM_QUERY_TEMPLATE,
                    queryEvent("REPLACE INTO t VALUES (6)", false));
            debezium.debug(StatementEventDetector.DEBEZIUM_FILTERED_TEMPLATE, "REPLACE INTO t VALUES (6)");
        } finally {
            detector.uninstall();
        }

        assertThat(seen).containsExactly("/* job 7 */ UPDATE item SET a = 1 WHERE id = 2",
                "set statement max_statement_time=5 for delete from item where id = 3",
                "# generated\n  -- by a tool\n INSERT INTO item VALUES (4)", "UPDATE t SET a = 5",
                "REPLACE INTO t VALUES (6)");
    }

    @Test
    void everyFormOfARowChangeIsTakenForOneAndNothingElse() {
        assertThat(List.of("/*!50000 UPDATE t SET a = 1 */", "/*M!100100 DELETE FROM t */",
                "WITH c AS (SELECT 1 AS id) UPDATE t JOIN c ON t.id = c.id SET a = 1", "SELECT `shop`.`bump_stock`(1)",
                "SET STATEMENT sql_mode='NO_ENGINE_SUBSTITUTION,STRICT_ALL_TABLES' FOR UPDATE t SET a = 1",
                "set statement max_statement_time=5 for /* c */ delete from t", "-- c\r\nUPDATE t SET a = 2",
                "SET STATEMENT x=1 FOR UPDATE t SET note = 'x FOR y'", "REPLACE LOW_PRIORITY INTO t VALUES (1)"))
                .allSatisfy(sql -> assertThat(UnreadableChangeClassifier.isRowChangeStatement(sql)).as(sql).isTrue());
        assertThat(List.of("SET STATEMENT lock_wait_timeout=5 FOR ALTER TABLE t COMMENT 'used for update tracking'",
                "CREATE TABLE updates (id INT)", "INSERT INTO mysql.rds_heartbeat2(id, value) values (1, 2)",
                "REPLACE INTO `rds_heartbeat2` VALUES (1)", "BEGIN", "SAVEPOINT s1", "# Dummy event", "",
                "/* unterminated"))
                .allSatisfy(sql -> assertThat(UnreadableChangeClassifier.isRowChangeStatement(sql)).as(sql).isFalse());
    }

    @Test
    void noStatementMakesTheClassificationBacktrackOrOverflowTheStack() {
        // the binlog thread runs it for every query event: these took minutes or threw StackOverflowError in a regex
        List<String> statements = List.of("SET STATEMENT a=1 FOR" + " ".repeat(60) + "ALTER TABLE t ADD c INT",
                "\n" + "\t".repeat(60) + "CREATE TABLE t (a INT)", "-- x\n".repeat(20_000) + "CREATE TABLE t (a INT)",
                "/* c */" + " ".repeat(200_000) + "CREATE TABLE t (a INT)",
                "SET STATEMENT " + "a='x',".repeat(20_000) + " ALTER TABLE t ADD c INT");
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> statements
                .forEach(sql -> assertThat(UnreadableChangeClassifier.isRowChangeStatement(sql)).isFalse()));
    }

    @Test
    void anEventDebeziumSkipsThatMayHaveChangedRowsIsSeenAtAnyLevel() {
        List<UnreadableChange> seen = new ArrayList<>();
        ch.qos.logback.classic.Logger debezium = context().getLogger(StatementEventDetector.DEBEZIUM_LOGGER);
        debezium.setLevel(Level.INFO);
        StatementEventDetector detector = StatementEventDetector.install(seen::add);
        try {
            // an event group starts (another test on this thread may have left a table map open)
            context().getLogger(StatementEventDetector.MARIADB_LOGGER).debug(StatementEventDetector.MARIADB_GTID_TEMPLATE,
                    "0-1-9");
            // a compressed MariaDB event arrives as UNKNOWN; LOAD DATA as a statement as EXECUTE_LOAD_QUERY
            for (EventType type : List.of(EventType.UNKNOWN, EventType.EXECUTE_LOAD_QUERY, EventType.BEGIN_LOAD_QUERY,
                    EventType.FORMAT_DESCRIPTION, EventType.INTVAR, EventType.USER_VAR, EventType.PREVIOUS_GTIDS,
                    EventType.PARTIAL_UPDATE_ROWS_EVENT)) {
                EventHeaderV4 header = new EventHeaderV4();
                header.setEventType(type);
                debezium.trace(StatementEventDetector.DEBEZIUM_IGNORED_TEMPLATE, new Event(header, null));
            }
            debezium.trace(StatementEventDetector.DEBEZIUM_IGNORED_TEMPLATE, "not an event");
        } finally {
            detector.uninstall();
            debezium.setLevel(null);
        }
        // the undecodable one came after no table map: a query event, perhaps a schema change
        assertThat(seen).extracting(UnreadableChange::kind).containsExactly(UnreadableChange.Kind.UNREADABLE_QUERY_EVENT,
                UnreadableChange.Kind.STATEMENT, UnreadableChange.Kind.UNREADABLE_EVENT);
        assertThat(seen.get(0).detail()).contains("log_bin_compress=ON");
        assertThat(seen.get(1).detail()).isEqualTo("LOAD DATA logged as a statement");
        assertThat(seen.get(2).detail()).contains("PARTIAL_JSON");
    }

    @Test
    void anUndecodableEventIsARowEventOnlyAfterATableMapOfItsEventGroup() {
        List<UnreadableChange> seen = new ArrayList<>();
        ch.qos.logback.classic.Logger debezium = context().getLogger(StatementEventDetector.DEBEZIUM_LOGGER);
        ch.qos.logback.classic.Logger mariaDb = context().getLogger(StatementEventDetector.MARIADB_LOGGER);
        debezium.setLevel(Level.INFO);
        StatementEventDetector detector = StatementEventDetector.install(seen::add);
        try {
            // as the binlog holds them: a compressed update of a captured table, then of a table not captured (whose
            // table map Debezium passes over with a TRACE line), then a compressed ALTER in an event group of its own
            mariaDb.debug(StatementEventDetector.MARIADB_GTID_TEMPLATE, "0-1-1");
            debezium.debug(StatementEventDetector.DEBEZIUM_TABLE_MAP_TEMPLATE, "table map of shop.coupon");
            debezium.trace(StatementEventDetector.DEBEZIUM_IGNORED_TEMPLATE, unknownEvent());
            debezium.trace(StatementEventDetector.DEBEZIUM_IGNORED_TEMPLATE, unknownEvent());
            mariaDb.debug(StatementEventDetector.MARIADB_GTID_TEMPLATE, "0-1-2");
            debezium.trace(StatementEventDetector.DEBEZIUM_FILTERED_EVENT_TEMPLATE, EventType.TABLE_MAP, "shop.audit");
            debezium.trace(StatementEventDetector.DEBEZIUM_IGNORED_TEMPLATE, unknownEvent());
            mariaDb.debug(StatementEventDetector.MARIADB_GTID_TEMPLATE, "0-1-3");
            debezium.trace(StatementEventDetector.DEBEZIUM_IGNORED_TEMPLATE, unknownEvent());
            // a statement after rows in one group (MIXED): what follows it is no row event until the next table map
            mariaDb.debug(StatementEventDetector.MARIADB_GTID_TEMPLATE, "0-1-4");
            debezium.debug(StatementEventDetector.DEBEZIUM_TABLE_MAP_TEMPLATE, "table map of shop.coupon");
            debezium.trace(StatementEventDetector.DEBEZIUM_FILTERED_EVENT_TEMPLATE, EventType.WRITE_ROWS, "shop.audit");
            debezium.debug(StatementEventDetector.DEBEZIUM_QUERY_TEMPLATE, queryEvent("SAVEPOINT `a`", false));
            debezium.trace(StatementEventDetector.DEBEZIUM_IGNORED_TEMPLATE, unknownEvent());
        } finally {
            detector.uninstall();
            debezium.setLevel(null);
        }
        assertThat(seen).extracting(UnreadableChange::kind).containsExactly(UnreadableChange.Kind.UNREADABLE_EVENT,
                UnreadableChange.Kind.UNREADABLE_EVENT, UnreadableChange.Kind.UNREADABLE_EVENT,
                UnreadableChange.Kind.UNREADABLE_QUERY_EVENT, UnreadableChange.Kind.UNREADABLE_QUERY_EVENT);
        assertThat(seen.get(3).detail()).contains("a schema change");
    }

    private static Event unknownEvent() {
        EventHeaderV4 header = new EventHeaderV4();
        header.setEventType(EventType.UNKNOWN);
        return new Event(header, null);
    }

    @Test
    void theCommitOfAPreparedXaTransactionIsSeenFromItsQueryLine() {
        List<UnreadableChange> seen = new ArrayList<>();
        ch.qos.logback.classic.Logger debezium = context().getLogger(StatementEventDetector.DEBEZIUM_LOGGER);
        debezium.setLevel(Level.INFO);
        StatementEventDetector detector = StatementEventDetector.install(seen::add);
        try {
            // as MariaDB and MySQL log them: the rows came with XA PREPARE, earlier in the binlog
            for (String sql : List.of("XA START X'7831',X'',1", "XA END X'7831',X'',1", "XA COMMIT X'7831',X'',1",
                    "XA ROLLBACK X'7832',X'',1", "xa commit 'x3'")) {
                debezium.debug(StatementEventDetector.DEBEZIUM_QUERY_TEMPLATE, queryEvent(sql, false));
            }
        } finally {
            detector.uninstall();
            debezium.setLevel(null);
        }
        assertThat(seen).extracting(UnreadableChange::kind).containsOnly(UnreadableChange.Kind.XA_COMMIT);
        // neither commit's transaction was read prepared: both count
        assertThat(seen).extracting(UnreadableChange::detail).containsExactly("XA COMMIT X'7831',X'',1",
                "xa commit 'x3'");
        assertThat(List.of("XA COMMIT 'x' ONE PHASE", "XA COMMIT 'x' one  phase;", "XA COMMITTED", "XA PREPARE 'x'",
                "/* c */ XA RECOVER", "XAC")).allSatisfy(sql ->
                assertThat(UnreadableChangeClassifier.isXaCommitOfPrepared(sql)).as(sql).isFalse());
        assertThat(UnreadableChangeClassifier.isXaCommitOfPrepared("/* tm */ XA COMMIT 'x', 'b', 3")).isTrue();
    }

    @Test
    void aCreateTableIsOfACapturedTableOnlyWhenItCreatesOne() {
        SchemaChangeScope scope = new SchemaChangeScope(List.of(new dev.cdccache.connector.config.CapturedTable(
                "shop", "orders")));
        assertThat(List.of("CREATE TABLE orders (id INT PRIMARY KEY)", "/* job */ create table if not exists `shop`.`orders`"
                + " (id INT)", "CREATE TABLE shop.orders LIKE shop.orders_template"))
                .allSatisfy(sql -> assertThat(scope.createsCapturedTable(sql, "shop")).as(sql).isTrue());
        // an online schema change tool's copy, a table that refers to it or is filled from it, another database's
        assertThat(List.of("CREATE TABLE _orders_gho LIKE orders", "CREATE TABLE lines (o INT REFERENCES orders(id))",
                "CREATE TABLE report AS SELECT * FROM orders", "CREATE TABLE other.orders (id INT)",
                "CREATE TEMPORARY TABLE orders (id INT)", "CREATE TABLE orders_archive (id INT)"))
                .allSatisfy(sql -> assertThat(scope.createsCapturedTable(sql, "shop")).as(sql).isFalse());
    }

    @Test
    void aSchemaChangeConcernsTheCapturedTablesOnlyWhenItNamesOneOfThemOrTheirDatabase() {
        SchemaChangeScope scope = new SchemaChangeScope(List.of(new dev.cdccache.connector.config.CapturedTable(
                "shop", "coupon"), new dev.cdccache.connector.config.CapturedTable("shop", "coupon_lot")));
        assertThat(List.of("RENAME TABLE coupon TO coupon_old, coupon_new TO coupon",
                "rename table `shop`.`coupon_gho` to `shop`.`coupon`", "ALTER TABLE shop.coupon MODIFY name VARCHAR(10)",
                "/* gh-ost */ ALTER ONLINE IGNORE TABLE `coupon_lot` ADD COLUMN x INT", "DROP TABLE IF EXISTS coupon",
                "CREATE OR REPLACE TABLE coupon_lot (id INT PRIMARY KEY)", "DROP DATABASE shop", "drop schema `shop`",
                "SET STATEMENT lock_wait_timeout=5 FOR ALTER TABLE coupon ENGINE=InnoDB",
                "RENAME TABLES coupon TO coupon_old, coupon_new TO coupon", "DROP TABLES coupon, coupon_lot",
                "ALTER IGNORE ONLINE TABLE coupon ADD COLUMN x INT",
                "SET STATEMENT note='it\\'s FOR x' FOR DROP TABLE coupon"))
                .allSatisfy(sql -> assertThat(scope.concernsCaptured(sql)).as(sql).isTrue());
        // the database a name is qualified with, or else the statement's default database, decides
        assertThat(scope.concernsCaptured("ALTER TABLE tenant7.coupon ADD y INT", "shop")).isFalse();
        assertThat(scope.concernsCaptured("ALTER TABLE coupon ADD y INT", "tenant7")).isFalse();
        assertThat(scope.concernsCaptured("RENAME TABLE `tenant7`.`coupon` TO `shop`.`coupon`", "other")).isTrue();
        assertThat(scope.concernsCaptured("ALTER TABLE coupon ADD y INT", "shop")).isTrue();
        assertThat(scope.concernsCaptured("ALTER TABLE coupon ADD y INT", "")).as("no default database").isTrue();
        assertThat(List.of("ALTER TABLE coupon_archive ADD COLUMN x INT", "RENAME TABLE orders TO orders_old",
                "DROP TEMPORARY TABLE IF EXISTS coupon", "CREATE TABLE coupon_copy LIKE coupon",
                "DROP DATABASE shop_archive", "ALTER DATABASE shop CHARACTER SET utf8mb4", "OPTIMIZE TABLE coupon",
                "UPDATE coupon SET name = 'ALTER TABLE coupon'", "DROP VIEW coupon_view", "TRUNCATE TABLE coupon"))
                .allSatisfy(sql -> assertThat(scope.concernsCaptured(sql)).as(sql).isFalse());
    }

    @Test
    void aSchemaChangeIsHandedToTheDetectorsFromItsQueryLine() {
        List<UnreadableChange> seen = new ArrayList<>();
        ch.qos.logback.classic.Logger debezium = context().getLogger(StatementEventDetector.DEBEZIUM_LOGGER);
        debezium.setLevel(Level.INFO);
        StatementEventDetector detector = StatementEventDetector.install(seen::add);
        try {
            for (String sql : List.of("RENAME TABLE coupon TO coupon_old, coupon_new TO coupon",
                    "CREATE TABLE coupon_new (id INT PRIMARY KEY)", "BEGIN")) {
                debezium.debug(StatementEventDetector.DEBEZIUM_QUERY_TEMPLATE, queryEvent(sql, false));
            }
        } finally {
            detector.uninstall();
            debezium.setLevel(null);
        }
        assertThat(seen).containsExactly(new UnreadableChange(UnreadableChange.Kind.SCHEMA_CHANGE,
                "RENAME TABLE coupon TO coupon_old, coupon_new TO coupon"));
        assertThat(ContinuityState.abbreviate("RENAME TABLE coupon TO coupon_old, coupon_new TO coupon"))
                .isEqualTo("RENAME TABLE coupon ...");
        assertThat(ContinuityState.abbreviate("rename /* gh-ost */ tables `shop`.`coupon` to `shop`.`_coupon_del`"))
                .as("a comment inside is not skipped, but one in front is").isEqualTo("a statement");
        assertThat(ContinuityState.abbreviate("/* gh-ost */ ALTER TABLE IF EXISTS coupon ADD x INT"))
                .isEqualTo("ALTER TABLE IF EXISTS coupon ...");
        assertThat(ContinuityState.abbreviate("SET STATEMENT max_statement_time=5 FOR DROP TABLES coupon"))
                .isEqualTo("DROP TABLES coupon ...");
    }

    @Test
    void anIncidentEventDebeziumReadsOnPastIsHandedToTheDetectors() {
        List<UnreadableChange> seen = new ArrayList<>();
        StatementEventDetector detector = StatementEventDetector.install(seen::add);
        try {
            EventHeaderV4 header = new EventHeaderV4();
            header.setEventType(EventType.INCIDENT);
            context().getLogger(StatementEventDetector.DEBEZIUM_LOGGER)
                    .error(StatementEventDetector.DEBEZIUM_INCIDENT_TEMPLATE, new Event(header, null));
            context().getLogger("some.other.Logger").error(StatementEventDetector.DEBEZIUM_INCIDENT_TEMPLATE, "x");
        } finally {
            detector.uninstall();
        }
        assertThat(seen).containsExactly(new UnreadableChange(UnreadableChange.Kind.INCIDENT, "an incident event"));
        ContinuityState state = new ContinuityState();
        state.set(new Continuity("epoch-1", Continuity.Verdict.RESUMED, "resumed", "", Instant.EPOCH));
        state.renewFor(seen.get(0), Clock.systemUTC());
        assertThat(state.current().orElseThrow().verdict()).isEqualTo(Continuity.Verdict.SERVER_INCIDENT);
        assertThat(state.current().orElseThrow().action()).contains("max_binlog_cache_size");
    }

    @Test
    void theCommitOfAnXaTransactionWithoutCapturedRowsIsNotHandedOn() {
        List<UnreadableChange> seen = new ArrayList<>();
        ch.qos.logback.classic.Logger debezium = context().getLogger(StatementEventDetector.DEBEZIUM_LOGGER);
        debezium.setLevel(Level.INFO);
        StatementEventDetector detector = StatementEventDetector.install(seen::add);
        try {
            // as the binlog holds them: other-app (no captured table mapped), then order (a captured table mapped)
            for (String xid : List.of("other-app", "order")) {
                if (xid.equals("order")) { // MySQL logs XA START as a query; MariaDB writes it into the GTID event
                    debezium.debug(StatementEventDetector.DEBEZIUM_QUERY_TEMPLATE,
                            queryEvent("XA START X'" + hex(xid) + "',X'',1", false));
                } else {
                    context().getLogger(StatementEventDetector.MARIADB_LOGGER)
                            .debug(StatementEventDetector.MARIADB_GTID_TEMPLATE, "0-1-5");
                }
                if (xid.equals("order")) {
                    debezium.debug(StatementEventDetector.DEBEZIUM_TABLE_MAP_TEMPLATE, "table map of shop.coupon");
                }
                debezium.debug(StatementEventDetector.DEBEZIUM_QUERY_TEMPLATE,
                        queryEvent("XA END X'" + hex(xid) + "',X'',1", false));
                debezium.debug(StatementEventDetector.DEBEZIUM_XA_PREPARE_TEMPLATE, xaPrepareEvent(xid));
            }
            for (String xid : List.of("other-app", "order", "before-start")) {
                debezium.debug(StatementEventDetector.DEBEZIUM_QUERY_TEMPLATE,
                        queryEvent("XA COMMIT X'" + hex(xid) + "',X'',1", false));
            }
        } finally {
            detector.uninstall();
            debezium.setLevel(null);
        }
        assertThat(seen).extracting(UnreadableChange::detail).containsExactly("XA COMMIT X'" + hex("order") + "',X'',1",
                "XA COMMIT X'" + hex("before-start") + "',X'',1");
    }

    private static String hex(String xid) {
        return java.util.HexFormat.of().withUpperCase().formatHex(xid.getBytes(StandardCharsets.UTF_8));
    }

    private static Event xaPrepareEvent(String gtrid) {
        com.github.shyiko.mysql.binlog.event.XAPrepareEventData data =
                new com.github.shyiko.mysql.binlog.event.XAPrepareEventData();
        data.setFormatID(1);
        data.setGtridLength(gtrid.length());
        data.setBqualLength(0);
        data.setData(gtrid.getBytes(StandardCharsets.UTF_8));
        EventHeaderV4 header = new EventHeaderV4();
        header.setEventType(EventType.XA_PREPARE);
        return new Event(header, data);
    }

    @Test
    void theSameStatementRepeatedRenewsEveryTimeButIsLoggedOnceInTenSeconds() {
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        context().getLogger(ContinuityState.class).addAppender(logged);
        try {
            ContinuityState state = new ContinuityState();
            Clock clock = Clock.systemUTC();
            state.set(new Continuity("epoch-1", Continuity.Verdict.RESUMED, "resumed", "", clock.instant()));
            java.util.Set<String> epochs = new java.util.HashSet<>();
            for (int i = 0; i < 5; i++) {
                epochs.add(state.renewForStatement("UPDATE shop.product SET stock = " + i, clock));
            }
            epochs.add(state.renewForStatement("DELETE FROM shop.product WHERE id = 1", clock));
            epochs.add(state.renewForStatement("UPDATE shop.product SET stock = 9", clock));
            for (int i = 0; i < 1_000; i++) { // two forms alternating: each is logged once in ten seconds still
                state.renewForStatement(i % 2 == 0 ? "UPDATE shop.a SET x = 1" : "UPDATE shop.b SET x = 1", clock);
            }
            assertThat(epochs).hasSize(7);
            assertThat(logged.list).extracting(ILoggingEvent::getFormattedMessage).hasSize(4)
                    .satisfies(lines -> {
                        assertThat(lines.get(0)).contains("(UPDATE shop.product ...)");
                        assertThat(lines.get(1)).contains("(DELETE FROM shop.product ...)");
                        assertThat(lines.get(2)).contains("(UPDATE shop.a ...)");
                        assertThat(lines.get(3)).contains("(UPDATE shop.b ...)");
                    });
        } finally {
            context().getLogger(ContinuityState.class).detachAppender(logged);
        }
    }

    @Test
    void anUnreadableEventReplacesTheEpochAndTheHealthNamesTheServerSetting() {
        ContinuityState state = new ContinuityState();
        Clock clock = Clock.fixed(Instant.parse("2026-12-06T05:00:00Z"), java.time.ZoneOffset.UTC);
        state.set(new Continuity("epoch-1", Continuity.Verdict.RESUMED, "resumed", "", clock.instant()));

        String renewed = state.renewForUnreadableEvent("an event of a type the binlog reader cannot decode", clock);

        assertThat(renewed).isNotNull().isNotEqualTo("epoch-1").isEqualTo(state.epochOrNull());
        Continuity now = state.current().orElseThrow();
        assertThat(now.verdict()).isEqualTo(Continuity.Verdict.UNREADABLE_EVENT_IN_BINLOG);
        assertThat(now.gap()).isTrue();
        assertThat(now.message()).contains("cannot decode", "epoch-1", renewed);
        assertThat(now.action()).contains("log_bin_compress=OFF");
        assertThat(ContinuityState.abbreviate("LOAD DATA logged as a statement")).isEqualTo("LOAD DATA ...");
    }

    /** A query event as the binlog client delivers it; {@code wrapped}: inside the deserializer's wrapper. */
    private static Event queryEvent(String sql, boolean wrapped) {
        QueryEventData data = new QueryEventData();
        data.setSql("  " + sql + " ");
        EventHeaderV4 header = new EventHeaderV4();
        header.setEventType(EventType.QUERY);
        return new Event(header, wrapped ? new EventDeserializer.EventDataWrapper(data, data) : data);
    }

    @Test
    void aFailureToActOnAFilteredReplaceReachesDebeziumsEventHandlerEvenAsAnIndexError() {
        StatementEventDetector detector = StatementEventDetector.install(change -> {
            throw new IndexOutOfBoundsException("a failure Logback would swallow from a lone turbo filter");
        });
        try {
            assertThatThrownBy(() -> context().getLogger(StatementEventDetector.DEBEZIUM_LOGGER)
                    .debug(StatementEventDetector.DEBEZIUM_FILTERED_TEMPLATE, "REPLACE INTO t VALUES (1)"))
                    .isInstanceOf(IllegalStateException.class);
        } finally {
            detector.uninstall();
        }
    }

    @Test
    void uninstallingOneOfTwoDetectorsLeavesThePassageOfTheOther() {
        List<String> seen = new ArrayList<>();
        StatementEventDetector first = StatementEventDetector.install(change -> { });
        StatementEventDetector second = StatementEventDetector.install(change -> seen.add(change.detail()));
        try {
            first.uninstall();
            assertThat(second.passageHolds()).isTrue();
            context().getLogger(StatementEventDetector.DEBEZIUM_LOGGER)
                    .debug(StatementEventDetector.DEBEZIUM_FILTERED_TEMPLATE, "REPLACE INTO t VALUES (1)");
            assertThat(seen).containsExactly("REPLACE INTO t VALUES (1)");
        } finally {
            second.uninstall();
        }
    }

    @Test
    void aDuplicateMessageFilterCannotHideARepeatedStatement() {
        DuplicateMessageFilter duplicates = new DuplicateMessageFilter();
        duplicates.setName("repeats");
        duplicates.setAllowedRepetitions(0);
        duplicates.start();
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        ch.qos.logback.classic.Logger own = context().getLogger(StatementEventDetector.class);
        own.addAppender(logged);
        ListAppender<ILoggingEvent> continuityErrors = new ListAppender<>();
        continuityErrors.start();
        context().getLogger(ContinuityState.class).addAppender(continuityErrors);
        context().addTurboFilter(duplicates);
        List<String> seen = new ArrayList<>();
        StatementEventDetector detector = StatementEventDetector.install(change -> seen.add(change.detail()));
        try {
            context().getLogger("io.debezium").setLevel(Level.INFO); // a level change with the same filters
            for (int i = 0; i < 5; i++) {
                context().getLogger(StatementEventDetector.DEBEZIUM_LOGGER)
                        .warn(StatementEventDetector.DEBEZIUM_TEMPLATE, "UPDATE t SET a = a + 1");
            }
            assertThat(seen).hasSize(5);
            // the connector's own continuity errors get through the filter too
            for (int i = 0; i < 5; i++) {
                LoggerFactory.getLogger(ContinuityState.class).error("Continuity gap: {} What to do: {}", "x", "y");
            }
            assertThat(continuityErrors.list).hasSize(5);
            assertThat(logged.list).filteredOn(e -> e.getFormattedMessage().contains("turbo filters are configured"))
                    .singleElement()
                    .satisfies(e -> assertThat(e.getFormattedMessage())
                            .contains("repeats (" + DuplicateMessageFilter.class.getName() + ")")
                            .contains(StatementEventDetector.DEBEZIUM_LOGGER));
        } finally {
            context().getLogger("io.debezium").setLevel(null);
            detector.uninstall();
            context().getTurboFilterList().remove(duplicates);
            own.detachAppender(logged);
            context().getLogger(ContinuityState.class).detachAppender(continuityErrors);
        }
        assertThat(context().getTurboFilterList()).as("uninstall takes the passage out").isEmpty();
    }

    @Test
    void aTurboFilterAddedByCodeAfterInstallIsPutBehindThePassageAndStillSeesTheWarning() {
        List<String> asked = new ArrayList<>();
        TurboFilter denyAll = new TurboFilter() {
            @Override
            public FilterReply decide(Marker marker, ch.qos.logback.classic.Logger logger, Level level, String format,
                    Object[] params, Throwable t) {
                if (StatementEventDetector.DEBEZIUM_TEMPLATE.equals(format)) {
                    asked.add(String.valueOf(params[0])); // a counting filter (log-event metrics) still counts it
                }
                return FilterReply.DENY;
            }
        };
        denyAll.start();
        List<String> seen = new ArrayList<>();
        StatementEventDetector detector = StatementEventDetector.install(change -> seen.add(change.detail()));
        try {
            context().addTurboFilter(denyAll); // no reset, no level change: only the periodic check sees it
            await().atMost(Duration.ofMillis(5 * StatementEventDetector.PASSAGE_CHECK_MILLIS))
                    .until(detector::passageHolds);
            context().getLogger(StatementEventDetector.DEBEZIUM_LOGGER)
                    .warn(StatementEventDetector.DEBEZIUM_TEMPLATE, "DELETE FROM t WHERE a = 1");
            context().getLogger(StatementEventDetector.DEBEZIUM_LOGGER).warn("Some other warning");
            assertThat(seen).containsExactly("DELETE FROM t WHERE a = 1");
            assertThat(asked).containsExactly("DELETE FROM t WHERE a = 1");

            context().getTurboFilterList().remove(denyAll);
            assertThat(detector.passageHolds()).isTrue();
        } finally {
            context().getTurboFilterList().remove(denyAll);
            detector.uninstall();
        }
    }

    @Test
    void twoDetectorsShareOnePassageInsteadOfReplacingEachOthers() throws Exception {
        DuplicateMessageFilter duplicates = new DuplicateMessageFilter();
        duplicates.start();
        context().addTurboFilter(duplicates);
        StatementEventDetector first = StatementEventDetector.install(change -> { });
        StatementEventDetector second = StatementEventDetector.install(change -> { });
        try {
            TurboFilter head = context().getTurboFilterList().get(0);
            Thread.sleep(3 * StatementEventDetector.PASSAGE_CHECK_MILLIS);
            assertThat(context().getTurboFilterList().get(0)).isSameAs(head);
            assertThat(context().getTurboFilterList()).filteredOn(f -> f instanceof StatementEventDetector.Passage)
                    .hasSize(1);
        } finally {
            first.uninstall();
            second.uninstall();
            context().getTurboFilterList().remove(duplicates);
        }
    }

    @Test
    void aDenyingTurboFilterIsNotTakenForAQuietLevel() {
        TurboFilter denyAll = new TurboFilter() { // everything of io.debezium
            @Override
            public FilterReply decide(Marker marker, ch.qos.logback.classic.Logger logger, Level level, String format,
                    Object[] params, Throwable t) {
                return logger.getName().startsWith("io.debezium") ? FilterReply.DENY : FilterReply.NEUTRAL;
            }
        };
        denyAll.start();
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        ch.qos.logback.classic.Logger own = context().getLogger(StatementEventDetector.class);
        own.addAppender(logged);
        context().addTurboFilter(denyAll);
        StatementEventDetector detector = StatementEventDetector.install(change -> { });
        try {
            assertThat(logged.list).as("the INFO naming the filter is logged").isNotEmpty()
                    .noneMatch(e -> e.getFormattedMessage().contains("kept at WARN"));
            assertThat(context().getLogger(StatementEventDetector.DEBEZIUM_LOGGER).getLevel()).isNull();
        } finally {
            detector.uninstall();
            context().getTurboFilterList().remove(denyAll);
            own.detachAppender(logged);
        }
    }

    private static LoggerContext context() {
        return (LoggerContext) LoggerFactory.getILoggerFactory();
    }

    @Test
    void aStatementReplacesTheEpochAndTheHealthSaysSoWithoutTheStatementsValues() {
        ContinuityState state = new ContinuityState();
        Clock clock = Clock.fixed(Instant.parse("2026-11-26T03:00:00Z"), java.time.ZoneOffset.UTC);
        assertThat(state.renewForStatement("UPDATE t SET a = 1", clock)).as("before the start-up check").isNull();
        state.set(new Continuity("epoch-1", Continuity.Verdict.RESUMED, "resumed", "", clock.instant()));

        String renewed = state.renewForStatement("UPDATE shop.product SET name = 'secret' WHERE id = 1", clock);

        assertThat(renewed).isNotNull().isNotEqualTo("epoch-1").isEqualTo(state.epochOrNull());
        Continuity now = state.current().orElseThrow();
        assertThat(now.verdict()).isEqualTo(Continuity.Verdict.STATEMENT_IN_BINLOG);
        assertThat(now.gap()).isTrue();
        assertThat(now.message()).contains("UPDATE shop.product ...").doesNotContain("secret");
        assertThat(now.action()).contains("binlog_format=ROW");
    }
}
