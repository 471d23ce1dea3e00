package dev.cdccache.connector.startup;

import dev.cdccache.connector.config.ConnectorProperties;
import dev.cdccache.connector.config.ConnectorProperties.Flavor;
import dev.cdccache.connector.config.DebeziumSettings;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds out whether the server whose binlog is read is a replica, and if so, that the heartbeat proves what clients
 * take it for.
 *
 * <p>Why: a heartbeat row with {@code ts = H} tells clients that every change committed before {@code H} has been
 * published. Written on a replica, the row is committed there at once, ahead of primary commits that are still on
 * their way: the proof would be early by the replication lag, and clients would call a cache fresh while a change
 * committed on the primary before {@code H} is not published yet. Written on the primary, the row replicates like
 * any change and reaches the replica's binlog after every earlier primary commit, so the proof is exact again.
 *
 * <p>So, on a replica (a replication source configured, or {@code read_only=ON}), with heartbeats enabled, start-up
 * is refused unless {@code cdc.connector.heartbeat.primary} names the primary, that primary is not a replica itself,
 * and it is where the captured server's changes come from (its {@code server_id} is the replication source's, or,
 * for a chain of replicas, appears in the captured server's GTID position). On any replica the replicated changes
 * must be written to its own binlog ({@code log_slave_updates=ON}), otherwise the connector would capture none of
 * them; and its replication filters must apply every change of the captured tables and the heartbeat table
 * ({@link ReplicationFilters}; GTID domain filters, rewrites of a captured database and MariaDB's
 * {@code replicate_events_marked_for_skip} are refused too), and the primary's binlog filters must log them. A
 * primary configured for a server that is not a replica is refused too: rows written there would never reach the
 * binlog that is read.
 *
 * <p>Reading the replication status needs {@code SLAVE MONITOR} (alias {@code REPLICA MONITOR}) on MariaDB 10.5.9+,
 * {@code REPLICATION CLIENT} on MySQL; without it start-up fails naming the grant.
 */
public final class ReplicaCheck {

    private static final Logger log = LoggerFactory.getLogger(ReplicaCheck.class);
    private static final int SPECIFIC_ACCESS_DENIED = 1227;
    private static final int ACCESS_DENIED = 1045;
    private static final int TABLE_ACCESS_DENIED = 1142;
    private static final int PARSE_ERROR = 1064;
    private static final String PRIMARY = ConnectorProperties.PREFIX + ".heartbeat.primary";
    private static final Pattern REWRITE = Pattern.compile("\\(([^,()]+),([^,()]+)\\)|([^,()>]+?)->([^,()]+)");

    /** Opens a connection to a server as the given user; failures name the settings under the given prefix. */
    @FunctionalInterface
    interface Connector {
        Connection connect(ConnectorProperties.Database database, String settings);
    }

    private final ConnectorProperties properties;
    /** Built once: the filter checks run again before every heartbeat row. */
    private final DebeziumSettings settings;
    private final Connector primaries;

    public ReplicaCheck(ConnectorProperties properties) {
        this(properties, DatabaseCheck::connect);
    }

    /** @param primaries opens the connection to the configured primary (tests answer from recordings) */
    ReplicaCheck(ConnectorProperties properties, Connector primaries) {
        this.properties = properties;
        this.settings = new DebeziumSettings(properties);
        this.primaries = primaries;
    }

    /**
     * One replication source of a server, from its replication status: with its table filters, its GTID domain
     * filters (MariaDB's {@code Replicate_Do_Domain_Ids} / {@code Replicate_Ignore_Domain_Ids}), its ignored server
     * ids and database rewrites ({@code Replicate_Rewrite_DB}), each as the status shows it ({@code ""} for none).
     */
    record Source(String connectionName, String host, int port, long serverId, boolean sqlThreadRunning,
            ReplicationFilters filters, String domainFilters, String ignoredServerIds, String rewrites) {

        String describe() {
            return host + ":" + port + " (server_id " + serverId + ")"
                    + (connectionName.isEmpty() ? "" : " on connection '" + connectionName + "'");
        }
    }

    /** What a server says about its own replication. */
    record Replication(List<Source> sources, boolean readOnly, boolean logsReplicatedChanges, long serverId,
            String gtidPosition, String serverUuid) {
        boolean isReplica() {
            return !sources.isEmpty() || readOnly;
        }
    }

