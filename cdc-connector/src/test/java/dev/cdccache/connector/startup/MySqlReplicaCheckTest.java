package dev.cdccache.connector.startup;

import static dev.cdccache.connector.testing.MySql8Answers.PRIMARY_UUID;
import static dev.cdccache.connector.testing.MySql8Answers.REPLICA_STATUS_COLUMNS;
import static dev.cdccache.connector.testing.MySql8Answers.SERVER_UUID;
import static dev.cdccache.connector.testing.MySql8Answers.SLAVE_STATUS_COLUMNS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.cdccache.connector.config.ConnectorProperties;
import dev.cdccache.connector.config.ConnectorProperties.Flavor;
import dev.cdccache.connector.testing.MySql8Answers;
import dev.cdccache.connector.testing.RecordedServer;
import dev.cdccache.connector.testing.RecordedServer.Rows;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The replica check with {@code flavor: mysql}, against MySQL 8's replication status: {@code SHOW REPLICA STATUS}
 * with its {@code Source_}/{@code Replica_} columns (8.0.22+), the fallback to {@code SHOW SLAVE STATUS} with
 * {@code Master_}/{@code Slave_} columns where the server does not know the new statement (8.0.21 and older), and a
 * chain of replicas recognised by the primary's {@code server_uuid} in {@code @@gtid_executed}.
 */
class MySqlReplicaCheckTest {

    private static final long PRIMARY_SERVER_ID = 1;
    private static final long REPLICA_SERVER_ID = 2;

    private static ConnectorProperties properties(boolean primaryConfigured) {
        ConnectorProperties p = new ConnectorProperties();
        p.getDatabase().setFlavor(Flavor.MYSQL);
        p.getDatabase().setHost("replica.example.com");
        p.getDatabase().setUser("cdc_connector");
        p.getDatabase().setPassword("secret");
        if (primaryConfigured) {
            p.getHeartbeat().getPrimary().setHost("primary.example.com");
            p.getHeartbeat().getPrimary().setPort(3306);
        }
        return p;
    }

    /** A MySQL 8.0.22+ server: its replication status, its variables and identity. */
    private static RecordedServer server(Rows replicaStatus, Map<String, String> variables, long serverId, String uuid,
            String gtidExecuted) {
        RecordedServer server = new RecordedServer().answer("SHOW REPLICA STATUS", replicaStatus);
        return identity(MySql8Answers.withVariables(server, variables), serverId, uuid, gtidExecuted);
    }

    private static RecordedServer identity(RecordedServer server, long serverId, String uuid, String gtidExecuted) {
        return server.answer("SELECT @@server_id, @@gtid_executed, @@server_uuid",
                Rows.of("@@server_id", "@@gtid_executed", "@@server_uuid").row(String.valueOf(serverId), gtidExecuted, uuid));
    }

    private static Map<String, String> replicaVariables() {
        Map<String, String> v = MySql8Answers.variables80();
        v.put("read_only", "ON");
        v.put("server_id", String.valueOf(REPLICA_SERVER_ID));
        return v;
    }

    private static Rows replicaOfPrimary(long sourceServerId) {
        return MySql8Answers.replicationStatus(REPLICA_STATUS_COLUMNS, "primary.example.com", 3306, sourceServerId,
                PRIMARY_UUID, "Yes", MySql8Answers.gtidExecuted(PRIMARY_UUID + ":1-120"));
    }

    private static RecordedServer primary(long serverId, String uuid) {
        return primary(serverId, uuid, "");
    }

    /** A primary whose binlog status shows {@code ignoreDb} as its {@code Binlog_Ignore_DB}. */
    private static RecordedServer primary(long serverId, String uuid, String ignoreDb) {
        return server(MySql8Answers.noReplicationStatus(REPLICA_STATUS_COLUMNS), MySql8Answers.variables80(), serverId,
                uuid, uuid + ":1-120").answer("SHOW BINARY LOG STATUS", Rows.of("File", "Position", "Binlog_Do_DB",
                        "Binlog_Ignore_DB", "Executed_Gtid_Set").row("binlog.000003", "157", "", ignoreDb, uuid + ":1-120"));
    }

    /** Captures shop.coupon besides the heartbeat table. */
    private static ConnectorProperties capturingCoupons(boolean primaryConfigured) {
        ConnectorProperties p = properties(primaryConfigured);
        p.setTables(List.of("shop.coupon"));
        return p;
    }

    private static ReplicaCheck check(ConnectorProperties p, RecordedServer primary) {
        return new ReplicaCheck(p, (database, settings) -> {
            assertThat(database.getHost()).isEqualTo("primary.example.com");
            assertThat(database.getFlavor()).isEqualTo(Flavor.MYSQL);
            return primary.connection();
        });
    }

    private static ReplicaCheck withoutPrimary(ConnectorProperties p) {
        return new ReplicaCheck(p, (database, settings) -> {
            throw new AssertionError("no primary may be contacted");
        });
    }

