package dev.cdccache.connector.testing;

import dev.cdccache.connector.testing.RecordedServer.Rows;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What MySQL 8.0 and 8.4 answer to the queries the connector issues, written down from MySQL's reference manual
 * (the {@code SHOW GRANTS}, {@code SHOW REPLICA STATUS}, {@code SHOW SLAVE STATUS}, {@code SHOW BINARY LOGS},
 * {@code SHOW BINLOG EVENTS} and server system variable pages): column names, value formats and error codes as a
 * MySQL server returns them. No MySQL server can be installed where this project is built, so these recordings are
 * what the MySQL branches of the start-up checks are tested against.
 *
 * <p>Every method returns a fresh {@link RecordedServer} or adds to one; values that differ per test (a variable, a
 * grant line) are parameters.
 */
public final class MySql8Answers {

    /** {@code SELECT VERSION()} of MySQL 8.0 (no {@code -log} suffix since 8.0). */
    public static final String VERSION_80 = "8.0.36";
    /** {@code SELECT VERSION()} of the 8.4 long-term release. */
    public static final String VERSION_84 = "8.4.3";
    /** {@code @@version_comment} of a community build. */
    public static final String VERSION_COMMENT = "MySQL Community Server - GPL";
    /** {@code @@server_uuid} of the captured server: lower case, as MySQL generates it. */
    public static final String SERVER_UUID = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
    /** {@code @@server_uuid} of its primary. */
    public static final String PRIMARY_UUID = "4d8b564f-03f4-4975-856a-0e65c3105328";
    /** MySQL's parse error, what an 8.0.21 server answers to {@code SHOW REPLICA STATUS} and 8.4 to {@code SHOW SLAVE STATUS}. */
    public static final int ER_PARSE_ERROR = 1064;
    /** {@code ER_SPECIFIC_ACCESS_DENIED_ERROR}: a statement that needs a privilege the user lacks. */
    public static final int ER_SPECIFIC_ACCESS_DENIED = 1227;

    private static final Pattern LIKE = Pattern.compile("SHOW GLOBAL VARIABLES LIKE '([^']+)'", Pattern.CASE_INSENSITIVE);
    private static final Pattern QUOTED = Pattern.compile("'([^']+)'");

    private MySql8Answers() {
    }

    /**
     * The global variables of a MySQL 8.0 server set up as docs/your-own-database.md says: binlog on, ROW, FULL
     * images, GTIDs on, binlog files kept 30 days (the 8.0 default, 2592000 s), not a replica.
     */
    public static Map<String, String> variables80() {
        Map<String, String> v = new LinkedHashMap<>();
        v.put("log_bin", "ON");
        v.put("binlog_format", "ROW");
        v.put("binlog_row_image", "FULL");
        v.put("server_id", "1");
        v.put("server_uuid", SERVER_UUID);
        v.put("gtid_mode", "ON");
        v.put("enforce_gtid_consistency", "ON");
        v.put("binlog_expire_logs_seconds", "2592000");
        v.put("expire_logs_days", "0");
        v.put("read_only", "OFF");
        v.put("log_replica_updates", "ON"); // 8.0.26+ name
        v.put("log_slave_updates", "ON"); // the older name, still listed by 8.0
        v.put("version_comment", VERSION_COMMENT);
        return v;
    }

    /** As {@link #variables80()} on 8.4, which no longer has {@code expire_logs_days} and lists {@code log_replica_updates}. */
    public static Map<String, String> variables84() {
        Map<String, String> v = variables80();
        v.remove("expire_logs_days");
        v.remove("log_slave_updates");
        return v;
    }

    /**
     * Answers {@code SHOW GLOBAL VARIABLES LIKE 'name'} and {@code SHOW GLOBAL VARIABLES WHERE Variable_name IN (...)}
     * from {@code variables}, with MySQL's columns {@code Variable_name, Value}; a name the server does not have
     * gives no row, as on MySQL.
     */
    public static RecordedServer withVariables(RecordedServer server, Map<String, String> variables) {
        Map<String, String> byName = new LinkedHashMap<>();
        variables.forEach((name, value) -> byName.put(name.toLowerCase(Locale.ROOT), value));
        return server.answer("SHOW GLOBAL VARIABLES (LIKE|WHERE) .*", query -> {
            Rows rows = Rows.of("Variable_name", "Value");
            Matcher like = LIKE.matcher(query);
            List<String> asked = like.matches() ? List.of(like.group(1)) : QUOTED.matcher(query).results()
                    .map(m -> m.group(1)).toList();
            asked.forEach(name -> {
                String value = byName.get(name.toLowerCase(Locale.ROOT));
                if (value != null) {
                    rows.row(name.toLowerCase(Locale.ROOT), value);
                }
            });
            return rows;
        });
    }

