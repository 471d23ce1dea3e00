package dev.cdccache.connector.continuity;

import dev.cdccache.connector.config.ConnectorProperties;
import dev.cdccache.connector.config.ConnectorProperties.Flavor;
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
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides, before the engine starts, whether the connector can prove that it resumes exactly where it stopped,
 * and so which epoch its heartbeat row carries (docs/contract.md, "Epochs"; docs/connector.md, "Continuity and
 * epochs"). A stored position is resumed from under the same epoch only when all of these hold:
 *
 * <ul>
 *   <li>it was read from this server ({@link ServerIdentity}, recorded in the {@link OffsetsOrigin} next to the
 *       offsets);</li>
 *   <li>its binlog file is still on the server, and the binlog there still holds the history the position was taken
 *       from ({@link BinlogHistory}: the event boundary, and on MariaDB the GTID after it);</li>
 *   <li>it was written while the connector captured the same tables, under the epoch its heartbeat row carries.</li>
 * </ul>
 *
 * <p>Otherwise the changes in between may be missing from the topics. With
 * {@code cdc.connector.continuity.on-lost-position=new-epoch} (default) the offsets are cleared, the engine starts at
 * the current position and a new epoch makes every client drop what it cannot prove; with {@code fail} a lost or
 * foreign position stops start-up with the remedy. Without stored offsets the epoch is new, and the log says whether
 * this is a first start, lost offsets (this connector's row exists) or a rename (another connector's row covered the
 * same tables).
 *
 * <p>The origin record and the decided row are written synchronously before the engine starts, so the epoch in the
 * database is never older than the offsets the engine stores afterwards: a later start that finds offsets also
 * finds the epoch and the origin that belong to them.
 */
public final class ContinuityCheck {

    private static final Logger log = LoggerFactory.getLogger(ContinuityCheck.class);

    private final ConnectorProperties properties;
    private final Optional<HeartbeatRow> row;
    private final StoredOffsets offsets;
    private final ContinuityState state;
    private final Supplier<OffsetsOrigin.Instance> instance;
    private final Supplier<String> newEpoch;
    private final Clock clock;

    /**
     * @param instance this process, as recorded with the offsets (its lease is held by then)
     */
    public ContinuityCheck(ConnectorProperties properties, Optional<HeartbeatRow> row, StoredOffsets offsets,
            ContinuityState state, Supplier<OffsetsOrigin.Instance> instance, Clock clock) {
        this(properties, row, offsets, state, instance, Epoch::next, clock);
    }

    ContinuityCheck(ConnectorProperties properties, Optional<HeartbeatRow> row, StoredOffsets offsets,
            ContinuityState state, Supplier<OffsetsOrigin.Instance> instance, Supplier<String> newEpoch, Clock clock) {
        this.properties = properties;
        this.row = row;
        this.offsets = offsets;
        this.state = state;
        this.instance = instance;
        this.newEpoch = newEpoch;
        this.clock = clock;
    }

    /** The captured data tables as recorded with the offsets: lower-case {@code db.table}, sorted, comma-separated. */
    static String capturedTables(ConnectorProperties properties) {
        return properties.getTables().stream().map(t -> t.trim().toLowerCase(Locale.ROOT)).distinct().sorted()
                .collect(Collectors.joining(","));
    }

    /** A verdict and whether Debezium's stored offset must be cleared for it. */
    private record Decision(Continuity continuity, boolean clearOffsets) {
    }

    /**
     * Reaches the verdict, records it in the state, logs it and writes the heartbeat row.
     *
     * @throws StartupCheckException when the stored position is gone and the policy is {@code fail}
     */
    public Continuity establish() {
        StoredOffsets.Stored stored = offsets.read();
        boolean onPrimary = properties.getHeartbeat().getPrimary().isConfigured();
        try (Connection connection = DatabaseCheck.connect(properties.getDatabase());
                // a replica's heartbeat row lives on its primary: read and written there, never on the replica
                Connection heartbeats = onPrimary
                        ? DatabaseCheck.connect(properties.heartbeatDatabase(), properties.heartbeatDatabaseSettings())
                        : null) {
            Connection beatConnection = onPrimary ? heartbeats : connection;
            ServerIdentity server = ServerIdentity.of(connection, properties.getDatabase().getFlavor());
            List<BeatRow> rows = row.isPresent() ? readRows(beatConnection, row.get()) : List.of();
            Optional<BeatRow> own = rows.stream().filter(r -> r.id().equals(properties.getName())).findFirst();
            Decision decision = stored.offset().isPresent()
                    ? withStoredOffsets(connection, stored.offset().get(), stored.origin(), server, own)
                    : new Decision(withoutStoredOffsets(own, rows), false);
            Continuity continuity = decision.continuity();
            // before the row with the epoch is written: an incident logged after this place is not covered by it
            BinlogPosition incidentsCovered = incidentsCoveredBefore(connection, server, continuity, stored);
            offsets.write(new OffsetsOrigin(server, capturedTables(properties), continuity.epoch(), instance.get()),
                    decision.clearOffsets());
            if (row.isPresent()) {
                write(beatConnection, row.get(), continuity.epoch());
            }
            state.set(continuity);
            state.coverIncidentsBefore(incidentsCovered);
            report(continuity);
            return continuity;
        } catch (SQLException e) {
            throw new StartupCheckException("Could not read or write the heartbeat table "
                    + row.map(r -> r.table().qualifiedName()).orElse("") + " on " + heartbeatWhere() + ": "
                    + e.getMessage(),
                    "Check that the table has the columns " + HeartbeatTable.COLUMNS + " and that user '"
                            + properties.heartbeatDatabase().getUser() + "' (" + properties.heartbeatDatabaseSettings()
                            + ".user) may SELECT, INSERT and UPDATE it.", e);
        }
    }

    /**
     * Before where the binlog's incident events are covered by the epoch decided: a resumed epoch was published up to
     * the stored position; a new one is younger than every event the binlog holds now. Null when unknown.
     */
    private static BinlogPosition incidentsCoveredBefore(Connection connection, ServerIdentity server,
            Continuity continuity, StoredOffsets.Stored stored) {
        if (continuity.verdict() == Verdict.RESUMED) {
            Map<String, Object> offset = stored.offset().orElse(Map.of());
            return offset.get("file") == null ? null
                    : new BinlogPosition(server.serverId(), offset.get("file").toString(), asLong(offset.get("pos")));
        }
        for (String query : List.of("SHOW MASTER STATUS", "SHOW BINARY LOG STATUS")) { // MySQL 8.4 knows only the second
            try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(query)) {
                return rs.next() ? new BinlogPosition(server.serverId(), rs.getString(1), rs.getLong(2)) : null;
            } catch (SQLException e) {
                // the other form, else unknown: every incident read renews the epoch
            }
        }
        return null;
    }

    private Decision withStoredOffsets(Connection connection, Map<String, Object> stored, Optional<OffsetsOrigin> origin,
            ServerIdentity server, Optional<BeatRow> own) throws SQLException {
        String file = stored.get("file") == null ? null : stored.get("file").toString();
        String position = file + ":" + stored.get("pos");
        String name = properties.getName();
        if (origin.isPresent() && !origin.get().server().equals(server)) {
            return lost(Verdict.SERVER_CHANGED, "The binlog position connector '" + name + "' stopped at (" + position
                    + ") was read from the server with " + origin.get().server() + ", but " + where() + " is the server"
                    + " with " + server + " (a failover, or cdc.connector.database.host names another server now): the"
                    + " same binlog file names hold other events there, and the changes committed meanwhile cannot be"
                    + " told apart.", "Nothing, if the database failed over on purpose. Otherwise check"
                    + " cdc.connector.database.host and cdc.connector.database.port.");
        }
        Optional<StartupCheckException> resync = resyncRefusal(properties, origin);
        if (resync.isPresent()) {
            throw resync.get(); // the same server: the replica that skipped changes while the connector last ran
        }
        List<String> available = binlogFiles(connection);
        if (file != null && !available.contains(file)) {
            String oldest = available.isEmpty() ? "none" : available.get(0);
            return lost(Verdict.POSITION_PURGED, "The binlog position connector '" + name + "' stopped at (" + position
                    + ") is no longer on the server " + where() + " (oldest binlog file there: " + oldest + "): it was"
                    + " purged while the connector was down, and the changes committed in between cannot be read.",
                    "Keep binlogs longer than the connector's longest outage (binlog_expire_logs_seconds /"
                            + " expire_logs_days), and alert on the connector being down.");
        }
        if (file != null) {
            Optional<String> mismatch = BinlogHistory.mismatch(BinlogHistory.of(connection),
                    properties.getDatabase().getFlavor() == Flavor.MARIADB, file, asLong(stored.get("pos")),
                    stored.get("gtids") == null ? null : stored.get("gtids").toString(),
                    asLong(stored.get("event")) > 0 || asLong(stored.get("row")) > 0);
            if (mismatch.isPresent()) {
                return lost(Verdict.BINLOG_RESET, "The binlog of " + where() + " no longer holds the history connector '"
                        + name + "' stopped in: " + mismatch.get() + ". The binlog was reset (RESET MASTER) or the"
                        + " server replaced (a restored backup, another server with the same server_id) while the"
                        + " connector was down, and the changes committed in between cannot be told apart.",
                        "Do not reset the binlog of a server a connector reads; after a restore from backup nothing"
                                + " more is needed.");
            }
        }
        String tables = capturedTables(properties);
        if (origin.isPresent() && !origin.get().tables().equals(tables)) {
            String epoch = newEpoch.get();
            return new Decision(new Continuity(epoch, Verdict.CONFIGURATION_CHANGED, "The stored offsets of connector '"
                    + name + "' were written while it captured [" + origin.get().tables() + "] (" + origin.get().instance()
                    + "), but it now captures [" + tables + "]: changes of tables it did not capture then were not"
                    + " published. Starting at the current binlog position under a new epoch " + epoch + ": every"
                    + " client drops its cached entries of the captured tables.",
                    "If another process with the same cdc.connector.name captured other tables, give every connector"
                            + " its own name; after a deliberate change of cdc.connector.tables nothing more is needed.",
                    clock.instant()), true);
        }
        if (row.isEmpty()) {
            // heartbeats disabled: no row carries an epoch, and no client can tell epochs apart
            return new Decision(new Continuity("", Verdict.RESUMED, "Resuming at the stored binlog position " + position
                    + " (heartbeats disabled: no epoch is published).", "", clock.instant()), false);
        }
        if (origin.isEmpty()) {
            // which epoch, server and tables these offsets belong to is unknown: the row's epoch proves nothing of them
            return new Decision(new Continuity(newEpoch.get(), Verdict.EPOCH_UNKNOWN, "Resuming at the stored binlog"
                    + " position " + position + ", but the offset store holds no record of the epoch, server and tables"
                    + " these offsets were written under (written by another program or an earlier version, or the"
                    + " record is damaged); starting a new epoch to be safe: clients drop their cached entries of the"
                    + " captured tables once.", "", clock.instant()), false);
        }
        // a renewal is taken for this connector's own only where the row lives on the server whose binlog is read: a
        // primary that fails over may lose a renewal, and show an older epoch. There every renewal is recorded with
        // the offsets before they pass its event (StoredOffsets#recordRenewedEpoch), so the epochs must be equal
        boolean ownRenewals = !properties.getHeartbeat().getPrimary().isConfigured();
        if (own.isPresent() && !own.get().epoch().isEmpty() && (origin.get().epoch().equals(own.get().epoch())
                || ownRenewals && EpochLineage.continues(origin.get().epoch(), own.get().epoch()))) {
            String renewed = origin.get().epoch().equals(own.get().epoch()) ? ""
                    : " (renewed while streaming since the offsets were written under " + origin.get().epoch() + ")";
            return new Decision(new Continuity(own.get().epoch(), Verdict.RESUMED, "Resuming at the stored binlog position "
                    + position + " on the server with " + server + "; epoch " + own.get().epoch() + renewed + " kept.",
                    "", clock.instant()), false);
        }
        if (EpochLineage.isUnresumable(origin.get().epoch())) {
            return new Decision(new Continuity(newEpoch.get(), Verdict.FILTERED_BEFORE_START, "Resuming at the stored"
                    + " binlog position " + position + ", but when it last ran, connector '" + name + "' found a binlog"
                    + " or replication filter that left captured tables out of the binlog, and the changes it kept out"
                    + " were never published. Starting a new epoch: clients drop their cached entries of the captured"
                    + " tables once.", "Keep binlog-do-db / binlog-ignore-db and replication filters off the captured"
                    + " tables (docs/connector.md, \"Filters that leave changes out\"). A replica the connector reads"
                    + " never applied the changes the filter kept out: re-sync its captured tables from the primary"
                    + " before this start, or its row events and reads from it go on carrying the old values.",
                    clock.instant()), false);
        }
        String why = own.isEmpty() || own.get().epoch().isEmpty()
                ? "the heartbeat row of '" + name + "' (with its epoch) is gone"
                : !ownRenewals
                        ? "the heartbeat row of '" + name + "' on the primary carries epoch " + own.get().epoch()
                                + ", not the epoch " + origin.get().epoch() + " the stored offsets were written under:"
                                + " the primary failed over and lost the row's latest writes, the connector stopped"
                                + " between recording a renewal with the offsets and writing it to the row, or another"
                                + " process wrote it"
                        : "the heartbeat row of '" + name + "' carries epoch " + own.get().epoch() + ", not the epoch "
                                + origin.get().epoch() + " the stored offsets were written under, nor a renewal of it"
                                + " while streaming: another process wrote it";
        return new Decision(new Continuity(newEpoch.get(), Verdict.EPOCH_UNKNOWN, "Resuming at the stored binlog position "
                + position + ", but " + why + "; starting a new epoch to be safe: clients drop their cached entries"
                + " of the captured tables once.", "", clock.instant()), false);
    }

    /**
     * The stored position cannot be resumed from: with the policy {@code fail} start-up stops, otherwise the offsets
     * are cleared and a new epoch starts at the current position.
     */
    private Decision lost(Verdict verdict, String what, String action) {
        if (properties.getContinuity().getOnLostPosition() == LostPositionPolicy.FAIL) {
            throw new StartupCheckException(what, lostPositionRemedy());
        }
        return new Decision(new Continuity(newEpoch.get(), verdict, what + " Starting at the current binlog position"
                + " under a new epoch: every client drops its cached entries of the captured tables.", action,
                clock.instant()), true);
    }

    private static long asLong(Object value) {
        if (value instanceof Number n) {
            return n.longValue();
        }
        return value == null ? 0 : Long.parseLong(value.toString());
    }

    /**
     * Why a start must be refused when the stored offsets were written by a process that found a filter keeping changes
     * of captured tables from being applied on the replica it read: the replica differs from its primary until it is
     * re-synced, and only deleting the offsets says it was. {@code cdc-connector check} reports it too.
     *
     * @param origin the record stored with the offsets, if any
     * @return the refusal, with what to do; empty when the offsets say nothing of the kind
     */
    public static Optional<StartupCheckException> resyncRefusal(ConnectorProperties properties,
            Optional<OffsetsOrigin> origin) {
        if (origin.isEmpty() || !EpochLineage.needsResync(origin.get().epoch())) {
            return Optional.empty();
        }
        String replica = properties.getDatabase().getHost() + ":" + properties.getDatabase().getPort();
        String offsets = StoredOffsets.howToDelete(properties) + (properties.getOffsets().getStore()
                == ConnectorProperties.OffsetStore.KAFKA ? "; leave the schema history topic alone" : "");
        return Optional.of(new StartupCheckException("When it last ran, connector '" + properties.getName() + "' found a"
                + " replication filter (or a binlog filter of the primary) that kept changes of captured tables from"
                + " being applied on the replica " + replica + ": the replica's rows of those tables differ from the"
                + " primary's until they are re-synced, its row events would carry before-images read from them, and"
                + " services that read from it would cache the old values. Starting would publish heartbeats that"
                + " prove them.", "Re-sync the replica's captured tables from the primary (a table checksum and sync"
                + " tool, or rebuild the replica from a backup of the primary; rows copied by hand on the replica in a"
                + " session with SET sql_log_bin = 0, so that they get no GTID of the replica's own), then delete the"
                + " connector's stored offsets (" + offsets + ") and start it again: it starts at the current binlog"
                + " position under a new epoch (OFFSETS_LOST)."));
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
                    "Nothing, if you deleted them on purpose (the remedy after the connector stopped at a compressed"
                            + " schema change or at events without full row images, or after a replica was re-synced). Otherwise find out why the offsets"
                            + " disappeared (topic deleted or compacted away, another offsets file, cdc.connector.name"
                            + " changed, or cdc.connector.topic-prefix changed: the stored position is keyed by the"
                            + " prefix): a connector must keep its offsets to resume without a gap.",
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

    private String heartbeatWhere() {
        return properties.heartbeatDatabase().getHost() + ":" + properties.heartbeatDatabase().getPort();
    }

    private record BeatRow(String id, String ts, String epoch, String tables) {
    }
}
