package dev.cdccache.client.consuming;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import tools.jackson.databind.JsonNode;

/**
 * Reads the write time of the connector's heartbeat row ({@code cdc_meta.heartbeat.ts DATETIME(6)}, written
 * with {@code UTC_TIMESTAMP(6)}). Debezium sends it as microseconds since the epoch by default
 * ({@code time.precision.mode=adaptive_time_microseconds}), as milliseconds with {@code connect} precision,
 * or as an ISO string with {@code isostring}; all three are accepted.
 */
final class HeartbeatReader {

    private static final long MICROS_THRESHOLD = 100_000_000_000_000L; // ~ year 5138 in millis, 1973 in micros

    private HeartbeatReader() {
    }

    /** Epoch milliseconds of the heartbeat, or {@code -1} if the row has no usable {@code ts}. */
    static long commitMillis(JsonNode after) {
        if (after == null) {
            return -1;
        }
        JsonNode ts = after.get("ts");
        if (ts == null || ts.isNull()) {
            return -1;
        }
        if (ts.isIntegralNumber()) {
            long value = ts.asLong();
            return value >= MICROS_THRESHOLD ? value / 1000 : value;
        }
        if (ts.isString()) {
            String text = ts.asString();
            try {
                return Instant.parse(text).toEpochMilli();
            } catch (DateTimeParseException e) {
                try {
                    return LocalDateTime.parse(text).toInstant(ZoneOffset.UTC).toEpochMilli();
                } catch (DateTimeParseException e2) {
                    return -1;
                }
            }
        }
        return -1;
    }
}