    /**
     * Runs the checks against the captured server, through {@code captured}, and the configured primary.
     *
     * @return what was found, in a few words ({@code cdc-connector check} prints it)
     * @throws StartupCheckException when the heartbeat would not be an exact proof, with the setting to add or fix
     */
    public String verify(Connection captured) throws SQLException {
        Replication replication = replicationOf(captured, where(properties.getDatabase()), ConnectorProperties.PREFIX
                + ".database.user");
        ConnectorProperties.Primary primary = properties.getHeartbeat().getPrimary();
        boolean heartbeats = properties.getHeartbeat().isEnabled();
        if (!replication.isReplica()) {
            if (primary.isConfigured()) {
                throw new StartupCheckException(PRIMARY + ".host is set (" + primary.getHost() + ":" + primary.getPort()
                        + "), but " + where(properties.getDatabase()) + " is not a replica (no replication source,"
                        + " read_only=OFF): heartbeat rows written on another server would never reach the binlog the"
                        + " connector reads.", "Remove " + PRIMARY + ".* when the connector reads the primary itself;"
                        + " or point cdc.connector.database.host at the replica you meant.");
            }
            return "not a replica";
        }
        String replica = where(properties.getDatabase());
        if (!replication.sources().isEmpty() && !replication.logsReplicatedChanges()) {
            throw new StartupCheckException(replica + " is a replica of " + describe(replication.sources())
                    + ", but log_slave_updates is OFF: the changes it replicates are not written to its own binlog,"
                    + " so the connector would capture none of them.", "Set log_slave_updates=ON (MySQL 8:"
                    + " log_replica_updates=ON) in the replica's configuration and restart it; or point"
                    + " cdc.connector.database.host at the primary.");
        }
        verifyFilters(captured, replica, replication.sources(), true);
        if (!heartbeats) {
            log.info("{} is a replica; heartbeats are disabled, so clients prove no freshness from this connector", replica);
            return "a replica of " + describe(replication.sources()) + " whose filters keep every captured table;"
                    + " heartbeats disabled";
        }
        String why = "A heartbeat written on a replica is committed there ahead of the primary's changes that are still"
                + " replicating: clients would take every change committed before its time as published while some"
                + " are not, by as much as the replication lag.";
        if (!primary.isConfigured()) {
            throw new StartupCheckException(replica + " is a replica (" + (replication.sources().isEmpty()
                    ? "read_only=ON" : "it replicates from " + describe(replication.sources())) + ") and "
                    + PRIMARY + ".host is not set. " + why,
                    "Set " + PRIMARY + ".host and " + PRIMARY + ".port to the primary this replica replicates from"
                            + " (and " + PRIMARY + ".user/.password if the connector's user does not exist there): the"
                            + " heartbeat row is then written on the primary and replicates in commit order. Or point"
                            + " cdc.connector.database.host at the primary.");
        }
        if (replication.sources().isEmpty()) {
            throw new StartupCheckException(replica + " is read_only=ON but replicates from nothing: heartbeat rows"
                    + " written on " + PRIMARY + " (" + primary.getHost() + ":" + primary.getPort() + ") would never"
                    + " reach its binlog.", "Point cdc.connector.database.host at a server that replicates from the"
                    + " primary (with log_slave_updates=ON), or at the primary itself and remove " + PRIMARY + ".*.");
        }
        if (replication.sources().size() > 1) {
            throw new StartupCheckException(replica + " replicates from several sources (" + describe(replication.sources())
                    + "): a heartbeat written on one of them says nothing about the changes coming from the others.",
                    "Capture each source's tables on that source, or on a replica of that source alone.");
        }
        Source source = replication.sources().get(0);
        ConnectorProperties.Database primaryDatabase = properties.heartbeatDatabase();
        String primaryWhere = where(primaryDatabase);
        try (Connection connection = primaries.connect(primaryDatabase, PRIMARY)) {
            Replication upstream = replicationOf(connection, primaryWhere, PRIMARY + ".user");
            if (upstream.isReplica()) {
                throw new StartupCheckException(PRIMARY + " " + primaryWhere + " is itself a replica ("
                        + (upstream.sources().isEmpty() ? "read_only=ON" : "of " + describe(upstream.sources()))
                        + "): a heartbeat written there is as early as one written on " + replica + ". " + why,
                        "Point " + PRIMARY + ".host at the primary at the top of the replication chain (the server"
                                + " the applications write to).");
            }
            if (!isUpstream(upstream, source, replication)) {
                throw new StartupCheckException(PRIMARY + " " + primaryWhere + " (server_id " + upstream.serverId()
                        + ") is not the server " + replica + " replicates from (" + source.describe() + "), and no"
                        + " transaction of it appears in the replica's GTID position " + replication.gtidPosition()
                        + ": its heartbeat rows would never reach the binlog the connector reads.",
                        "Point " + PRIMARY + ".host and .port at the primary of " + replica + ". For a chain of"
                                + " replicas, the top primary is recognised once one of its transactions has"
                                + " replicated down to " + replica + "; start the connector again then.");
            }
            verifyPrimaryLogsCapturedTables(connection, primaryWhere, true);
            if (upstream.serverId() != source.serverId()) {
                log.warn("{} replicates from {}, which replicates (directly or not) from {}: the filters,"
                        + " log_slave_updates and skipped errors of the servers in between cannot be checked from here;"
                        + " each must apply and log every change of the captured tables", replica, source.describe(),
                        primaryWhere);
            }
        }
        if (!source.sqlThreadRunning()) {
            log.warn("{} does not apply replicated changes at the moment (replication SQL thread stopped): no heartbeat"
                    + " reaches clients until it does, and their caches go not fresh", replica);
        }
        log.info("Reading replica {} of {}: the heartbeat row is written on the primary {} and captured from the"
                + " replica's binlog in commit order", replica, source.describe(), primaryWhere);
        return "a replica of " + source.describe() + " whose filters keep every captured table; heartbeats written on"
                + " the primary " + primaryWhere + (source.sqlThreadRunning() ? "" : " (replication SQL thread stopped)");
    }

