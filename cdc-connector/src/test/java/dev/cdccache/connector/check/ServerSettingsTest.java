package dev.cdccache.connector.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.connector.config.ConnectorProperties.Flavor;
import dev.cdccache.connector.testing.MySql8Answers;
import dev.cdccache.connector.testing.RecordedServer;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * How the check reads a server's variables. The MySQL cases matter most here: no MySQL server runs in this build,
 * so these values are what MySQL 8 and RDS report, written down.
 */
class ServerSettingsTest {

    @Test
    void mariaDbSaysSoInItsVersion() {
        ServerSettings mariaDb = new ServerSettings("10.11.19-MariaDB-0+deb12u1-log",
                Map.of("server_id", "1", "gtid_domain_id", "0", "gtid_strict_mode", "OFF"));
        assertThat(mariaDb.flavor()).isEqualTo(Flavor.MARIADB);
        assertThat(mariaDb.gtids().on()).as("MariaDB always writes GTIDs").isTrue();
    }

    @Test
    void mySqlIsWhatDoesNotSayMariaDb() {
        assertThat(new ServerSettings("8.0.36", Map.of("version_comment", "MySQL Community Server - GPL")).flavor())
                .isEqualTo(Flavor.MYSQL);
        assertThat(new ServerSettings("8.0.mysql_aurora.3.05.2", Map.of("version_comment", "Source distribution")).flavor())
                .isEqualTo(Flavor.MYSQL);
        // MariaDB behind a proxy that rewrites the version still names itself in version_comment
        assertThat(new ServerSettings("5.5.5", Map.of("version_comment", "mariadb.org binary distribution")).flavor())
                .isEqualTo(Flavor.MARIADB);
    }

    @Test
    void mySqlGtidsCountOnlyWithModeAndConsistencyOn() {
        assertThat(new ServerSettings("8.0.36", Map.of("gtid_mode", "ON", "enforce_gtid_consistency", "ON")).gtids().on()).isTrue();
        assertThat(new ServerSettings("8.0.36", Map.of("gtid_mode", "ON_PERMISSIVE", "enforce_gtid_consistency", "ON"))
                .gtids().on()).isFalse();
        assertThat(new ServerSettings("8.0.36", Map.of()).gtids().description()).contains("gtid_mode=OFF");
    }

    @Test
    void retentionComesFromSecondsElseFromDaysAndZeroMeansNeverExpires() {
        assertThat(new ServerSettings("8.0.36", Map.of("binlog_expire_logs_seconds", "2592000")).retention())
                .isEqualTo(Duration.ofDays(30));
        assertThat(new ServerSettings("10.4.30-MariaDB", Map.of("expire_logs_days", "7.000000")).retention())
                .isEqualTo(Duration.ofDays(7));
        assertThat(new ServerSettings("10.11.19-MariaDB", Map.of("binlog_expire_logs_seconds", "0", "expire_logs_days", "0"))
                .retention()).isZero();
    }

    @Test
    void aMissingServerIdReadsAsZero() {
        assertThat(new ServerSettings("8.0.36", Map.of()).serverId()).isZero();
        assertThat(new ServerSettings("8.0.36", Map.of("server_id", "4294967295")).serverId()).isEqualTo(4294967295L);
    }

    @Test
    void aMySql80ServerIsReadAsMySqlWithItsGtidsAndRetention() throws SQLException {
        RecordedServer server = MySql8Answers.withVersion(
                MySql8Answers.withVariables(new RecordedServer(), MySql8Answers.variables80()), MySql8Answers.VERSION_80);
        ServerSettings settings = ServerSettings.read(server.connection());
        assertThat(settings.flavor()).isEqualTo(Flavor.MYSQL);
        assertThat(settings.version()).isEqualTo("8.0.36");
        assertThat(settings.serverId()).isEqualTo(1);
        assertThat(settings.retention()).isEqualTo(Duration.ofDays(30));
        assertThat(settings.gtids().on()).isTrue();
        assertThat(settings.gtids().description()).isEqualTo("gtid_mode=ON, enforce_gtid_consistency=ON");
    }

    @Test
    void aMySql84ServerWithoutExpireLogsDaysIsReadFromBinlogExpireLogsSeconds() throws SQLException {
        Map<String, String> variables = MySql8Answers.variables84();
        variables.put("binlog_expire_logs_seconds", "86400");
        variables.put("gtid_mode", "OFF_PERMISSIVE");
        RecordedServer server = MySql8Answers.withVersion(MySql8Answers.withVariables(new RecordedServer(), variables),
                MySql8Answers.VERSION_84);
        ServerSettings settings = ServerSettings.read(server.connection());
        assertThat(settings.flavor()).isEqualTo(Flavor.MYSQL);
        assertThat(settings.retention()).isEqualTo(Duration.ofDays(1)).isLessThan(ServerSettings.ADVISED_RETENTION);
        assertThat(settings.gtids().on()).isFalse();
        assertThat(settings.gtids().description()).contains("gtid_mode=OFF_PERMISSIVE");
    }
}
