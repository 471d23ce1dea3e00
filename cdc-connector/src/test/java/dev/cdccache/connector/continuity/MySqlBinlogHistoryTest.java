package dev.cdccache.connector.continuity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.connector.config.ConnectorProperties.Flavor;
import dev.cdccache.connector.testing.MySql8Answers;
import dev.cdccache.connector.testing.RecordedServer;
import dev.cdccache.connector.testing.RecordedServer.Rows;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * What the continuity check reads from a MySQL 8 server, through JDBC, against MySQL's answers: the server's identity
 * is its {@code server_uuid}, and the stored position is judged by the event boundary alone, without MariaDB's
 * {@code @@gtid_binlog_pos}, which MySQL does not have.
 */
class MySqlBinlogHistoryTest {

    private static final String FILE = "binlog.000003";

    /** MySQL 8.0's binlog: SHOW BINARY LOGS with its Encrypted column, SHOW BINLOG EVENTS from a transaction start. */
    private static RecordedServer mySql() {
        return new RecordedServer()
                .answer("SHOW BINARY LOGS", Rows.of("Log_name", "File_size", "Encrypted")
                        .row("binlog.000002", "1532", "No").row(FILE, "4879", "No"))
                .answer("SHOW BINLOG EVENTS IN '" + FILE + "' FROM 1204 LIMIT \\d+",
                        Rows.of("Log_name", "Pos", "Event_type", "Server_id", "End_log_pos", "Info")
                                .row(FILE, "1204", "Gtid", "1", "1283",
                                        "SET @@SESSION.GTID_NEXT= '" + MySql8Answers.SERVER_UUID + ":23'")
                                .row(FILE, "1283", "Query", "1", "1367", "BEGIN")
                                .row(FILE, "1367", "Table_map", "1", "1431", "table_id: 92 (shop.coupon)")
                                .row(FILE, "1431", "Update_rows", "1", "1563", "table_id: 92 flags: STMT_END_F")
                                .row(FILE, "1563", "Xid", "1", "1594", "COMMIT /* xid=412 */"))
                .refuse("SHOW BINLOG EVENTS IN '" + FILE + "' FROM 1205 LIMIT \\d+", 1220, "HY000",
                        "Error when executing command SHOW BINLOG EVENTS: Wrong offset or I/O error")
                .refuse("SELECT @@gtid_binlog_pos", 1193, "HY000", "Unknown system variable 'gtid_binlog_pos'")
                .answer("SELECT @@server_id, @@server_uuid", Rows.of("@@server_id", "@@server_uuid")
                        .row("1", MySql8Answers.SERVER_UUID));
    }

    @Test
    void aMySqlServerIsIdentifiedByItsServerUuid() throws SQLException {
        ServerIdentity identity = ServerIdentity.of(mySql().connection(), Flavor.MYSQL);
        assertThat(identity).isEqualTo(new ServerIdentity(1, MySql8Answers.SERVER_UUID));
        assertThat(identity).isNotEqualTo(new ServerIdentity(1, "4d8b564f-03f4-4975-856a-0e65c3105328"));
    }

    @Test
    void aStoredPositionAtAnEventBoundaryOfAMySqlBinlogContinuesWithoutAskingForMariaDbsGtidPosition()
            throws SQLException {
        RecordedServer server = mySql();
        String storedGtids = MySql8Answers.SERVER_UUID + ":1-22";
        assertThat(BinlogHistory.mismatch(BinlogHistory.of(server.connection()), false, FILE, 1204, storedGtids, false))
                .isEmpty();
        assertThat(server.issued()).noneMatch(q -> q.contains("gtid_binlog_pos"));
    }

    @Test
    void aStoredPositionInsideAMySqlEventIsAnotherHistory() throws SQLException {
        assertThat(BinlogHistory.mismatch(BinlogHistory.of(mySql().connection()), false, FILE, 1205, null, false))
                .hasValueSatisfying(why -> assertThat(why).contains("is not the start of an event", "Wrong offset"));
    }
}
