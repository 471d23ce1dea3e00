package dev.cdccache.connector.startup;

import dev.cdccache.connector.config.CapturedTable;
import dev.cdccache.connector.config.ConnectorProperties.Flavor;
import dev.cdccache.connector.config.ConnectorProperties;
import dev.cdccache.contract.HeartbeatTable;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks, before the engine starts, what Debezium would otherwise report late or cryptically: the
 * database is reachable with the configured credentials, the binlog is on in ROW format with full
 * row images, the user holds the replication privileges, every captured table exists and has a primary key, the
 * server's binlog filters log every captured table ({@link #verifyBinlogFilters}), no
 * setting masks, hashes or truncates a key column ({@link KeyColumnCheck}), and a replica's heartbeat is written on its primary
 * ({@link ReplicaCheck}).
 */
public final class DatabaseCheck {

    private static final Logger log = LoggerFactory.getLogger(DatabaseCheck.class);
    private static final int ACCESS_DENIED = 1045;
    private static final int PARSE_ERROR = 1064;
    private static final Pattern GRANT_LINE = Pattern.compile("^GRANT (.+?) ON (\\S+) TO .*$", Pattern.CASE_INSENSITIVE);

    private final ConnectorProperties.Database database;
    private final List<CapturedTable> dataTables;
    private final Optional<CapturedTable> heartbeatTable;
    private final Optional<KeyColumnCheck> keyColumns;
    private final Optional<ReplicaCheck> replica;

    public DatabaseCheck(ConnectorProperties.Database database, List<CapturedTable> dataTables,
            Optional<CapturedTable> heartbeatTable) {
        this(database, dataTables, heartbeatTable, Optional.empty());
    }

    /** @param keyColumns refuses masks, hashes and truncations of key columns, once the tables are known to exist */
    public DatabaseCheck(ConnectorProperties.Database database, List<CapturedTable> dataTables,
            Optional<CapturedTable> heartbeatTable, Optional<KeyColumnCheck> keyColumns) {
        this(database, dataTables, heartbeatTable, keyColumns, Optional.empty());
    }

    /**
     * @param keyColumns refuses masks, hashes and truncations of key columns, once the tables are known to exist
     * @param replica refuses a replica whose heartbeat would be early (see {@link ReplicaCheck}); runs last
     */
    public DatabaseCheck(ConnectorProperties.Database database, List<CapturedTable> dataTables,
            Optional<CapturedTable> heartbeatTable, Optional<KeyColumnCheck> keyColumns, Optional<ReplicaCheck> replica) {
        this.database = database;
        this.dataTables = dataTables;
        this.heartbeatTable = heartbeatTable;
        this.keyColumns = keyColumns;
        this.replica = replica;
    }

    /** JDBC URL of the configured server (no database selected). */
    public static String jdbcUrl(ConnectorProperties.Database database) {
        return database.getFlavor() == Flavor.MYSQL
                ? "jdbc:mysql://" + database.getHost() + ":" + database.getPort()
                        + "/?connectTimeout=5000&socketTimeout=10000&allowPublicKeyRetrieval=true"
                : "jdbc:mariadb://" + database.getHost() + ":" + database.getPort()
                        + "/?connectTimeout=5000&socketTimeout=10000";
    }

    /** Opens a connection as the configured user, translating the usual failures into fixes. */
    public static Connection connect(ConnectorProperties.Database database) {
        return connect(database, ConnectorProperties.PREFIX + ".database");
    }

    /**
     * Opens a connection as the given user, translating the usual failures into fixes that name the settings under
     * {@code settings} (e.g. {@code cdc.connector.heartbeat.primary}).
     */
    public static Connection connect(ConnectorProperties.Database database, String settings) {
        Properties credentials = new Properties();
        credentials.setProperty("user", database.getUser());
        credentials.setProperty("password", database.getPassword());
        try {
            return DriverManager.getConnection(jdbcUrl(database), credentials);
        } catch (SQLException e) {
            String where = database.getHost() + ":" + database.getPort();
            if (e.getErrorCode() == ACCESS_DENIED) {
                throw accessDenied(database, settings, e);
            }
            throw new StartupCheckException("Cannot connect to the database at " + where + " as '" + database.getUser()
                    + "': " + e.getMessage(),
                    "Check " + settings + ".host and " + settings + ".port, that the server runs and"
                            + " accepts TCP connections from this host (bind-address, firewall).", e);
        }
    }

