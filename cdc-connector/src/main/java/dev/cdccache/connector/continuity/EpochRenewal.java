package dev.cdccache.connector.continuity;

import dev.cdccache.connector.config.ConnectorProperties;
import dev.cdccache.connector.heartbeat.HeartbeatRow;
import dev.cdccache.connector.heartbeat.HeartbeatWriter;
import dev.cdccache.connector.startup.DatabaseCheck;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * What the connector does with each {@link UnreadableChange} {@link StatementEventDetector} notices, on the thread
 * that reads the binlog: it replaces the epoch and writes the heartbeat row with the new one at once, so that the row
 * lands in the binlog right behind the change and every client drops its cached entries once it has read up to there.
 *
 * <p>The new epoch must be in a heartbeat row before the engine stores a position past the change: a restart would
 * resume the old one otherwise. Where no row can be published (the captured server compresses events, the heartbeat
 * row's too; heartbeat rows are held back because they reach the binlog as statements), the handler fails instead, so
 * that the engine stops before it stores that position and a start after the fix reads the change again. Each failure
 * of the heartbeat write fails it too.
 *
 * <p>Not every notice is a change of cached rows: a schema change of a table that is not captured is not, and one of
 * this connector's own heartbeat rows logged as a statement is not either, but it makes the heartbeat writer
 * reconnect ({@link HeartbeatWriter#heardAsStatement}).
 */
public final class EpochRenewal implements Consumer<UnreadableChange> {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(EpochRenewal.class);

    private final ContinuityState state;
    private final HeartbeatWriter heartbeats;
    private final boolean heartbeatsOn;
    private final SchemaChangeScope captured;
    private final ConnectorProperties.Database capturedServer;
    private final String storedOffsets;
    private final Consumer<String> renewedEpochs;
    private final Pattern ownHeartbeat;
    private final Map<UnreadableChange.Kind, Counter> counters = new EnumMap<>(UnreadableChange.Kind.class);

    /**
     * @param heartbeatsOn whether heartbeat rows are written at all (a heartbeat interval above 0)
     * @param capturedServer the server whose binlog is read (a replica, where one is captured)
     * @param storedOffsets where the engine stores its binlog position, as an operator would delete it (for the
     *     remedy when the engine stops at an event that may be a schema change)
     * @param renewedEpochs given each renewed epoch before its heartbeat row is written; where the row lives on
     *     another server than the binlog (a replica's primary), {@link StoredOffsets#recordRenewedEpoch}, so that a
     *     failover that loses the row's renewal cannot make the next start resume the epoch before it
     */
    public EpochRenewal(ContinuityState state, HeartbeatWriter heartbeats, boolean heartbeatsOn,
            SchemaChangeScope captured, ConnectorProperties.Database capturedServer, String storedOffsets,
            Consumer<String> renewedEpochs, MeterRegistry registry) {
        this.state = state;
        this.heartbeats = heartbeats;
        this.heartbeatsOn = heartbeatsOn;
        this.captured = captured;
        this.capturedServer = capturedServer;
        this.storedOffsets = storedOffsets;
        this.renewedEpochs = renewedEpochs;
        HeartbeatRow row = heartbeats.row();
        // the writer's upsert as the binlog holds it when logged as a statement: its values inlined, the id first
        this.ownHeartbeat = Pattern.compile("^\\s*INSERT\\s+INTO\\s+`?" + Pattern.quote(row.table().database())
                + "`?\\s*\\.\\s*`?" + Pattern.quote(row.table().table()) + "`?[\\s(]", Pattern.CASE_INSENSITIVE);
        count(registry, UnreadableChange.Kind.STATEMENT, "cdc.connector.binlog.statements",
                "Row changes the binlog held as SQL statements (a writer not in binlog_format=ROW)");
        count(registry, UnreadableChange.Kind.UNREADABLE_EVENT, "cdc.connector.binlog.unreadable.events",
                "Events the binlog held that may have changed rows but that the connector cannot read (compressed)");
        counters.put(UnreadableChange.Kind.UNREADABLE_QUERY_EVENT, counters.get(UnreadableChange.Kind.UNREADABLE_EVENT));
        count(registry, UnreadableChange.Kind.XA_COMMIT, "cdc.connector.binlog.xa.commits",
                "Commits of prepared XA transactions, whose rows were published at XA PREPARE");
        count(registry, UnreadableChange.Kind.SCHEMA_CHANGE, "cdc.connector.binlog.schema.changes",
                "Schema changes that named a captured table and may have rewritten its rows without row events");
        count(registry, UnreadableChange.Kind.INCIDENT, "cdc.connector.binlog.incidents",
                "Incident events in the binlog: the server could not log some changes");
        Gauge.builder("cdc.connector.heartbeat.held", heartbeats, w -> w.heldBecause().isPresent() ? 1 : 0)
                .description("1 while heartbeat rows are held back because the server would log them as SQL"
                        + " statements, or because a filter leaves a captured table out of the binlog; clients cannot"
                        + " prove their caches fresh meanwhile")
                .register(registry);
    }

    private void count(MeterRegistry registry, UnreadableChange.Kind kind, String name, String description) {
        counters.put(kind, Counter.builder(name).description(description + "; each replaces the epoch")
                .register(registry));
    }

    @Override
    public void accept(UnreadableChange noticed) {
        java.util.Optional<String> stopped = state.engineFailure();
        if (stopped.isPresent()) {
            // Debezium reads on for a moment after a failure: nothing may pass now, and nothing more be done
            throw new IllegalStateException("The engine was stopped already: " + stopped.get());
        }
        try {
            handle(noticed);
        } catch (RuntimeException e) {
            // from now on nothing is acknowledged to the engine, so no position past this event is stored
            if (state.engineFailure().isEmpty()) {
                state.engineFailed("Stopped at an event that may have changed rows: " + e.getMessage());
            }
            throw e;
        }
    }

    private void handle(UnreadableChange noticed) {
        UnreadableChange change = noticed;
        if (change.kind() == UnreadableChange.Kind.STATEMENT && ownHeartbeat.matcher(change.detail()).find()) {
            // a heartbeat row logged as a statement changes no cached row; from this connector's own writer, every
            // further one would be too, until it reconnects in ROW format
            if (heartbeatsOn && change.detail().contains("'" + heartbeats.row().connectorId() + "'")) {
                heartbeats.heardAsStatement();
            }
            return;
        }
        if (change.kind() == UnreadableChange.Kind.SCHEMA_CHANGE
                && !captured.concernsCaptured(change.detail(), change.database())) {
            return;
        }
        if (change.kind() == UnreadableChange.Kind.UNREADABLE_QUERY_EVENT) {
            change = asTheServerShowsIt(change);
        }
        if (change.kind() == UnreadableChange.Kind.INCIDENT && state.coversIncident(change.at())) {
            LOG.info("An incident event at {} was read again (the server sends a binlog file's incident events"
                    + " again when a reader resumes in it by GTID); the epoch in force covers it", change.at());
            return;
        }
        counters.get(change.kind()).increment();
        if (heartbeatsOn && heartbeats.stillHeld()) {
            heartbeats.heldBecause().ifPresent(why -> stop("heartbeat rows are held back: " + why,
                    "Set binlog_format=ROW globally (SET GLOBAL binlog_format='ROW' and in the server's configuration)"
                            + " and start the connector again."));
        }
        if (change.kind() == UnreadableChange.Kind.UNREADABLE_QUERY_EVENT) {
            // a schema change Debezium did not read: it would go on reading the table's rows with its old columns, so
            // values (keys among them) would land in the wrong fields, and no epoch sets that right
            boolean known = change.detail().startsWith("a compressed schema change");
            stop("the binlog held " + change.detail() + (known ? "" : ", which may be a schema change of a captured"
                    + " table") + ": the connector would read that table's rows with the columns it had before.",
                    (compressesEvents() ? "As an administrator run SET GLOBAL log_bin_compress = OFF; and set"
                            + " log_bin_compress=OFF under [mariadb] in the server's configuration file. Then " : "")
                            + "Delete the connector's stored offsets (" + storedOffsets + "; leave the schema history"
                            + " alone) and start it again: it starts at the current binlog"
                            + " position with the tables' current columns, under a new epoch, so every client drops its"
                            + " cached entries of the captured tables (docs/connector.md, \"Continuity and epochs\").");
        }
        if (change.kind() == UnreadableChange.Kind.UNREADABLE_EVENT && compressesEvents()) {
            // the heartbeat row would be compressed too: one more unreadable event, one more epoch, without end
            stop("log_bin_compress is ON on " + capturedServer.getHost() + ":" + capturedServer.getPort()
                    + ": MariaDB compresses binlog events, which the connector cannot read, heartbeat rows included.",
                    "As an administrator run SET GLOBAL log_bin_compress = OFF; and set log_bin_compress=OFF under"
                            + " [mariadb] in the server's configuration file, then start the connector again: it reads"
                            + " the event again and starts a new epoch for it.");
        }
        String renewed = state.renewFor(change, Clock.systemUTC());
        if (renewed != null) {
            if (heartbeatsOn) {
                renewedEpochs.accept(renewed);
                heartbeats.writeOrFail();
            }
            if (change.kind() == UnreadableChange.Kind.INCIDENT) {
                state.coverIncident(change.at()); // only once its epoch is in the heartbeat row
            }
        }
    }

    /**
     * What a compressed query event holds, read back from the server ({@code SHOW BINLOG EVENTS} shows it
     * decompressed): a row change logged as a statement is one, a schema change naming a captured table stays a
     * query event the engine must stop at, anything else (another table's schema, a grant, a row event taken for a
     * query event) an unreadable event. Stays a query event, with what could not be read, when the server cannot show
     * it.
     */
    private UnreadableChange asTheServerShowsIt(UnreadableChange change) {
        if (change.at() == null) {
            return change;
        }
        String type;
        String info;
        try (Connection connection = DatabaseCheck.connect(capturedServer);
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SHOW BINLOG EVENTS IN '" + change.at().file().replace("'", "''")
                        + "' FROM " + change.at().offset() + " LIMIT 1")) {
            if (!rs.next() || rs.getLong("Pos") != change.at().offset()) {
                return change;
            }
            type = rs.getString("Event_type");
            info = rs.getString("Info") == null ? "" : rs.getString("Info");
        } catch (SQLException e) {
            if (e.getErrorCode() == 1227) { // no grant: a restart as it is would not get further
                stop("the connector's user may not read the binlog's events back (SHOW BINLOG EVENTS: " + e.getMessage()
                        + "), to tell whether the compressed query event at " + change.at() + " changed a captured"
                        + " table's schema.", "GRANT REPLICATION CLIENT ON *.* TO the connector's user (MariaDB: BINLOG"
                        + " MONITOR) and start the connector again: it reads the event again.");
            }
            if (e.getErrorCode() == 1220) { // the place is not an event's start: tell nothing from it
                return change;
            }
            notReadBack(change, e);
            return change;
        } catch (RuntimeException e) {
            notReadBack(change, e);
            return change;
        }
        if (!type.startsWith("Query")) {
            return new UnreadableChange(UnreadableChange.Kind.UNREADABLE_EVENT, "an event the binlog reader cannot decode ("
                    + type + ")", "", change.at());
        }
        // the server shows the session's default database first: use `db`; statement
        String database = "";
        String sql = info;
        if (info.startsWith("use `")) {
            int end = info.indexOf("`; ", 5);
            while (end > 0 && end + 1 < info.length() && info.charAt(end + 1) == '`') { // a doubled backquote
                end = info.indexOf("`; ", end + 2);
            }
            if (end > 0) {
                database = info.substring(5, end).replace("``", "`");
                sql = info.substring(end + 3);
            }
        }
        if (UnreadableChangeClassifier.isRowChangeStatement(sql)) {
            return new UnreadableChange(UnreadableChange.Kind.STATEMENT, sql, database, change.at());
        }
        if (UnreadableChangeClassifier.schemaChangeOf(sql) != UnreadableChangeClassifier.SchemaChange.NONE
                && captured.concernsCaptured(sql, database)
                || captured.createsCapturedTable(sql, database)) { // Debezium would never learn its columns
            return new UnreadableChange(UnreadableChange.Kind.UNREADABLE_QUERY_EVENT, "a compressed schema change of a"
                    + " captured table (" + ContinuityState.abbreviate(sql) + "), which Debezium did not read", database,
                    change.at());
        }
        return new UnreadableChange(UnreadableChange.Kind.UNREADABLE_EVENT, "a compressed statement that changes no"
                + " captured table's schema (" + ContinuityState.abbreviate(sql) + ")", database, change.at());
    }

    /** Stops with exit code 3: a read-back that failed for a reason a restart may get past. */
    private void notReadBack(UnreadableChange change, Exception e) {
        stop("the compressed query event at " + change.at() + " could not be read back from "
                + capturedServer.getHost() + ":" + capturedServer.getPort() + " (" + e.getMessage() + "), to tell"
                + " whether it changed a captured table's schema.", "Start the connector again once the server"
                + " answers SHOW BINLOG EVENTS: it reads the event again.", false);
    }

    /**
     * Fails the event handler (the engine stops before it stores a position past the event); health says why. The
     * connector exits with code 4, for a stop a restart as it is cannot get past.
     */
    private void stop(String why, String action) {
        stop(why, action, true);
    }

    /** @param needsOperator false for a stop a restart may get past (the connector then exits with code 3) */
    private void stop(String why, String action, boolean needsOperator) {
        String explanation = "Stopped at an event that may have changed rows, because " + why + " What to do: " + action;
        state.engineFailed(explanation);
        // one line of its own: the engine's failure that follows names only Debezium's wrapping of it
        LOG.error("{}", explanation);
        throw needsOperator ? new StoppedAtEvent(explanation) : new IllegalStateException(explanation);
    }

    /**
     * Whether the captured server compresses binlog events. Stops if that cannot be read: going on might start one
     * epoch after another.
     */
    private boolean compressesEvents() {
        try (Connection connection = DatabaseCheck.connect(capturedServer);
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SHOW GLOBAL VARIABLES LIKE 'log_bin_compress'")) {
            String value = rs.next() ? rs.getString(2) : "OFF"; // MySQL has no such setting
            return "ON".equalsIgnoreCase(value) || "1".equals(value);
        } catch (SQLException | RuntimeException e) {
            stop("log_bin_compress could not be read on " + capturedServer.getHost() + ":" + capturedServer.getPort()
                    + " (" + e.getMessage() + "), and a heartbeat row written while the server compresses events would"
                    + " start one epoch after another.", "Start the connector again once the server answers: it reads"
                    + " the event again.", false);
            return true;
        }
    }
}
