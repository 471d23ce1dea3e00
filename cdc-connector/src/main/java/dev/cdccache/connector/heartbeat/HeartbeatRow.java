package dev.cdccache.connector.heartbeat;

import dev.cdccache.connector.config.CapturedTable;
import dev.cdccache.contract.HeartbeatTable;
import java.util.List;
import java.util.Objects;

/**
 * This connector's row in the shared heartbeat table (docs/contract.md, "Heartbeats"): one row per connector,
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

    public HeartbeatRow {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(connectorId, "connectorId");
        coveredTables = List.copyOf(coveredTables);
    }

    /** The {@code tables} column: lower-case {@code db.table}, comma-separated, in configuration order. */
    public String tablesColumn() {
        return HeartbeatTable.tablesColumn(coveredTables.stream().map(CapturedTable::qualifiedName).toList());
    }

    /** The upsert with three parameters: id, epoch, tables. */
    public String upsertStatement() {
        return HeartbeatTable.upsertStatement(table.qualifiedName());
    }

    /**
     * The same upsert with the values inlined, for Debezium's {@code heartbeat.action.query} on Kafka Connect
     * (which takes a plain statement).
     */
    public String literalUpsertStatement(String epoch) {
        return HeartbeatTable.literalUpsertStatement(table.qualifiedName(), connectorId, epoch, tablesColumn());
    }
}