    /**
     * The failure for a refused login. Besides a wrong password or a missing user it names the cause that hides
     * behind an existing user: the anonymous accounts {@code mariadb-install-db} creates ({@code ''@'localhost'},
     * {@code ''@'<hostname>'}) are more specific than {@code 'user'@'%'}, so the server matches a connection from its
     * own host to them and refuses the password.
     */
    static StartupCheckException accessDenied(ConnectorProperties.Database database, String settings, SQLException e) {
        String user = database.getUser();
        return new StartupCheckException("The database at " + database.getHost() + ":" + database.getPort()
                + " refused user '" + user + "': access denied (wrong password, the user does not exist for this host,"
                + " or an anonymous account such as ''@'localhost' matches this connection before '" + user + "'@'%').",
                "Check " + settings + ".user and " + settings + ".password, and that the user may connect from this host"
                        + " (CREATE USER '" + user + "'@'%' ...). If the user exists, look for anonymous accounts as an"
                        + " administrator: SELECT user, host FROM mysql.user WHERE user = ''; and drop each one"
                        + " (DROP USER ''@'localhost'; DROP USER ''@'<host>';) unless something logs in with them.", e);
    }

    /**
     * Runs every check.
     *
     * @throws StartupCheckException on the first problem, with the fix
     */
    public void verify() {
        try (Connection connection = connect(database)) {
            verifyBinlog(connection);
            verifyPrivileges(connection);
            verifyTablesExist(connection);
            ReplicationFilters binlogFilters = verifyBinlogFilters(connection);
            if (binlogFilters.hasDatabaseRules()) {
                log.warn(DDL_UNDER_DATABASE_RULES, where(), binlogFilters);
            }
            verifyPrimaryKeys(connection);
            if (keyColumns.isPresent()) {
                keyColumns.get().verify(connection);
            }
            if (replica.isPresent()) {
                replica.get().verify(connection);
            }
        } catch (SQLException e) {
            throw new StartupCheckException("Checking the database failed: " + e.getMessage(),
                    "Check that the user cdc.connector.database.user may run SHOW VARIABLES and SHOW GRANTS.", e);
        }
    }

    /** The binlog is on, in ROW format, with full row images; {@code cdc-connector check} runs it on its own too. */
    public void verifyBinlog(Connection connection) throws SQLException {
        Map<String, String> variables = new HashMap<>();
        try (Statement statement = connection.createStatement()) {
            for (String name : List.of("log_bin", "binlog_format", "binlog_row_image", "log_bin_compress",
                    "binlog_row_value_options")) {
                try (ResultSet rs = statement.executeQuery("SHOW GLOBAL VARIABLES LIKE '" + name + "'")) {
                    if (rs.next()) {
                        variables.put(name, rs.getString(2));
                    }
                }
            }
        }
        String logBin = variables.getOrDefault("log_bin", "OFF");
        if (!"ON".equalsIgnoreCase(logBin) && !"1".equals(logBin)) {
            throw new StartupCheckException("The binary log is off on " + where() + " (log_bin=" + logBin + ").",
                    "Enable it in the server's configuration and restart the server: log-bin=mysql-bin,"
                            + " binlog_format=ROW, binlog_row_image=FULL, server_id=<unique number>.");
        }
        String format = variables.getOrDefault("binlog_format", "?");
        if (!"ROW".equalsIgnoreCase(format)) {
            throw new StartupCheckException("binlog_format is " + format + " on " + where() + "; change data capture needs ROW.",
                    "Set binlog_format=ROW in the server's configuration (or SET GLOBAL binlog_format='ROW' and reconnect"
                            + " the writers) and restart the server.");
        }
        String rowImage = variables.getOrDefault("binlog_row_image", "FULL");
        if (!"FULL".equalsIgnoreCase(rowImage)) {
            throw new StartupCheckException("binlog_row_image is " + rowImage + " on " + where() + "; the connector needs"
                    + " FULL. With " + rowImage + " an update or delete event leaves out columns ("
                    + ("NOBLOB".equalsIgnoreCase(rowImage) ? "unchanged BLOB and TEXT columns"
                            : "every column but the changed ones and the primary key")
                    + "): clients could not evict the caches keyed by the missing columns.",
                    rowImageFix());
        }
        // events Debezium has no handler for: it skips them, so the rows they changed would never reach a client
        String compress = variables.getOrDefault("log_bin_compress", "OFF");
        if ("ON".equalsIgnoreCase(compress) || "1".equals(compress)) {
            throw new StartupCheckException("log_bin_compress is ON on " + where() + ": MariaDB then writes compressed"
                    + " row and query events, which the connector cannot read; the rows they change would never reach"
                    + " the clients.",
                    "As an administrator run SET GLOBAL log_bin_compress = OFF; and set log_bin_compress=OFF under"
                            + " [mariadb] in the server's configuration file, so that a restart keeps it. Events"
                            + " compressed before that stay in the binlog: if the connector meets one, it starts a new"
                            + " epoch and clients drop their cached entries (docs/connector.md, \"Continuity and"
                            + " epochs\").");
        }
        String valueOptions = variables.getOrDefault("binlog_row_value_options", "");
        if (valueOptions.toUpperCase(java.util.Locale.ROOT).contains("PARTIAL_JSON")) {
            throw new StartupCheckException("binlog_row_value_options is " + valueOptions + " on " + where() + ": MySQL"
                    + " then logs an update of part of a JSON column as a partial update event, which the connector"
                    + " cannot read; the rows it changes would never reach the clients.",
                    "As an administrator run SET PERSIST binlog_row_value_options = ''; (or SET GLOBAL, and remove the"
                            + " setting from the server's configuration file). Sessions already open keep the old"
                            + " setting until they reconnect.");
        }
    }

