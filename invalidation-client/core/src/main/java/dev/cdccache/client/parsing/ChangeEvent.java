package dev.cdccache.client.parsing;

import tools.jackson.databind.JsonNode;

/**
 * One parsed Debezium change event.
 *
 * @param topic the Kafka topic it came from
 * @param partition its partition
 * @param offset its offset
 * @param operation what happened to the row
 * @param before the row before the change (an object node), or {@code null}
 * @param after the row after the change (an object node), or {@code null}
 * @param database {@code source.db}, or {@code null} if absent
 * @param table {@code source.table}, or {@code null} if absent
 * @param sourceTimestampMillis {@code source.ts_ms}: the commit time in the binlog, which MariaDB records
 *        with one-second resolution; {@code -1} if absent
 * @param eventTimestampMillis the envelope's {@code ts_ms}: when the connector processed the event; {@code -1}
 */
public record ChangeEvent(String topic, int partition, long offset, Operation operation, JsonNode before,
        JsonNode after, String database, String table, long sourceTimestampMillis, long eventTimestampMillis) {
}