    /**
     * The filter checks of {@link #verify} again, without its log lines, for a connector that streams: asked before
     * every heartbeat row, so that a filter set on the replica or on the primary while the connector runs stops the
     * heartbeats from proving changes published that never reach the binlog the connector reads.
     *
     * @param captured a connection to the captured replica
     * @param primary a connection to the configured primary, where the heartbeat row is written
     * @throws StartupCheckException naming the filter that leaves a captured table out, and how to remove it
     */
    public void verifyFiltersStillKeepCapturedTables(Connection captured, Connection primary) throws SQLException {
        String replica = where(properties.getDatabase());
        Replication replication = replicationOf(captured, replica, ConnectorProperties.PREFIX + ".database.user");
        verifyFilters(captured, replica, replication.sources(), false);
        verifyPrimaryLogsCapturedTables(primary, where(properties.heartbeatDatabase()), false);
    }

    /**
     * The primary writes every captured table's changes to its binlog: a change it does not log never replicates,
     * while its heartbeat rows do.
     *
     * @param warn whether to log what deserves a warning but is not refused (at start-up, not at every heartbeat)
     */
    private void verifyPrimaryLogsCapturedTables(Connection primary, String primaryWhere, boolean warn)
            throws SQLException {
        boolean mysql = properties.getDatabase().getFlavor() == Flavor.MYSQL;
        ReplicationFilters filters;
        try {
            filters = DatabaseCheck.binlogFilters(primary, properties.getDatabase().getFlavor());
        } catch (SQLException e) {
            if (e.getErrorCode() != SPECIFIC_ACCESS_DENIED && e.getErrorCode() != ACCESS_DENIED) {
                throw e;
            }
            String grant = mysql ? "REPLICATION CLIENT" : "BINLOG MONITOR";
            throw new StartupCheckException("The connector cannot tell whether the primary " + PRIMARY + " "
                    + primaryWhere + " logs the captured tables: its user (" + PRIMARY + ".user) may not read the"
                    + " binlog status (" + e.getMessage() + "). A binlog filter there would keep their changes from"
                    + " replicating while heartbeats prove them published.",
                    "As an administrator run on the primary: GRANT " + grant + " ON *.* TO '<" + PRIMARY + ".user>'@'%';",
                    e);
        }
        if (filters.isEmpty()) {
            return;
        }
        List<String> skipped = filters.skipped(settings.dataTables());
        if (!skipped.isEmpty()) {
            throw new StartupCheckException("The binlog filters of the primary " + PRIMARY + " " + primaryWhere + " ("
                    + filters + ") leave captured table(s) out of its binlog: " + String.join(", ", skipped) + ". Their"
                    + " changes never replicate, while its heartbeat rows do and prove them published: clients would"
                    + " keep stale entries and call them fresh.",
                    "Remove the binlog-do-db / binlog-ignore-db lines that leave these databases out from the primary's"
                            + " configuration file (on Amazon RDS: its parameter group) and restart it.");
        }
        if (warn) {
            log.warn(DatabaseCheck.DDL_UNDER_DATABASE_RULES, PRIMARY + " " + primaryWhere, filters);
        }
    }