    /** {@code SELECT VERSION()}. */
    public static RecordedServer withVersion(RecordedServer server, String version) {
        return server.answer("SELECT VERSION\\(\\)", Rows.of("VERSION()").row(version));
    }

    /** {@code SHOW GRANTS}, one line per row in a column named {@code Grants for user@host}. */
    public static RecordedServer withGrants(RecordedServer server, String user, String... lines) {
        Rows rows = Rows.of("Grants for " + user + "@%");
        for (String line : lines) {
            rows.row(line);
        }
        return server.answer("SHOW GRANTS", rows);
    }

    /**
     * What MySQL 8.0 lists for a user created by cdc-connector/sql/setup.sql ({@code @cdc_database='shop'}): static
     * global privileges in one line in MySQL's own order, then one line per database and per table.
     */
    public static String[] setupScriptGrants(String user) {
        return new String[] {
            "GRANT RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO `" + user + "`@`%`",
            "GRANT SELECT ON `shop`.* TO `" + user + "`@`%`",
            "GRANT SELECT, INSERT, UPDATE ON `cdc_meta`.`heartbeat` TO `" + user + "`@`%`"
        };
    }

    /**
     * The columns of {@code SHOW REPLICA STATUS} (8.0.22+) in MySQL's order, up to {@code Channel_Name}: the names
     * that 8.0.22 changed from {@code Master}/{@code Slave} to {@code Source}/{@code Replica}.
     */
    public static final List<String> REPLICA_STATUS_COLUMNS = List.of("Replica_IO_State", "Source_Host", "Source_User",
            "Source_Port", "Connect_Retry", "Source_Log_File", "Read_Source_Log_Pos", "Relay_Log_File", "Relay_Log_Pos",
            "Relay_Source_Log_File", "Replica_IO_Running", "Replica_SQL_Running", "Replicate_Do_DB", "Replicate_Ignore_DB",
            "Last_Errno", "Last_Error", "Skip_Counter", "Exec_Source_Log_Pos", "Relay_Log_Space", "Seconds_Behind_Source",
            "Last_IO_Errno", "Last_IO_Error", "Last_SQL_Errno", "Last_SQL_Error", "Source_Server_Id", "Source_UUID",
            "Source_Info_File", "SQL_Delay", "Replica_SQL_Running_State", "Retrieved_Gtid_Set", "Executed_Gtid_Set",
            "Auto_Position", "Channel_Name");

    /** The same columns as {@code SHOW SLAVE STATUS} names them (8.0.21 and older, and 8.0.22+ under the old statement). */
    public static final List<String> SLAVE_STATUS_COLUMNS = REPLICA_STATUS_COLUMNS.stream()
            .map(c -> c.replace("Replica_", "Slave_").replace("Source", "Master")).toList();

    /**
     * One channel of a replication status: a replica of {@code host:port} (server id {@code serverId}, UUID
     * {@code uuid}), both threads running, on the default channel (MySQL names it {@code ''}).
     */
    public static Rows replicationStatus(List<String> columns, String host, int port, long serverId, String uuid,
            String sqlRunning, String executedGtids) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String column : columns) {
            values.put(column, "");
        }
        String io = columns.contains("Replica_IO_State") ? "Replica_" : "Slave_";
        String source = columns.contains("Source_Host") ? "Source_" : "Master_";
        values.put(io + "IO_State", "Waiting for source to send event");
        values.put(source + "Host", host);
        values.put(source + "User", "repl");
        values.put(source + "Port", String.valueOf(port));
        values.put("Connect_Retry", "60");
        values.put(source + "Log_File", "binlog.000007");
        values.put(io + "IO_Running", "Yes");
        values.put(io + "SQL_Running", sqlRunning);
        values.put("Last_Errno", "0");
        values.put("Skip_Counter", "0");
        values.put(source + "Server_Id", String.valueOf(serverId));
        values.put(source + "UUID", uuid);
        values.put(source + "Info_File", "mysql.slave_master_info");
        values.put("SQL_Delay", "0");
        values.put("Executed_Gtid_Set", executedGtids);
        values.put("Auto_Position", "1");
        values.put("Channel_Name", "");
        Rows rows = new Rows(columns, new ArrayList<>());
        rows.row(columns.stream().map(values::get).toArray(String[]::new));
        return rows;
    }

    /** A replication status without any channel: the server is not a replica (MySQL answers with no row). */
    public static Rows noReplicationStatus(List<String> columns) {
        return new Rows(columns, new ArrayList<>());
    }

    /**
     * {@code @@gtid_executed} as MySQL prints a set from two servers: each UUID with its intervals, the sets
     * separated by a comma and a newline.
     */
    public static String gtidExecuted(String... uuidsWithIntervals) {
        return String.join(",\n", uuidsWithIntervals);
    }
}
