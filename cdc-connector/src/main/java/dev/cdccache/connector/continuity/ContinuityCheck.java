package dev.cdccache.connector.continuity;

import dev.cdccache.connector.config.ConnectorProperties;
import dev.cdccache.connector.config.ConnectorProperties.LostPositionPolicy;
import dev.cdccache.connector.continuity.Continuity.Verdict;
import dev.cdccache.connector.heartbeat.HeartbeatRow;
import dev.cdccache.connector.startup.DatabaseCheck;
import dev.cdccache.connector.startup.StartupCheckException;
import dev.cdccache.contract.Epoch;
import dev.cdccache.contract.HeartbeatTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides, before the engine starts, whether the connector can prove that it resumes exactly where it stopped,
 * and so which epoch its heartbeat row carries (docs/contract.md, "Epochs"):
 *
 * <ul>
 *   <li>stored offsets whose binlog file is still on the server: the epoch of this connector's row is kept;</li>
 *   <li>stored offsets whose binlog file was purged: the changes in between are gone. With
 *       {@code cdc.connector.continuity.on-lost-position=new-epoch} (default) the offsets are cleared, the engine
 *       starts at the current position and a new epoch makes every client drop what it cannot prove; with
 *       {@code fail} start-up stops with the remedy;</li>
 *   <li>no stored offsets: a new epoch, and the log says whether this is a first start, lost offsets (this
 *       connector's row exists) or a rename (another connector's row covered the same tables).</li>
 * </ul>
 *
 * <p>The decided row is written synchronously before the engine starts, so the epoch in the database is never
 * older than the offsets the engine stores afterwards: a later start that finds offsets also finds the epoch
 * that belongs to them.
 */
public final class ContinuityCheck {

    private static final Logger log = LoggerFactory.getLogger(ContinuityCheck.class);

    private final ConnectorProperties properties;
    private final Optional<HeartbeatRow> row;
    private final StoredOffsets offsets;
    private final ContinuityState state;
    private final Supplier<String> newEpoch;
    private final Clock clock;

    public ContinuityCheck(ConnectorProperties properties, Optional<HeartbeatRow> row, StoredOffsets offsets,
            ContinuityState state, Clock clock) {
        this(properties, row, offsets, state, Epoch::next, clock);
    }

    ContinuityCheck(ConnectorProperties properties, Optional<HeartbeatRow> row, StoredOffsets offsets,
            ContinuityState state, Supplier<String> newEpoch, Clock clock) {
        this.properties = properties;
        this.row = row;
        this.offsets = offsets;
        this.state = state;
        this.newEpoch = newEpoch;
        this.clock = clock;
    }

    /**
     * Reaches the verdict, records it in the state, logs it and writes the heartbeat row.
     *
     * @throws StartupCheckException when the stored position is gone and the policy is {@code fail}
     */
    public Continuity establish() {
        Optional<Map<String, Object>> stored = offsets.read();
        try (Connection connection = DatabaseCheck.connect(properties.getDatabase())) {
            List<BeatRow> rows = row.isPresent() ? readRows(connection, row.get()) : List.of();
            Optional<BeatRow> own = rows.stream().filter(r -> r.id().equals(properties.getName())).findFirst();
            Continuity continuity = stored.isPresent()
                    ? withStoredOffsets(connection, stored.get(), own)
                    : withoutStoredOffsets(own, rows);
            state.set(continuity);
            report(continuity);
            if (row.isPresent()) {
                write(connection, row.get(), continuity.epoch());
            }
            return continuity;
        } catch (SQLException e) {
            throw new StartupCheckException("Could not read or write the heartbeat table "
                    + row.map(r -> r.table().qualifiedName()).orElse("") + " on " + where() + ": " + e.getMessage(),
                    "Check that the table has the columns " + HeartbeatTable.COLUMNS + " and that user '"
                            + properties.getDatabase().getUser() + "' may SELECT, INSERT and UPDATE it.", e);
        }
    }

    private Continuity withStoredOffsets(Connection connection, Map<String, Object> stored, Optional<BeatRow> own)
            throws SQLException {
        String file = String.valueOf(stored.get("file"));
        Object pos = stored.get("pos");
        List<String> available = binlogFiles(connection);
        if (stored.get("file") == null || available.contains(file)) {
            if (row.isEmpty()) {
                // heartbeats disabled: no row carries an epoch, and no client can tell epochs apart
                return new Continuity("", Verdict.RESUMED, "Resuming at the stored binlog position " + file + ":" + pos
                        + " (heartbeats disabled: no epoch is published).", "", clock.instant());
            }
            if (own.isPresent() && !own.get().epoch().isEmpty()) {
                return new Continuity(own.get().epoch(), Verdict.RESUMED, "Resuming at the stored binlog position "
                        + file + ":" + pos + "; epoch " + own.get().epoch() + " kept.", "", clock.instant());
            }
            return new Continuity(newEpoch.get(), Verdict.EPOCH_UNKNOWN, "Resuming at the stored binlog position "
                    + file + ":" + pos + ", but the heartbeat row of '" + properties.getName()
                    + "' (with its epoch) is gone; starting a new epoch to be safe: clients drop their cached entries"
                    + " of the captured tables once.", "", clock.instant());
        }
        String oldest = available.isEmpty() ? "none" : available.get(0);
        String what = "The binlog position connector '" + properties.getName() + "' stopped at (" + file + ":" + pos
                + ") is no longer on the server " + where() + " (oldest binlog file there: " + oldest + "): it was"
                + " purged while the connector was down, and the changes committed in between cannot be read.";
        if (properties.getContinuity().getOnLostPosition() == LostPositionPolicy.FAIL) {
            throw new StartupCheckException(what, lostPositionRemedy());
        }
        offsets.clear();
        return new Continuity(newEpoch.get(), Verdict.POSITION_PURGED, what + " Starting at the current binlog"
                + " position under a new epoch: every client drops its cached entries of the captured tables.",
                "Keep binlogs longer than the connector's longest outage (binlog_expire_logs_seconds /"
                        + " expire_logs_days), and alert on the connector being down.", clock.instant());
    }