    /**
     * Every source's filters apply every change of the captured tables and the heartbeat table. A replica that skips a
     * captured table's changes never writes them to its binlog, while the primary's heartbeats replicate on and prove
     * them published: clients would keep stale entries and call them fresh.
     *
     * @param warn whether to log what deserves a warning but is not refused (at start-up, not at every heartbeat)
     */
    private void verifyFilters(Connection captured, String replica, List<Source> sources, boolean warn)
            throws SQLException {
        boolean mysql = properties.getDatabase().getFlavor() == Flavor.MYSQL;
        String fix = "Remove the filter from the replica, and from its configuration file (on Amazon RDS: its parameter"
                + " group), or point cdc.connector.database.host at the primary. " + (mysql
                ? "MySQL: STOP REPLICA SQL_THREAD [FOR CHANNEL '<c>']; CHANGE REPLICATION FILTER REPLICATE_<RULE> = ()"
                        + " [FOR CHANNEL '<c>']; START REPLICA SQL_THREAD [FOR CHANNEL '<c>'];"
                : "MariaDB: STOP SLAVE ['<connection>']; SET GLOBAL ['<connection>'.]<variable> = '<its list without"
                        + " the rule>'; START SLAVE"
                        + " ['<connection>']; (GTID domain filters: CHANGE MASTER ['<connection>'] TO DO_DOMAIN_IDS = (),"
                        + " IGNORE_DOMAIN_IDS = ()). The variable of a rule is replicate_<rule, dashes as underscores>"
                        + " (wild-ignore-table: replicate_wild_ignore_table); '' clears its whole list.");
        Map<String, String> globals = replicationGlobals(captured, mysql);
        String markedForSkip = globals.getOrDefault("replicate_events_marked_for_skip", "REPLICATE");
        if (!mysql && !"REPLICATE".equalsIgnoreCase(markedForSkip)) {
            throw new StartupCheckException(replica + " has replicate_events_marked_for_skip=" + markedForSkip + ": a"
                    + " change a primary session makes with @@skip_replication=1 never reaches its binlog, while"
                    + " heartbeats prove it published.", "SET GLOBAL replicate_events_marked_for_skip = 'REPLICATE';"
                    + " (the replica's threads stopped) and the same in its configuration file; or point"
                    + " cdc.connector.database.host at the primary.");
        }
        String skipErrors = globals.getOrDefault("slave_skip_errors", globals.getOrDefault("replica_skip_errors", "OFF"));
        String execMode = globals.getOrDefault("slave_exec_mode", globals.getOrDefault("replica_exec_mode", "STRICT"));
        if (warn && (!"OFF".equalsIgnoreCase(skipErrors) && !skipErrors.isBlank()
                || "IDEMPOTENT".equalsIgnoreCase(execMode))) {
            log.warn("{} skips replicated events that fail (slave_skip_errors={}, slave_exec_mode={}): a skipped change"
                    + " never reaches its binlog or the clients; keep skip errors OFF and the exec mode STRICT on a"
                    + " replica the connector reads", replica, skipErrors, execMode);
        }
        for (Source source : sources) {
            List<String> skipped = source.filters().skipped(settings.capturedTables());
            if (!skipped.isEmpty()) {
                throw new StartupCheckException(replica + " does not apply every change it replicates from "
                        + source.describe() + ": its replication filters (" + source.filters() + ") skip "
                        + String.join(", ", skipped) + ". Those changes never reach its binlog, while the primary's"
                        + " heartbeats replicate on and prove them published: clients would keep stale entries and"
                        + " call them fresh.", fix);
            }
            if (!source.domainFilters().isEmpty()) {
                throw new StartupCheckException(replica + " filters GTID domains when it replicates from "
                        + source.describe() + " (" + source.domainFilters() + "): the changes of a skipped domain"
                        + " never reach its binlog, and which tables they touch cannot be known in advance, while"
                        + " heartbeats of another domain prove them published.", fix);
            }
            // MySQL shows (from,to) pairs, MariaDB from->to: a captured database rewritten away is not applied to
            // itself on the replica (rewrites come before every other rule)
            String rewrites = source.rewrites().isEmpty() ? globals.getOrDefault("replicate_rewrite_db", "")
                    : source.rewrites();
            Matcher rewrite = REWRITE.matcher(rewrites);
            while (rewrite.find()) {
                String from = (rewrite.group(1) != null ? rewrite.group(1) : rewrite.group(3)).trim();
                if (settings.capturedTables().stream().anyMatch(t -> t.database().equalsIgnoreCase(from))) {
                    throw new StartupCheckException(replica + " rewrites database " + from + " to another one when it"
                            + " replicates from " + source.describe() + " (Replicate_Rewrite_DB " + rewrites
                            + "): the primary's changes of the captured tables in " + from + " are applied elsewhere,"
                            + " while heartbeats prove them published.", fix);
                }
            }
            if (warn && source.filters().hasDatabaseRules()) {
                log.warn(DatabaseCheck.DDL_UNDER_DATABASE_RULES, replica, source.filters());
            }
            if (warn && !source.ignoredServerIds().isEmpty()) {
                log.warn("{} ignores the changes of server ids {} when it replicates from {}: changes that originate"
                        + " on those servers never reach the connector; make sure none of them writes the captured"
                        + " tables", replica, source.ignoredServerIds(), source.describe());
            }
        }
    }