    @Test
    void aMySqlPrimaryWithNoReplicationChannelIsNotAReplica() {
        RecordedServer captured = server(MySql8Answers.noReplicationStatus(REPLICA_STATUS_COLUMNS),
                MySql8Answers.variables84(), PRIMARY_SERVER_ID, SERVER_UUID, SERVER_UUID + ":1-57");
        assertThatCode(() -> withoutPrimary(properties(false)).verify(captured.connection())).doesNotThrowAnyException();
        assertThat(captured.issued()).contains("SHOW REPLICA STATUS", "SELECT @@server_id, @@gtid_executed, @@server_uuid")
                .noneMatch(q -> q.contains("ALL SLAVES")).noneMatch(q -> q.contains("gtid_slave_pos"));
    }

    @Test
    void aMySqlReplicaReadFromSourceColumnsWithoutAConfiguredPrimaryIsRefused() {
        RecordedServer captured = server(replicaOfPrimary(PRIMARY_SERVER_ID), replicaVariables(), REPLICA_SERVER_ID,
                SERVER_UUID, "");
        StartupCheckException refused = catchThrowableOfType(StartupCheckException.class,
                () -> withoutPrimary(properties(false)).verify(captured.connection()));
        assertThat(refused.getMessage()).contains("replica.example.com:3306 is a replica (it replicates from"
                + " primary.example.com:3306 (server_id 1))", "cdc.connector.heartbeat.primary.host is not set");
    }

    @Test
    void mySql8021AnswersShowReplicaStatusWithAParseErrorAndIsReadWithShowSlaveStatus() {
        RecordedServer captured = new RecordedServer()
                .refuse("SHOW REPLICA STATUS", MySql8Answers.ER_PARSE_ERROR, "42000", "You have an error in your SQL syntax;"
                        + " check the manual that corresponds to your MySQL server version for the right syntax to use"
                        + " near 'REPLICA STATUS' at line 1")
                .answer("SHOW SLAVE STATUS", MySql8Answers.replicationStatus(SLAVE_STATUS_COLUMNS, "primary.example.com",
                        3306, PRIMARY_SERVER_ID, PRIMARY_UUID, "Yes", PRIMARY_UUID + ":1-120"));
        identity(MySql8Answers.withVariables(captured, replicaVariables()), REPLICA_SERVER_ID, SERVER_UUID,
                PRIMARY_UUID + ":1-120");

        assertThatCode(() -> check(properties(true), primary(PRIMARY_SERVER_ID, PRIMARY_UUID)).verify(captured.connection()))
                .doesNotThrowAnyException();
        assertThat(captured.issued()).containsSubsequence("SHOW REPLICA STATUS", "SHOW SLAVE STATUS");
    }

    @Test
    void aPrimaryWhoseBinlogLeavesACapturedDatabaseOutIsRefused() {
        RecordedServer captured = server(replicaOfPrimary(PRIMARY_SERVER_ID), replicaVariables(), REPLICA_SERVER_ID,
                SERVER_UUID, PRIMARY_UUID + ":1-120");
        StartupCheckException refused = catchThrowableOfType(StartupCheckException.class,
                () -> check(capturingCoupons(true), primary(PRIMARY_SERVER_ID, PRIMARY_UUID, "shop"))
                        .verify(captured.connection()));
        assertThat(refused.getMessage()).contains("binlog filters of the primary")
                .contains("shop.coupon (ignore-db names shop)").contains("never replicate");
    }

    @Test
    void aPrimaryUserThatMayNotReadTheBinlogStatusIsToldTheGrant() {
        RecordedServer captured = server(replicaOfPrimary(PRIMARY_SERVER_ID), replicaVariables(), REPLICA_SERVER_ID,
                SERVER_UUID, PRIMARY_UUID + ":1-120");
        RecordedServer primary = server(MySql8Answers.noReplicationStatus(REPLICA_STATUS_COLUMNS),
                MySql8Answers.variables80(), PRIMARY_SERVER_ID, PRIMARY_UUID, PRIMARY_UUID + ":1-120")
                .refuse("SHOW BINARY LOG STATUS", MySql8Answers.ER_SPECIFIC_ACCESS_DENIED, "42000", "Access denied;"
                        + " you need (at least one of) the SUPER, REPLICATION CLIENT privilege(s) for this operation");
        StartupCheckException refused = catchThrowableOfType(StartupCheckException.class,
                () -> check(capturingCoupons(true), primary).verify(captured.connection()));
        assertThat(refused.getMessage()).contains("cannot tell whether the primary");
        assertThat(refused.fix()).contains("GRANT REPLICATION CLIENT ON *.*");
    }