    /**
     * The server logs the changes of every captured table and of the heartbeat table: its {@code binlog-do-db} /
     * {@code binlog-ignore-db} options leave none of them out. A change the server does not log never reaches the
     * connector, while the heartbeat goes on proving that every change before its time was published: clients would
     * keep a stale entry and call it fresh. {@code cdc-connector check} runs it on its own too.
     *
     * @return the filters, which log every captured table (the database rules among them deserve a warning, see
     *         {@link #DDL_UNDER_DATABASE_RULES})
     */
    public ReplicationFilters verifyBinlogFilters(Connection connection) throws SQLException {
        ReplicationFilters filters = binlogFilters(connection, database.getFlavor());
        if (filters.isEmpty()) {
            return filters;
        }
        List<String> skipped = filters.skipped(dataTables);
        List<String> heartbeatSkipped = filters.skipped(heartbeatTable.stream().toList());
        if (!skipped.isEmpty()) {
            throw new StartupCheckException("The binlog filters of " + where() + " (" + filters + ") leave captured"
                    + " table(s) out of the binlog: " + String.join(", ", skipped) + ". Their changes never reach the"
                    + " connector, while heartbeats go on proving that every change before their time was published:"
                    + " clients would keep stale entries of these tables and call them fresh.",
                    "Remove the binlog-do-db / binlog-ignore-db lines that leave these databases out from the server's"
                            + " configuration file and restart the server (they are not dynamic); or remove the tables"
                            + " from cdc.connector.tables and do not cache their rows.");
        }
        if (!heartbeatSkipped.isEmpty()) {
            throw new StartupCheckException("The binlog filters of " + where() + " (" + filters + ") leave the heartbeat"
                    + " table out of the binlog: " + heartbeatSkipped.get(0) + ". No heartbeat would be published, so"
                    + " no client could prove its caches fresh.",
                    "Remove the binlog-do-db / binlog-ignore-db line that leaves its database out (or add it to"
                            + " binlog-do-db) in the server's configuration file and restart the server.");
        }
        return filters;
    }

    /**
     * Why a database rule that names no captured database still deserves a warning: DDL and TRUNCATE are logged as
     * statements and filtered by the session's default database.
     */
    static final String DDL_UNDER_DATABASE_RULES = "Filters of {} ({}) keep every row change of the captured tables,"
            + " but DDL and TRUNCATE are filtered by the default database of the session that runs them: a RENAME,"
            + " DROP, ALTER or TRUNCATE of a captured table run under a filtered default database (or, with a do-db"
            + " list, under none) is not logged, and clients keep the rows it replaced as fresh. Run such statements"
            + " with USE <captured database>, or remove the database rules (docs/connector.md, \"Filters that leave"
            + " changes out\").";

