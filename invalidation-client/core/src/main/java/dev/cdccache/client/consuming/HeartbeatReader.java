package dev.cdccache.client.consuming;

import dev.cdccache.client.staleness.HeartbeatCoverage;
import dev.cdccache.contract.Epoch;
import dev.cdccache.contract.HeartbeatTable;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashSet;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * Reads the write time of the connector's heartbeat row ({@code cdc_meta.heartbeat.ts DATETIME(6)}, written
 * with {@code UTC_TIMESTAMP(6)}). Debezium sends it as microseconds since the epoch by default
 * ({@code time.precision.mode=adaptive_time_microseconds}), as milliseconds with {@code connect} precision,
 * or as an ISO string with {@code isostring}; all three are accepted.
 */
final class HeartbeatReader {

    private static final long MICROS_THRESHOLD = 100_000_000_000_000L; // ~ year 5138 in millis, 1973 in micros
    /** Longer than any ISO timestamp: such a value is garbage, not worth parsing. */
    private static final int MAX_TEXT_LENGTH = 64;

    private HeartbeatReader() {
    }

    /** Longest id / epoch / tables text taken from a heartbeat row (the columns are VARCHAR(190)/VARCHAR(64)/TEXT). */
    private static final int MAX_ID_LENGTH = HeartbeatTable.ID_MAX_LENGTH;
    private static final int MAX_EPOCH_LENGTH = Epoch.MAX_LENGTH;
    private static final int MAX_TABLES_LENGTH = 1 << 20;

    /**
     * The heartbeat row ({@code id}, {@code ts}, {@code epoch}, {@code tables}; see docs/contract.md), or {@code null}
     * if it has no usable {@code ts} or {@code id}. The old row shape (numeric {@code id}, no {@code epoch} or
     * {@code tables}) is returned with those as {@code null}.
     */
    static HeartbeatCoverage.Heartbeat read(JsonNode after) {
        long ts = commitMillis(after);
        if (ts < 0) {
            return null;
        }
        JsonNode id = after.get(HeartbeatTable.ID);
        String idText;
        boolean numeric;
        if (id != null && id.isString() && !id.asString().isEmpty() && id.asString().length() <= MAX_ID_LENGTH) {
            idText = id.asString();
            numeric = false;
        } else if (id != null && id.isIntegralNumber() && id.canConvertToLong()) {
            idText = Long.toString(id.longValue());
            numeric = true;
        } else {
            return null;
        }
        JsonNode epochNode = after.get(HeartbeatTable.EPOCH);
        String epoch = epochNode != null && epochNode.isString() && epochNode.asString().length() <= MAX_EPOCH_LENGTH
                ? epochNode.asString() : null;
        JsonNode tablesNode = after.get(HeartbeatTable.TABLES);
        Set<String> tables = null;
        if (tablesNode != null && tablesNode.isString() && tablesNode.asString().length() <= MAX_TABLES_LENGTH) {
            tables = new LinkedHashSet<>();
            for (String table : tablesNode.asString().split(HeartbeatTable.TABLES_SEPARATOR)) {
                if (!table.isBlank()) {
                    tables.add(table.trim());
                }
            }
        }
        return new HeartbeatCoverage.Heartbeat(idText, numeric, ts, epoch, tables);
    }

    /** Epoch milliseconds of the heartbeat, or {@code -1} if the row has no usable {@code ts}. */
    static long commitMillis(JsonNode after) {
        if (after == null) {
            return -1;
        }
        JsonNode ts = after.get(HeartbeatTable.TS);
        if (ts == null || ts.isNull()) {
            return -1;
        }
        if (ts.isIntegralNumber()) {
            // Non-throwing accessor: a value beyond a long is unusable, not a reason to stop the consumer.
            long value = ts.longValueOpt().orElse(-1);
            if (value < 0) {
                return -1;
            }
            return value >= MICROS_THRESHOLD ? value / 1000 : value;
        }
        if (ts.isString()) {
            String text = ts.asString();
            if (text.length() > MAX_TEXT_LENGTH) {
                return -1;
            }
            try {
                return Instant.parse(text).toEpochMilli();
            } catch (DateTimeException | ArithmeticException e) {
                // Instant.parse accepts years up to +1000000000, whose epoch millis overflow a long.
                try {
                    return LocalDateTime.parse(text).toInstant(ZoneOffset.UTC).toEpochMilli();
                } catch (DateTimeException | ArithmeticException e2) {
                    return -1;
                }
            }
        }
        return -1;
    }
}
