package dev.cdccache.connector.continuity;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks that the server's binlog still holds the history a stored position was taken from. A binlog file name is
 * not enough: {@code RESET MASTER} (or a restored backup, or another server) starts a new history whose first file
 * has the same name as the old first file, and a connector resuming there silently skips what the new history holds
 * before that offset.
 *
 * <p>The stored offset says where the connector stopped ({@code file}, {@code pos}) and which transactions it had
 * completed ({@code gtids}). On the history that wrote it:
 *
 * <ul>
 *   <li>{@code pos} is the start of an event in {@code file} ({@code SHOW BINLOG EVENTS} refuses an offset inside an
 *       event or past the end of the file);</li>
 *   <li>on MariaDB, whose GTID sequence numbers grow by one per transaction within a domain, the first transaction
 *       after {@code pos} is the successor of the stored GTID of its domain; when none follows in that file, the
 *       GTID state after the file (the next file's {@code Gtid_list}, or {@code @@gtid_binlog_pos} for the last
 *       file) is the stored one.</li>
 * </ul>
 *
 * <p>A reset history restarts its sequence numbers at 1, so it fails these checks unless its file happens to have an
 * event boundary at the stored offset holding exactly the next sequence number. On MySQL only the event boundary is
 * checked here; its {@code @@server_uuid} ({@link ServerIdentity}) tells servers apart.
 *
 * <p>On MariaDB Debezium resumes by GTID, and an offset it stores right after connecting by GTID carries the start of
 * a file ({@code pos} 4, from the server's rotate event) with the GTIDs it resumed from: that offset names no
 * transaction boundary. For it the GTID state is compared instead: the server's binlog must reach the stored GTID
 * position ({@code @@gtid_binlog_pos}), and the file must start before it (its {@code Gtid_list}). A reset history
 * that has not yet caught up with the stored sequence numbers fails this; one that has already passed them is not
 * recognised at such an offset.
 */
final class BinlogHistory {

    /** How many events after the stored position are read looking for the next transaction. */
    static final int LOOK_AHEAD = 50;
    /** The offset of a binlog file's first event (after its 4-byte magic number). */
    private static final long FILE_START = 4;

    private static final Pattern MARIADB_GTID = Pattern.compile("(\\d+)-(\\d+)-(\\d+)");

    /** One row of {@code SHOW BINLOG EVENTS}. */
    record Event(String type, String info) {
    }

    /** What is read from the server; an interface so that the decision can be tested without a server. */
    interface Binlog {
        /** Binlog files, oldest first ({@code SHOW BINARY LOGS}). */
        List<String> files() throws SQLException;

        /** The GTID position of the last transaction written ({@code @@gtid_binlog_pos}). */
        String gtidBinlogPos() throws SQLException;

        /** Up to {@code limit} events from {@code pos}; throws when {@code pos} is not the start of an event. */
        List<Event> events(String file, long pos, int limit) throws SQLException;
    }

    private BinlogHistory() {
    }

    /**
     * Why the binlog does not continue the stored history, or empty when it does (or cannot be judged: no GTIDs
     * stored, MySQL, a GTID domain the offset does not know).
     *
     * @param gtids the stored {@code gtids}, may be null
     * @param midTransaction whether the offset points into a transaction (Debezium stores {@code event}/{@code row}
     *     counts then, and {@code gtids} excludes that transaction)
     */
    static Optional<String> mismatch(Binlog binlog, boolean mariaDb, String file, long pos, String gtids,
            boolean midTransaction) throws SQLException {
        // read the state before the events: a transaction committed in between then shows up as an event
        List<String> files = binlog.files();
        String stateNow = mariaDb ? binlog.gtidBinlogPos() : "";
        List<Event> events;
        try {
            events = binlog.events(file, pos, LOOK_AHEAD);
        } catch (SQLException e) {
            return Optional.of("the stored position " + file + ":" + pos + " is not the start of an event in the server's "
                    + file + " (" + e.getMessage() + ")");
        }
        if (!mariaDb || gtids == null || gtids.isBlank()) {
            return Optional.empty();
        }
        Map<Long, Long> stored = lastSequencePerDomain(gtids);
        if (pos <= FILE_START) {
            return gtidStateMismatch(file, pos, gtids, stored, stateNow, events);
        }
        long slack = midTransaction ? 1 : 0;
        for (Event event : events) {
            if ("Gtid".equalsIgnoreCase(event.type())) {
                Matcher m = MARIADB_GTID.matcher(event.info());
                if (!m.find()) {
                    return Optional.empty();
                }
                long domain = Long.parseLong(m.group(1));
                long sequence = Long.parseLong(m.group(3));
                Long last = stored.get(domain);
                if (last == null || (sequence > last && sequence <= last + 1 + slack)) {
                    return Optional.empty();
                }
                return Optional.of("the transaction at the stored position " + file + ":" + pos + " has GTID " + m.group()
                        + ", but the stored position follows GTID " + gtids + " (the next one would be " + domain + "-*-"
                        + (last + 1) + ")");
            }
            if ("Rotate".equalsIgnoreCase(event.type()) || "Stop".equalsIgnoreCase(event.type())) {
                break;
            }
        }
        if (events.size() >= LOOK_AHEAD) {
            return Optional.empty(); // no transaction within the look-ahead: nothing to compare with
        }
        int index = files.indexOf(file);
        String after;
        String where;
        if (index >= 0 && index + 1 < files.size()) {
            String next = files.get(index + 1);
            after = binlog.events(next, 4, 3).stream().filter(e -> "Gtid_list".equalsIgnoreCase(e.type()))
                    .map(Event::info).findFirst().orElse("");
            where = "the GTID list at the start of " + next;
        } else {
            after = stateNow;
            where = "@@gtid_binlog_pos";
        }
        Map<Long, Long> then = lastSequencePerDomain(after);
        for (Map.Entry<Long, Long> domain : stored.entrySet()) {
            Long sequence = then.get(domain.getKey());
            if (sequence == null || sequence < domain.getValue() || sequence > domain.getValue() + slack) {
                return Optional.of("no transaction follows the stored position " + file + ":" + pos + ", so the GTID state"
                        + " there should be " + gtids + ", but " + where + " is " + (after.isBlank() ? "empty" : after));
            }
        }
        return Optional.empty();
    }

    /** An offset at the start of a file, stored after a GTID connect: compares GTID states instead of events. */
    private static Optional<String> gtidStateMismatch(String file, long pos, String gtids, Map<Long, Long> stored,
            String stateNow, List<Event> events) {
        Map<Long, Long> server = lastSequencePerDomain(stateNow);
        String fileStart = events.stream().filter(e -> "Gtid_list".equalsIgnoreCase(e.type())).map(Event::info)
                .findFirst().orElse("");
        Map<Long, Long> before = lastSequencePerDomain(fileStart);
        for (Map.Entry<Long, Long> domain : stored.entrySet()) {
            Long last = server.get(domain.getKey());
            if (last == null || last < domain.getValue()) {
                return Optional.of("the stored position follows GTID " + gtids + ", but the server's binlog ends at GTID "
                        + (stateNow.isBlank() ? "(none)" : stateNow) + " (@@gtid_binlog_pos), before it");
            }
            Long started = before.get(domain.getKey());
            if (started != null && started > domain.getValue()) {
                return Optional.of("the stored position " + file + ":" + pos + " follows GTID " + gtids + ", but " + file
                        + " starts after GTID " + fileStart);
            }
        }
        return Optional.empty();
    }

    /** The highest sequence number per GTID domain of a MariaDB GTID list such as {@code 0-1-22,1-3-5}. */
    static Map<Long, Long> lastSequencePerDomain(String gtids) {
        Map<Long, Long> last = new HashMap<>();
        Matcher m = MARIADB_GTID.matcher(gtids == null ? "" : gtids);
        while (m.find()) {
            last.merge(Long.parseLong(m.group(1)), Long.parseLong(m.group(3)), Math::max);
        }
        return last;
    }

    /** Reads the binlog through a JDBC connection as the connector user (REPLICATION CLIENT suffices). */
    static Binlog of(Connection connection) {
        return new Binlog() {
            @Override
            public List<String> files() throws SQLException {
                List<String> files = new ArrayList<>();
                try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("SHOW BINARY LOGS")) {
                    while (rs.next()) {
                        files.add(rs.getString(1));
                    }
                }
                return files;
            }

            @Override
            public String gtidBinlogPos() throws SQLException {
                try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("SELECT @@gtid_binlog_pos")) {
                    rs.next();
                    return rs.getString(1) == null ? "" : rs.getString(1);
                }
            }

            @Override
            public List<Event> events(String file, long pos, int limit) throws SQLException {
                if (!file.matches("[A-Za-z0-9._-]+")) {
                    throw new SQLException("not a binlog file name: " + file);
                }
                List<Event> events = new ArrayList<>();
                try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(
                        "SHOW BINLOG EVENTS IN '" + file + "' FROM " + pos + " LIMIT " + limit)) {
                    while (rs.next()) {
                        events.add(new Event(rs.getString("Event_type"), rs.getString("Info") == null ? "" : rs.getString("Info")));
                    }
                }
                return events;
            }
        };
    }
}