    private Continuity withoutStoredOffsets(Optional<BeatRow> own, List<BeatRow> rows) {
        String epoch = newEpoch.get();
        String where = properties.getOffsets().getStore() == ConnectorProperties.OffsetStore.KAFKA
                ? "topic " + properties.getName() + ".offsets" : "file " + properties.getOffsets().getFile();
        if (own.isPresent()) {
            return new Continuity(epoch, Verdict.OFFSETS_LOST, "Connector '" + properties.getName() + "' ran before"
                    + " (its heartbeat row was last written at " + own.get().ts() + ") but no stored binlog position"
                    + " was found in " + where + ": its offsets were lost. Starting at the current binlog position"
                    + " under a new epoch " + epoch + ": every client drops its cached entries of the captured tables.",
                    "Find out why the offsets disappeared (topic deleted or compacted away, another offsets file,"
                            + " cdc.connector.name changed): a connector must keep its offsets to resume without a gap.",
                    clock.instant());
        }
        Set<String> mine = new HashSet<>(HeartbeatTable.tablesOf(row.map(HeartbeatRow::tablesColumn).orElse("")));
        List<String> predecessors = new ArrayList<>();
        for (BeatRow other : rows) {
            if (!other.id().equals(properties.getName())
                    && HeartbeatTable.tablesOf(other.tables()).stream().anyMatch(mine::contains)) {
                predecessors.add("'" + other.id() + "' (last heartbeat " + other.ts() + ")");
            }
        }
        if (!predecessors.isEmpty()) {
            return new Continuity(epoch, Verdict.RENAMED, "No stored binlog position for connector '"
                    + properties.getName() + "', but the heartbeat table shows " + String.join(", ", predecessors)
                    + " capturing some of the same tables: if this connector was renamed, the old name's offsets"
                    + " do not carry over. Starting at the current binlog position under a new epoch " + epoch
                    + ": every client drops its cached entries of the captured tables.",
                    "If the connector was renamed, delete the old name's heartbeat row once it is stopped (DELETE"
                            + " FROM " + row.get().table().qualifiedName() + " WHERE id = '<old name>'); if both run"
                            + " on purpose, nothing to do.", clock.instant());
        }
        return new Continuity(epoch, Verdict.FIRST_START, "First start of connector '" + properties.getName()
                + "': starting at the current binlog position under epoch " + epoch + ".", "", clock.instant());
    }

    /** The state this check records its verdict in. */
    public ContinuityState state() {
        return state;
    }

    /** The remedy when the stored position is gone, shared with the translation of Debezium's own refusal. */
    static String lostPositionRemedy() {
        return "Set cdc.connector.continuity.on-lost-position=new-epoch (the default) and restart: the connector"
                + " then starts at the current binlog position under a new epoch, and every client drops its cached"
                + " entries of the captured tables. Or delete the connector's stored offsets (its <name>.offsets"
                + " topic or offsets file) and restart. Then keep binlogs longer than the longest outage"
                + " (binlog_expire_logs_seconds).";
    }

    private void report(Continuity continuity) {
        switch (continuity.verdict()) {
            case RESUMED, FIRST_START -> log.info("Continuity: {}", continuity.message());
            case EPOCH_UNKNOWN -> log.warn("Continuity: {}", continuity.message());
            default -> log.warn("Continuity gap: {} What to do: {}", continuity.message(), continuity.action());
        }
    }

    private static List<String> binlogFiles(Connection connection) throws SQLException {
        List<String> files = new ArrayList<>();
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("SHOW BINARY LOGS")) {
            while (rs.next()) {
                files.add(rs.getString(1));
            }
        }
        return files;
    }

    private static List<BeatRow> readRows(Connection connection, HeartbeatRow row) throws SQLException {
        List<BeatRow> rows = new ArrayList<>();
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT " + String.join(", ", HeartbeatTable.COLUMNS) + " FROM "
                        + row.table().qualifiedName())) {
            while (rs.next()) {
                Timestamp ts = rs.getTimestamp(2);
                rows.add(new BeatRow(rs.getString(1), ts == null ? "?" : ts.toLocalDateTime() + " UTC",
                        rs.getString(3) == null ? "" : rs.getString(3),
                        rs.getString(4) == null ? "" : rs.getString(4).toLowerCase(Locale.ROOT)));
            }
        }
        return rows;
    }

    private static void write(Connection connection, HeartbeatRow row, String epoch) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement(row.upsertStatement())) {
            s.setString(1, row.connectorId());
            s.setString(2, epoch);
            s.setString(3, row.tablesColumn());
            s.executeUpdate();
        }
    }

    private String where() {
        return properties.getDatabase().getHost() + ":" + properties.getDatabase().getPort();
    }

    private record BeatRow(String id, String ts, String epoch, String tables) {
    }
}
