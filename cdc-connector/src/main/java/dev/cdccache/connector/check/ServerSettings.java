package dev.cdccache.connector.check;

import dev.cdccache.connector.config.ConnectorProperties.Flavor;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The server's identity and the settings the start-up checks leave alone because the connector runs without them,
 * but which decide how well it runs: the flavor, {@code server_id}, binlog retention and GTIDs.
 */
final class ServerSettings {

    /** Below this retention a connector stopped over a weekend loses its binlog position. */
    static final Duration ADVISED_RETENTION = Duration.ofDays(3);

    private final String version;
    private final Map<String, String> variables;

    /** @param variables global variables by lower-case name, as {@code SHOW GLOBAL VARIABLES} lists them */
    ServerSettings(String version, Map<String, String> variables) {
        this.version = version;
        this.variables = variables;
    }

    static ServerSettings read(Connection connection) throws SQLException {
        Map<String, String> variables = new HashMap<>();
        String version;
        try (Statement statement = connection.createStatement()) {
            try (ResultSet rs = statement.executeQuery("SELECT VERSION()")) {
                rs.next();
                version = rs.getString(1);
            }
            try (ResultSet rs = statement.executeQuery("SHOW GLOBAL VARIABLES WHERE Variable_name IN ('server_id',"
                    + " 'binlog_expire_logs_seconds', 'expire_logs_days', 'gtid_mode', 'enforce_gtid_consistency',"
                    + " 'gtid_strict_mode', 'gtid_domain_id', 'version_comment')")) {
                while (rs.next()) {
                    variables.put(rs.getString(1).toLowerCase(Locale.ROOT), rs.getString(2));
                }
            }
        }
        return new ServerSettings(version, variables);
    }

    /** MariaDB or MySQL, as the server says of itself. */
    Flavor flavor() {
        String said = (version + " " + variables.getOrDefault("version_comment", "")).toLowerCase(Locale.ROOT);
        return said.contains("mariadb") ? Flavor.MARIADB : Flavor.MYSQL;
    }

    String version() {
        return version;
    }

    long serverId() {
        return Long.parseLong(variables.getOrDefault("server_id", "0"));
    }

    /**
     * How long the server keeps binlog files; zero when it never expires them. MariaDB 10.6+ and MySQL 8 say it in
     * {@code binlog_expire_logs_seconds}, older MariaDB in {@code expire_logs_days}.
     */
    Duration retention() {
        long seconds = parse(variables.get("binlog_expire_logs_seconds"));
        if (seconds > 0) {
            return Duration.ofSeconds(seconds);
        }
        double days = variables.containsKey("expire_logs_days") ? Double.parseDouble(variables.get("expire_logs_days")) : 0;
        return Duration.ofSeconds((long) (days * 86_400));
    }

    /** A description of the GTID settings, and whether they are what a failover needs. */
    GtidState gtids() {
        if (flavor() == Flavor.MARIADB) {
            // MariaDB always writes GTIDs; strict mode keeps one domain's sequence monotonic
            return new GtidState(true, "gtid_domain_id=" + variables.getOrDefault("gtid_domain_id", "?")
                    + ", gtid_strict_mode=" + variables.getOrDefault("gtid_strict_mode", "?"));
        }
        String mode = variables.getOrDefault("gtid_mode", "OFF");
        String consistency = variables.getOrDefault("enforce_gtid_consistency", "OFF");
        return new GtidState("ON".equalsIgnoreCase(mode) && "ON".equalsIgnoreCase(consistency),
                "gtid_mode=" + mode + ", enforce_gtid_consistency=" + consistency);
    }

    record GtidState(boolean on, String description) {
    }

    private static long parse(String value) {
        try {
            return value == null ? 0 : Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