    /** The replica's global settings that skip replicated changes besides its filters (those the server has). */
    private static Map<String, String> replicationGlobals(Connection connection, boolean mysql) throws SQLException {
        Map<String, String> values = new HashMap<>();
        String names = mysql ? "'slave_skip_errors', 'replica_skip_errors', 'slave_exec_mode', 'replica_exec_mode'"
                : "'slave_skip_errors', 'slave_exec_mode', 'replicate_events_marked_for_skip', 'replicate_rewrite_db'";
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SHOW GLOBAL VARIABLES WHERE Variable_name IN (" + names + ")")) {
            while (rs.next()) {
                values.put(rs.getString(1).toLowerCase(Locale.ROOT), rs.getString(2) == null ? "" : rs.getString(2));
            }
        }
        return values;
    }

    /** The primary is the replica's source, or (a chain) the origin of a transaction in the replica's GTID position. */
    private boolean isUpstream(Replication primary, Source source, Replication replica) {
        if (primary.serverId() == source.serverId()) {
            return true;
        }
        if (properties.getDatabase().getFlavor() == Flavor.MYSQL) {
            return !primary.serverUuid().isEmpty()
                    && replica.gtidPosition().toLowerCase(Locale.ROOT).contains(primary.serverUuid().toLowerCase(Locale.ROOT));
        }
        return gtidServerIds(replica.gtidPosition()).contains(primary.serverId());
    }

    /** The originating server ids of a MariaDB GTID position {@code domain-server-sequence[,...]}. */
    static Set<Long> gtidServerIds(String position) {
        Set<Long> ids = new HashSet<>();
        for (String gtid : position.split(",")) {
            String[] parts = gtid.trim().split("-");
            if (parts.length == 3) {
                try {
                    ids.add(Long.parseLong(parts[1]));
                } catch (NumberFormatException ignored) {
                    // not a GTID: ignore
                }
            }
        }
        return ids;
    }

    private Replication replicationOf(Connection connection, String where, String userSetting) throws SQLException {
        boolean mysql = properties.getDatabase().getFlavor() == Flavor.MYSQL;
        List<Source> sources = sources(connection, mysql, where, userSetting);
        boolean readOnly = false;
        boolean logsReplicated = false;
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("SHOW GLOBAL VARIABLES WHERE"
                + " Variable_name IN ('read_only', 'log_slave_updates', 'log_replica_updates')")) {
            while (rs.next()) {
                boolean on = isOn(rs.getString(2));
                if ("read_only".equalsIgnoreCase(rs.getString(1))) {
                    readOnly = on;
                } else {
                    logsReplicated |= on;
                }
            }
        }
        long serverId;
        String gtid;
        String uuid = "";
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(mysql
                ? "SELECT @@server_id, @@gtid_executed, @@server_uuid" : "SELECT @@server_id, @@gtid_slave_pos")) {
            rs.next();
            serverId = rs.getLong(1);
            gtid = rs.getString(2) == null ? "" : rs.getString(2).replaceAll("\\s+", "");
            if (mysql) {
                uuid = rs.getString(3) == null ? "" : rs.getString(3);
            }
        }
        return new Replication(sources, readOnly, logsReplicated, serverId, gtid, uuid);
    }

    private static List<Source> sources(Connection connection, boolean mysql, String where, String userSetting)
            throws SQLException {
        // MariaDB: every named connection of a multi-source replica; MySQL 8.0.22+ speaks REPLICA, older SLAVE
        List<String> statements = mysql ? List.of("SHOW REPLICA STATUS", "SHOW SLAVE STATUS")
                : List.of("SHOW ALL SLAVES STATUS");
        for (int i = 0; ; i++) {
            try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(statements.get(i))) {
                return sources(rs);
            } catch (SQLException e) {
                if (e.getErrorCode() == PARSE_ERROR && i + 1 < statements.size()) {
                    continue;
                }
                if (e.getErrorCode() == SPECIFIC_ACCESS_DENIED || e.getErrorCode() == ACCESS_DENIED
                        || e.getErrorCode() == TABLE_ACCESS_DENIED) {
                    String grant = mysql ? "REPLICATION CLIENT" : "SLAVE MONITOR";
                    throw new StartupCheckException("The connector cannot tell whether " + where + " is a replica: its"
                            + " user (" + userSetting + ") may not read the replication status (" + statements.get(i)
                            + ": " + e.getMessage() + "). A connector reading a replica without knowing it would"
                            + " publish heartbeats ahead of changes that are still replicating.",
                            "As an administrator run: GRANT " + grant + " ON *.* TO '<user>'@'%'; (MariaDB 10.5.9+"
                                    + " needs SLAVE MONITOR, alias REPLICA MONITOR, for SHOW SLAVE STATUS;"
                                    + " cdc-connector/sql/setup.sql grants it).", e);
                }
                throw e;
            }
        }
    }

    private static List<Source> sources(ResultSet rs) throws SQLException {
        Set<String> columns = new HashSet<>();
        ResultSetMetaData meta = rs.getMetaData();
        for (int c = 1; c <= meta.getColumnCount(); c++) {
            columns.add(meta.getColumnLabel(c).toLowerCase(Locale.ROOT));
        }
        List<Source> sources = new ArrayList<>();
        while (rs.next()) {
            String host = column(rs, columns, "Master_Host", "Source_Host");
            if (host == null || host.isBlank()) {
                continue; // a connection reset with RESET SLAVE keeps no source
            }
            String port = column(rs, columns, "Master_Port", "Source_Port");
            String serverId = column(rs, columns, "Master_Server_Id", "Source_Server_Id");
            String name = column(rs, columns, "Connection_name", "Channel_Name");
            String sqlRunning = column(rs, columns, "Slave_SQL_Running", "Replica_SQL_Running");
            ReplicationFilters filters = ReplicationFilters.replica(column(rs, columns, "Replicate_Do_DB"),
                    column(rs, columns, "Replicate_Ignore_DB"), column(rs, columns, "Replicate_Do_Table"),
                    column(rs, columns, "Replicate_Ignore_Table"), column(rs, columns, "Replicate_Wild_Do_Table"),
                    column(rs, columns, "Replicate_Wild_Ignore_Table"));
            String domains = String.join("; ", Stream.of(
                    label("do domains ", column(rs, columns, "Replicate_Do_Domain_Ids")),
                    label("ignore domains ", column(rs, columns, "Replicate_Ignore_Domain_Ids")))
                    .filter(s -> !s.isEmpty()).toList());
            sources.add(new Source(name == null ? "" : name, host, port == null ? 0 : Integer.parseInt(port),
                    serverId == null || serverId.isBlank() ? 0 : Long.parseLong(serverId), "Yes".equalsIgnoreCase(sqlRunning),
                    filters, domains, blankIfNull(column(rs, columns, "Replicate_Ignore_Server_Ids")),
                    blankIfNull(column(rs, columns, "Replicate_Rewrite_DB"))));
        }
        return sources;
    }

    private static String column(ResultSet rs, Set<String> columns, String... anyOf) throws SQLException {
        for (String name : anyOf) {
            if (columns.contains(name.toLowerCase(Locale.ROOT))) {
                return rs.getString(name);
            }
        }
        return null;
    }

    private static String label(String label, String value) {
        return value == null || value.isBlank() ? "" : label + value.trim();
    }

    private static String blankIfNull(String value) {
        return value == null ? "" : value.trim();
    }

    private static boolean isOn(String value) {
        return "ON".equalsIgnoreCase(value) || "1".equals(value);
    }

    private static String describe(List<Source> sources) {
        return String.join(", ", sources.stream().map(Source::describe).toList());
    }

    private static String where(ConnectorProperties.Database database) {
        return database.getHost() + ":" + database.getPort();
    }
}
