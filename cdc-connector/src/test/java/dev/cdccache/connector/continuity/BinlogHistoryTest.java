package dev.cdccache.connector.continuity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.connector.continuity.BinlogHistory.Event;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BinlogHistoryTest {

    /** A binlog of a few files, each a map from offset to the events from there on. */
    private record FakeBinlog(List<String> files, String gtidBinlogPos, Map<String, Map<Long, List<Event>>> content)
            implements BinlogHistory.Binlog {
        @Override
        public List<Event> events(String file, long pos, int limit) throws SQLException {
            List<Event> events = content.getOrDefault(file, Map.of()).get(pos);
            if (events == null) {
                throw new SQLException("Error when executing command SHOW BINLOG EVENTS: Wrong offset or I/O error");
            }
            return events;
        }
    }

    private static final Event CHECKPOINT = new Event("Binlog_checkpoint", "mariadb-bin.000001");

    private static Optional<String> check(FakeBinlog binlog, String gtids, boolean midTransaction) throws SQLException {
        return BinlogHistory.mismatch(binlog, true, "mariadb-bin.000001", 833, gtids, midTransaction);
    }

    @Test
    void theNextTransactionOfTheStoredHistoryAtThePositionIsAContinuation() throws SQLException {
        FakeBinlog binlog = new FakeBinlog(List.of("mariadb-bin.000001"), "0-7-9", Map.of("mariadb-bin.000001",
                Map.of(833L, List.of(new Event("Gtid", "BEGIN GTID 0-7-5"), new Event("Annotate_rows", "update")))));

        assertThat(check(binlog, "0-7-4", false)).isEmpty();
    }

    @Test
    void aResetHistoryWhoseFileHasAnEventAtThePositionIsRecognisedByItsSequenceNumber() throws SQLException {
        FakeBinlog binlog = new FakeBinlog(List.of("mariadb-bin.000001"), "0-7-40", Map.of("mariadb-bin.000001",
                Map.of(833L, List.of(CHECKPOINT, new Event("Gtid", "BEGIN GTID 0-7-3")))));

        assertThat(check(binlog, "0-7-4", false)).hasValueSatisfying(why -> assertThat(why)
                .contains("has GTID 0-7-3", "follows GTID 0-7-4"));
    }

    @Test
    void aPositionThatIsNotAnEventBoundaryInTheFileOfThatNameIsAnotherHistory() throws SQLException {
        FakeBinlog binlog = new FakeBinlog(List.of("mariadb-bin.000001"), "0-7-40",
                Map.of("mariadb-bin.000001", Map.of(4L, List.of())));

        assertThat(check(binlog, "0-7-4", false)).hasValueSatisfying(why -> assertThat(why)
                .contains("is not the start of an event", "Wrong offset"));
        assertThat(BinlogHistory.mismatch(binlog, false, "mariadb-bin.000001", 833, null, false)).isPresent();
    }

    @Test
    void theEndOfTheLastFileIsAContinuationOnlyWhileTheServersGtidPositionIsTheStoredOne() throws SQLException {
        Map<String, Map<Long, List<Event>>> endOfFile = Map.of("mariadb-bin.000001", Map.of(833L, List.of()));

        assertThat(check(new FakeBinlog(List.of("mariadb-bin.000001"), "0-7-4", endOfFile), "0-7-4", false)).isEmpty();
        assertThat(check(new FakeBinlog(List.of("mariadb-bin.000001"), "0-7-2", endOfFile), "0-7-4", false))
                .hasValueSatisfying(why -> assertThat(why).contains("@@gtid_binlog_pos is 0-7-2"));
    }

    @Test
    void theEndOfAnEarlierFileIsComparedWithTheGtidListThatStartsTheNextFile() throws SQLException {
        Map<Long, List<Event>> next = Map.of(4L, List.of(new Event("Format_desc", "Server ver"), new Event("Gtid_list", "[0-7-4]")));
        FakeBinlog same = new FakeBinlog(List.of("mariadb-bin.000001", "mariadb-bin.000002"), "0-7-9", Map.of(
                "mariadb-bin.000001", Map.of(833L, List.of(new Event("Rotate", "mariadb-bin.000002;pos=4"))),
                "mariadb-bin.000002", next));
        FakeBinlog other = new FakeBinlog(List.of("mariadb-bin.000001", "mariadb-bin.000002"), "0-7-9", Map.of(
                "mariadb-bin.000001", Map.of(833L, List.of(new Event("Rotate", "mariadb-bin.000002;pos=4"))),
                "mariadb-bin.000002", Map.of(4L, List.of(new Event("Gtid_list", "[0-7-1]")))));

        assertThat(check(same, "0-7-4", false)).isEmpty();
        assertThat(check(other, "0-7-4", false)).hasValueSatisfying(why -> assertThat(why)
                .contains("the GTID list at the start of mariadb-bin.000002 is [0-7-1]"));
    }

    @Test
    void anOffsetInsideATransactionMayBeFollowedByTheTransactionAfterIt() throws SQLException {
        FakeBinlog binlog = new FakeBinlog(List.of("mariadb-bin.000001"), "0-7-9", Map.of("mariadb-bin.000001",
                Map.of(833L, List.of(new Event("Table_map", "t"), new Event("Gtid", "BEGIN GTID 0-7-6")))));

        assertThat(check(binlog, "0-7-4", true)).isEmpty();
        assertThat(check(binlog, "0-7-4", false)).isPresent();
    }

    @Test
    void anOffsetAtTheStartOfAFileAfterAGtidConnectIsJudgedByTheGtidStates() throws SQLException {
        Map<String, Map<Long, List<Event>>> file = Map.of("mariadb-bin.000001", Map.of(4L, List.of(
                new Event("Format_desc", "Server ver"), new Event("Gtid_list", "[]"), CHECKPOINT,
                new Event("Gtid", "BEGIN GTID 0-7-1"))));
        FakeBinlog sameHistory = new FakeBinlog(List.of("mariadb-bin.000001"), "0-7-210", file);
        FakeBinlog resetHistory = new FakeBinlog(List.of("mariadb-bin.000001"), "0-7-40", file);

        assertThat(BinlogHistory.mismatch(sameHistory, true, "mariadb-bin.000001", 4, "0-7-197", false)).isEmpty();
        assertThat(BinlogHistory.mismatch(resetHistory, true, "mariadb-bin.000001", 4, "0-7-197", false))
                .hasValueSatisfying(why -> assertThat(why).contains("ends at GTID 0-7-40"));
    }

    @Test
    void theHighestSequenceNumberOfEachDomainIsWhatAGtidListStoresForIt() {
        assertThat(BinlogHistory.lastSequencePerDomain("0-1-22,1-3-5,0-2-30")).containsOnly(Map.entry(0L, 30L), Map.entry(1L, 5L));
        assertThat(BinlogHistory.lastSequencePerDomain("")).isEmpty();
    }
}
