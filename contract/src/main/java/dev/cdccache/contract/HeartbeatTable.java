package dev.cdccache.contract;

import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The heartbeat table (docs/contract.md, "Heartbeats"): one row per connector, written by the connector every
 * heartbeat interval and captured like any table, so its change reaches clients through the same binlog, connector
 * and Kafka as the data, after every change committed before it.
 *
 * <pre>
 * CREATE TABLE cdc_meta.heartbeat (id VARCHAR(190) NOT NULL PRIMARY KEY, ts DATETIME(6) NOT NULL,
 *     epoch VARCHAR(64) NOT NULL, tables TEXT NOT NULL) ENGINE=InnoDB
 * </pre>
 *
 * <ul>
 *   <li>{@value #ID}: the connector's name, equal to the value of its {@link ConnectorHeader};</li>
 *   <li>{@value #TS}: {@code UTC_TIMESTAMP(6)} of the write, on the database's clock; Debezium sends it as
 *       microseconds since the epoch;</li>
 *   <li>{@value #EPOCH}: the connector's continuity {@link Epoch};</li>
 *   <li>{@value #TABLES}: the data tables the connector captures, in the format of {@link #tablesColumn}.</li>
 * </ul>
 */
public final class HeartbeatTable {

    /** The heartbeat table both sides assume unless configured otherwise. */
    public static final String DEFAULT_NAME = "cdc_meta.heartbeat";

    /** Column: the connector's name, the primary key. */
    public static final String ID = "id";
    /** Column: when the row was written, {@code DATETIME(6)} in UTC. */
    public static final String TS = "ts";
    /** Column: the connector's continuity epoch. */
    public static final String EPOCH = "epoch";
    /** Column: the tables the connector captures. */
    public static final String TABLES = "tables";
    /** Every column of the row, in order. */
    public static final List<String> COLUMNS = List.of(ID, TS, EPOCH, TABLES);

    /** Longest connector name, the width of the {@value #ID} column. */
    public static final int ID_MAX_LENGTH = 190;
    /** Separates the tables in the {@value #TABLES} column. */
    public static final String TABLES_SEPARATOR = ",";

    private HeartbeatTable() {
    }

    /**
     * The {@value #TABLES} column for {@code qualifiedTables} ({@code database.table} each): lower-case, without
     * duplicates, in the given order, separated by {@value #TABLES_SEPARATOR}. Lower case because table names
     * compare case-insensitively on the default MariaDB/MySQL setups, and a client must match them reliably.
     */
    public static String tablesColumn(Collection<String> qualifiedTables) {
        return qualifiedTables.stream().map(table -> table.trim().toLowerCase(Locale.ROOT)).filter(t -> !t.isEmpty())
                .distinct().collect(Collectors.joining(TABLES_SEPARATOR));
    }

    /** The tables a {@value #TABLES} column lists, in order; blank entries are skipped. */
    public static Set<String> tablesOf(String column) {
        Set<String> tables = new LinkedHashSet<>();
        for (String table : column.split(TABLES_SEPARATOR)) {
            if (!table.isBlank()) {
                tables.add(table.trim());
            }
        }
        return tables;
    }

    /** The statement that creates a heartbeat table named {@code qualifiedName} ({@code database.table}). */
    public static String createStatement(String qualifiedName) {
        return "CREATE TABLE " + qualifiedName + " (" + ID + " VARCHAR(" + ID_MAX_LENGTH + ") NOT NULL PRIMARY KEY, "
                + TS + " DATETIME(6) NOT NULL, " + EPOCH + " VARCHAR(" + Epoch.MAX_LENGTH + ") NOT NULL, " + TABLES
                + " TEXT NOT NULL) ENGINE=InnoDB";
    }

    /**
     * The statement that migrates a heartbeat table of the former shape {@code (id TINYINT, ts)} to this one and
     * drops its legacy row (MariaDB syntax).
     */
    public static String migrateStatement(String qualifiedName) {
        return "ALTER TABLE " + qualifiedName + " MODIFY " + ID + " VARCHAR(" + ID_MAX_LENGTH + ") NOT NULL, ADD COLUMN"
                + " IF NOT EXISTS " + EPOCH + " VARCHAR(" + Epoch.MAX_LENGTH + ") NOT NULL, ADD COLUMN IF NOT EXISTS "
                + TABLES + " TEXT NOT NULL; DELETE FROM " + qualifiedName + " WHERE " + EPOCH + " = ''";
    }

    /**
     * A connector's write of its own row, with three parameters: id, epoch, tables. An upsert on the connector's
     * id, so that several connectors can share one table, each writing only its own row.
     */
    public static String upsertStatement(String qualifiedName) {
        return upsert(qualifiedName, "?", "?", "?");
    }

    /**
     * The same upsert with the values inlined (for Debezium's {@code heartbeat.action.query}, which takes a plain
     * statement).
     */
    public static String literalUpsertStatement(String qualifiedName, String id, String epoch, String tablesColumn) {
        return upsert(qualifiedName, quote(id), quote(epoch), quote(tablesColumn));
    }

    private static String upsert(String qualifiedName, String id, String epoch, String tables) {
        return "INSERT INTO " + qualifiedName + " (" + String.join(", ", COLUMNS) + ") VALUES (" + id
                + ", UTC_TIMESTAMP(6), " + epoch + ", " + tables + ") ON DUPLICATE KEY UPDATE " + TS + " = VALUES(" + TS
                + "), " + EPOCH + " = VALUES(" + EPOCH + "), " + TABLES + " = VALUES(" + TABLES + ")";
    }

    private static String quote(String value) {
        return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'";
    }
}