    /** {@code Binlog_Do_DB} and {@code Binlog_Ignore_DB} of the binlog status; none when the statement shows no row. */
    static ReplicationFilters binlogFilters(Connection connection, Flavor flavor) throws SQLException {
        // MySQL 8.2+ speaks BINARY LOG STATUS (8.4 removed MASTER STATUS); MariaDB and older MySQL MASTER STATUS
        List<String> statements = flavor == Flavor.MYSQL
                ? List.of("SHOW BINARY LOG STATUS", "SHOW MASTER STATUS") : List.of("SHOW MASTER STATUS");
        for (int i = 0; ; i++) {
            try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(statements.get(i))) {
                return rs.next() ? ReplicationFilters.binlog(rs.getString("Binlog_Do_DB"), rs.getString("Binlog_Ignore_DB"))
                        : ReplicationFilters.NONE;
            } catch (SQLException e) {
                if (e.getErrorCode() == PARSE_ERROR && i + 1 < statements.size()) {
                    continue;
                }
                throw e;
            }
        }
    }

    /** How to turn full row images on, and what to do about events already logged without them. */
    static String rowImageFix() {
        return "As an administrator run SET GLOBAL binlog_row_image = 'FULL'; (on MySQL 8, SET PERSIST keeps it over"
                + " restarts) and add binlog_row_image=FULL under [mysqld] (MariaDB: [mariadb]) in the server's"
                + " configuration file, so that a restart keeps it. The setting is per session: sessions already open"
                + " keep logging their old images until they reconnect, so restart or recycle the writers' connection"
                + " pools. If the connector already stopped on an event logged without full images, delete its stored"
                + " offsets and start it again: it starts at the current position under a new epoch, and clients drop"
                + " the entries those events would have evicted (docs/connector.md, \"Row images other than FULL\").";
    }

    /** The user holds the replication privileges, SELECT on the captured tables and the heartbeat's. */
    public void verifyPrivileges(Connection connection) throws SQLException {
        Grants grants = new Grants();
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SHOW GRANTS")) {
            while (rs.next()) {
                grants.add(rs.getString(1)); // never logged: the line carries the password hash
            }
        }
        List<String> missing = new ArrayList<>();
        if (!grants.hasGlobal("REPLICATION SLAVE", "REPLICATION REPLICA")) {
            missing.add("REPLICATION SLAVE ON *.*");
        }
        if (!grants.hasGlobal("REPLICATION CLIENT", "BINLOG MONITOR", "SUPER")) {
            missing.add("REPLICATION CLIENT ON *.*");
        }
        for (CapturedTable table : dataTables) {
            if (!grants.hasOn(table, "SELECT")) {
                missing.add("SELECT ON " + table.qualifiedName());
            }
        }
        if (heartbeatTable.isPresent()) {
            CapturedTable heartbeat = heartbeatTable.get();
            for (String privilege : List.of("SELECT", "INSERT", "UPDATE")) {
                if (!grants.hasOn(heartbeat, privilege)) {
                    missing.add(privilege + " ON " + heartbeat.qualifiedName() + " (heartbeat table)");
                }
            }
        }
        if (!missing.isEmpty()) {
            throw new StartupCheckException("User '" + database.getUser() + "' lacks privileges the connector needs on "
                    + where() + ": " + String.join(", ", missing) + ".",
                    "As an administrator, run cdc-connector/sql/setup.sql once for every captured database: "
                            + setupScriptCommand() + ". It grants exactly what the connector needs, SELECT on that"
                            + " database only (docs/connector.md, \"Database user\"). By hand: GRANT REPLICATION SLAVE,"
                            + " REPLICATION CLIENT" + (database.getFlavor() == Flavor.MARIADB ? ", SLAVE MONITOR" : "")
                            + ", RELOAD, SHOW DATABASES ON *.*; GRANT SELECT ON <database>.* for each captured database;"
                            + " GRANT SELECT, INSERT, UPDATE ON "
                            + heartbeatTable.map(CapturedTable::qualifiedName).orElse(HeartbeatTable.DEFAULT_NAME)
                            + "; each TO '" + database.getUser() + "'@'%'.");
        }
        for (String advisable : List.of("RELOAD", "SHOW DATABASES")) {
            if (!grants.hasGlobal(advisable)) {
                log.warn("User '{}' lacks {} ON *.*; Debezium's schema snapshot may fall back to slower table locks",
                        database.getUser(), advisable);
            }
        }
    }

    /** The command that runs setup.sql with this connector's user and heartbeat table, in the flavor's client. */
    String setupScriptCommand() {
        String heartbeat = heartbeatTable.map(CapturedTable::qualifiedName)
                .filter(name -> !name.equalsIgnoreCase(HeartbeatTable.DEFAULT_NAME))
                .map(name -> ", @cdc_heartbeat_table='" + name + "'").orElse("");
        return (database.getFlavor() == Flavor.MYSQL ? "mysql" : "mariadb") + " -h " + database.getHost() + " -P "
                + database.getPort() + " -u <admin> -p --init-command=\"SET @cdc_database='<database>', @cdc_user='"
                + database.getUser() + "', @cdc_password='...'" + heartbeat + "\" < cdc-connector/sql/setup.sql";
    }

    /**
     * Every captured table has a record key: its primary key, or else a unique key whose columns are all NOT NULL,
     * which Debezium's DDL parser then takes for the primary key (as InnoDB does for its clustered index). The record
     * key keeps all changes of one row in one partition, in commit order (docs/contract.md), and an oversized event is
     * reduced to it. Without one Debezium publishes the changes without a key, spread over the partitions, and a
     * reduced event keeps no column a cache could be evicted by. The connector has no setting that names other key
     * columns ({@code message.key.columns} is refused), so the table itself must have one.
     */
    public void verifyPrimaryKeys(Connection connection) throws SQLException {
        List<String> without = new ArrayList<>();
        // KEY_COLUMN_USAGE, not TABLE_CONSTRAINTS: MariaDB shows the latter only to users with more than SELECT. Its
        // rows without a referenced table are the primary and unique keys.
        try (PreparedStatement query = connection.prepareStatement("SELECT k.CONSTRAINT_NAME, k.COLUMN_NAME, c.IS_NULLABLE"
                + " FROM information_schema.KEY_COLUMN_USAGE k JOIN information_schema.COLUMNS c"
                + " ON c.TABLE_SCHEMA = k.TABLE_SCHEMA AND c.TABLE_NAME = k.TABLE_NAME AND c.COLUMN_NAME = k.COLUMN_NAME"
                + " WHERE k.TABLE_SCHEMA = ? AND k.TABLE_NAME = ? AND k.REFERENCED_TABLE_NAME IS NULL"
                + " ORDER BY k.CONSTRAINT_NAME, k.ORDINAL_POSITION")) {
            for (CapturedTable table : dataTables) {
                query.setString(1, table.database());
                query.setString(2, table.table());
                Map<String, List<String>> keys = new LinkedHashMap<>();
                Set<String> nullable = new HashSet<>();
                try (ResultSet rs = query.executeQuery()) {
                    while (rs.next()) {
                        keys.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(rs.getString(2));
                        if ("YES".equalsIgnoreCase(rs.getString(3))) {
                            nullable.add(rs.getString(1));
                        }
                    }
                }
                boolean keyed = keys.containsKey("PRIMARY") || keys.keySet().stream().anyMatch(k -> !nullable.contains(k));
                if (!keyed) {
                    without.add(table.qualifiedName() + keys.entrySet().stream().findFirst()
                            .map(unique -> " (its unique key " + unique.getKey() + " on " + String.join(", ", unique.getValue())
                                    + " would do once those columns are NOT NULL)").orElse(""));
                }
            }
        }
        if (!without.isEmpty()) {
            throw new StartupCheckException("Captured table(s) without a primary key on " + where() + ": "
                    + String.join(", ", without) + ". The connector publishes every change keyed by the row's primary"
                    + " key (or a unique key on NOT NULL columns), which keeps the changes of one row in order and is"
                    + " what an oversized event is reduced to; without one the changes go out without a key, spread"
                    + " over the partitions.",
                    "Give each a primary key on the columns that identify a row: ALTER TABLE <database>.<table> ADD"
                            + " PRIMARY KEY (<columns>); (or make the columns of a unique key NOT NULL). Or remove the"
                            + " table from cdc.connector.tables: caches of its rows are then not invalidated, so do not"
                            + " cache them.");
        }
    }

    /** Every captured table exists, and the heartbeat table has the contract's columns. */
    public void verifyTablesExist(Connection connection) throws SQLException {
        List<String> unknown = new ArrayList<>();
        try (PreparedStatement query = connection.prepareStatement(
                "SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?")) {
            for (CapturedTable table : dataTables) {
                if (!exists(query, table)) {
                    unknown.add(table.qualifiedName());
                }
            }
            if (!unknown.isEmpty()) {
                throw new StartupCheckException("Unknown table(s) in cdc.connector.tables: " + String.join(", ", unknown)
                        + " (not in information_schema.TABLES on " + where() + " for user '" + database.getUser() + "').",
                        "Fix the names in cdc.connector.tables (database.table, case as in the database), create the"
                                + " tables first, or grant the user SELECT on them.");
            }
            if (heartbeatTable.isPresent() && !exists(query, heartbeatTable.get())) {
                String name = heartbeatTable.get().qualifiedName();
                throw new StartupCheckException("The heartbeat table " + name + " (cdc.connector.heartbeat.table) does not exist on "
                        + where() + ".",
                        "Create it: " + HeartbeatTable.createStatement(name) + "; or set"
                                + " cdc.connector.heartbeat.interval=0 to disable heartbeats.");
            }
        }
        if (heartbeatTable.isPresent()) {
            verifyHeartbeatColumns(connection, heartbeatTable.get());
        }
    }

    /** The heartbeat table has the contract's columns (one row per connector), not the former {@code (id TINYINT, ts)}. */
    void verifyHeartbeatColumns(Connection connection, CapturedTable table) throws SQLException {
        Map<String, String> columns = new HashMap<>();
        try (PreparedStatement query = connection.prepareStatement("SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS"
                + " WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?")) {
            query.setString(1, table.database());
            query.setString(2, table.table());
            try (ResultSet rs = query.executeQuery()) {
                while (rs.next()) {
                    columns.put(rs.getString(1).toLowerCase(Locale.ROOT), rs.getString(2).toLowerCase(Locale.ROOT));
                }
            }
        }
        List<String> missing = HeartbeatTable.COLUMNS.stream().filter(c -> !columns.containsKey(c)).toList();
        String idType = columns.getOrDefault(HeartbeatTable.ID, "");
        if (!missing.isEmpty() || !(idType.contains("char") || idType.contains("text"))) {
            String name = table.qualifiedName();
            throw new StartupCheckException("The heartbeat table " + name + " on " + where() + " has the former shape (columns "
                    + columns.keySet() + ", id " + idType + "); this connector writes one row per connector: id = its name,"
                    + " ts, epoch, tables.",
                    "Migrate it (MariaDB): " + HeartbeatTable.migrateStatement(name) + "; or drop and re-create it: "
                            + HeartbeatTable.createStatement(name) + ".");
        }
    }

    private static boolean exists(PreparedStatement query, CapturedTable table) throws SQLException {
        query.setString(1, table.database());
        query.setString(2, table.table());
        try (ResultSet rs = query.executeQuery()) {
            return rs.next();
        }
    }

    private String where() {
        return database.getHost() + ":" + database.getPort();
    }

    /** Privileges from {@code SHOW GRANTS} lines, by scope ({@code *.*}, {@code db.*}, {@code db.table}). */
    static final class Grants {
        private final Map<String, Set<String>> byScope = new HashMap<>();

        void add(String line) {
            Matcher m = GRANT_LINE.matcher(line.trim());
            if (!m.matches()) {
                return; // role grants, proxy grants
            }
            String scope = m.group(2).replace("`", "").replace("\"", "").replace("\\", "").toLowerCase(Locale.ROOT);
            Set<String> privileges = byScope.computeIfAbsent(scope, s -> new HashSet<>());
            for (String privilege : m.group(1).split(",")) {
                String p = privilege.trim().toUpperCase(Locale.ROOT);
                int column = p.indexOf('(');
                if (column < 0) { // column-level grants do not cover the table
                    privileges.add(p);
                }
            }
        }

        boolean hasGlobal(String... anyOf) {
            return has("*.*", anyOf);
        }

        boolean hasOn(CapturedTable table, String privilege) {
            String db = table.database().toLowerCase(Locale.ROOT);
            return has("*.*", privilege) || has(db + ".*", privilege)
                    || has(db + "." + table.table().toLowerCase(Locale.ROOT), privilege);
        }

        private boolean has(String scope, String... anyOf) {
            Set<String> privileges = byScope.getOrDefault(scope, Set.of());
            if (privileges.contains("ALL PRIVILEGES") || privileges.contains("ALL")) {
                return true;
            }
            for (String p : anyOf) {
                if (privileges.contains(p)) {
                    return true;
                }
            }
            return false;
        }
    }
}
