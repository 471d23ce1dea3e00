package dev.cdccache.connector.heartbeat;

import dev.cdccache.connector.config.CapturedTable;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * This connector's row in the shared heartbeat table (CONTRACT.md, "Heartbeat table"): one row per connector,
 * {@code id} = the connector's name, {@code ts} = {@code UTC_TIMESTAMP(6)} at write time, {@code epoch} = the
 * continuity epoch, {@code tables} = the captured data tables, lower-case {@code db.table}, comma-separated.
 *
 * <p>Each connector writes its own row only ({@code INSERT ... ON DUPLICATE KEY UPDATE} on its id), so several
 * connectors can share one heartbeat table; clients learn from a row which tables its connector covers.
 *
 * @param table the heartbeat table
 * @param connectorId the connector's name, the row's primary key and the {@code cdc-connector} header value
 * @param coveredTables the data tables the connector captures (the heartbeat table excluded)
 */
public record HeartbeatRow(CapturedTable table, String connectorId, List<CapturedTable> coveredTables) {

    /** Columns every heartbeat table must have, in the contract's order. */
    public static final List<String> COLUMNS = List.of("id", "ts", "epoch", "tables");

    public HeartbeatRow {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(connectorId, "connectorId");
        coveredTables = List.copyOf(coveredTables);
    }

    /** The {@code tables} column: lower-case {@code db.table}, comma-separated, in configuration order. */
    public String tablesColumn() {
        return coveredTables.stream().map(t -> t.qualifiedName().toLowerCase(Locale.ROOT)).distinct()
                .collect(Collectors.joining(","));
    }

    /** The upsert with three parameters: id, epoch, tables. */
    public String upsertStatement() {
        return "INSERT INTO " + table.qualifiedName() + " (id, ts, epoch, tables) VALUES (?, UTC_TIMESTAMP(6), ?, ?)"
                + " ON DUPLICATE KEY UPDATE ts = VALUES(ts), epoch = VALUES(epoch), tables = VALUES(tables)";
    }

    /**
     * The same upsert with the values inlined, for Debezium's {@code heartbeat.action.query} on Kafka Connect
     * (which takes a plain statement).
     */
    public String literalUpsertStatement(String epoch) {
        return "INSERT INTO " + table.qualifiedName() + " (id, ts, epoch, tables) VALUES (" + quote(connectorId)
                + ", UTC_TIMESTAMP(6), " + quote(epoch) + ", " + quote(tablesColumn()) + ")"
                + " ON DUPLICATE KEY UPDATE ts = VALUES(ts), epoch = VALUES(epoch), tables = VALUES(tables)";
    }

    /** The statement that creates a heartbeat table of the contract's shape, for error messages and docs. */
    public static String createStatement(String qualifiedName) {
        return "CREATE TABLE " + qualifiedName + " (id VARCHAR(190) NOT NULL PRIMARY KEY, ts DATETIME(6) NOT NULL,"
                + " epoch VARCHAR(64) NOT NULL, tables TEXT NOT NULL) ENGINE=InnoDB";
    }

    /** Migrates a heartbeat table of the former shape {@code (id TINYINT, ts)} and drops its legacy row. */
    public static String migrateStatement(String qualifiedName) {
        return "ALTER TABLE " + qualifiedName + " MODIFY id VARCHAR(190) NOT NULL, ADD COLUMN IF NOT EXISTS epoch"
                + " VARCHAR(64) NOT NULL, ADD COLUMN IF NOT EXISTS tables TEXT NOT NULL; DELETE FROM " + qualifiedName
                + " WHERE epoch = ''";
    }

    private static String quote(String value) {
        return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'";
    }
}