    @Test
    void aReplicaThatIgnoresACapturedDatabaseIsRefusedWithMySqlsFilterStatement() {
        Rows status = replicaOfPrimary(PRIMARY_SERVER_ID);
        status.rows().get(0).set(status.columns().indexOf("Replicate_Ignore_DB"), "shop");
        RecordedServer captured = server(status, replicaVariables(), REPLICA_SERVER_ID, SERVER_UUID,
                PRIMARY_UUID + ":1-120");
        StartupCheckException refused = catchThrowableOfType(StartupCheckException.class,
                () -> check(capturingCoupons(true), primary(PRIMARY_SERVER_ID, PRIMARY_UUID)).verify(captured.connection()));
        assertThat(refused.getMessage()).contains("does not apply every change")
                .contains("shop.coupon (ignore-db names shop)");
        assertThat(refused.fix()).contains("CHANGE REPLICATION FILTER");
    }

    @Test
    void aMySqlReplicaWhosePrimaryIsItsSourceIsAccepted() {
        RecordedServer captured = server(replicaOfPrimary(PRIMARY_SERVER_ID), replicaVariables(), REPLICA_SERVER_ID,
                SERVER_UUID, PRIMARY_UUID + ":1-120");
        RecordedServer primary = primary(PRIMARY_SERVER_ID, PRIMARY_UUID);
        assertThatCode(() -> check(properties(true), primary).verify(captured.connection())).doesNotThrowAnyException();
        assertThat(primary.issued()).contains("SHOW REPLICA STATUS");
    }

    @Test
    void theTopOfAMySqlChainIsRecognisedByItsServerUuidInTheReplicasGtidExecutedWhateverItsCase() {
        // replica <- intermediate (server_id 5) <- top primary (server_id 1), whose transactions reached the replica
        Rows status = MySql8Answers.replicationStatus(REPLICA_STATUS_COLUMNS, "intermediate.example.com", 3306, 5,
                "5b5e6a2c-0000-11ef-8000-000000000005", "Yes", "");
        String gtidExecuted = MySql8Answers.gtidExecuted(PRIMARY_UUID.toUpperCase() + ":1-120",
                "5B5E6A2C-0000-11EF-8000-000000000005:1-3");
        RecordedServer captured = server(status, replicaVariables(), REPLICA_SERVER_ID, SERVER_UUID, gtidExecuted);
        assertThatCode(() -> check(properties(true), primary(PRIMARY_SERVER_ID, PRIMARY_UUID)).verify(captured.connection()))
                .doesNotThrowAnyException();
    }

    @Test
    void aMySqlPrimaryThatIsNeitherTheSourceNorInTheGtidSetIsRefused() {
        RecordedServer captured = server(replicaOfPrimary(PRIMARY_SERVER_ID), replicaVariables(), REPLICA_SERVER_ID,
                SERVER_UUID, MySql8Answers.gtidExecuted(PRIMARY_UUID + ":1-120", SERVER_UUID + ":1-2"));
        RecordedServer unrelated = primary(9, "9a9a9a9a-71ca-11e1-9e33-c80aa9429562");
        StartupCheckException refused = catchThrowableOfType(StartupCheckException.class,
                () -> check(properties(true), unrelated).verify(captured.connection()));
        assertThat(refused.getMessage()).contains("(server_id 9) is not the server replica.example.com:3306 replicates from");
    }

    @Test
    void aMySql84ReplicaWithoutLogReplicaUpdatesIsRefusedNamingTheMySqlVariable() {
        Map<String, String> variables = MySql8Answers.variables84();
        variables.put("read_only", "ON");
        variables.put("log_replica_updates", "OFF");
        RecordedServer captured = server(replicaOfPrimary(PRIMARY_SERVER_ID), variables, REPLICA_SERVER_ID, SERVER_UUID,
                PRIMARY_UUID + ":1-120");
        StartupCheckException refused = catchThrowableOfType(StartupCheckException.class,
                () -> withoutPrimary(properties(true)).verify(captured.connection()));
        assertThat(refused.getMessage()).contains("but log_slave_updates is OFF");
        assertThat(refused.fix()).contains("log_replica_updates=ON");
    }

    @Test
    void aMySqlUserWhoMayNotReadTheReplicationStatusIsToldToGrantReplicationClient() {
        RecordedServer captured = new RecordedServer().refuse("SHOW REPLICA STATUS", MySql8Answers.ER_SPECIFIC_ACCESS_DENIED,
                "42000", "Access denied; you need (at least one of) the SUPER, REPLICATION CLIENT privilege(s) for this"
                        + " operation");
        StartupCheckException refused = catchThrowableOfType(StartupCheckException.class,
                () -> withoutPrimary(properties(false)).verify(captured.connection()));
        assertThat(refused.getMessage()).contains("cannot tell whether replica.example.com:3306 is a replica",
                "SHOW REPLICA STATUS");
        assertThat(refused.fix()).contains("GRANT REPLICATION CLIENT ON *.*");
    }
}
