package dev.cdccache.connector.oversize;

import dev.cdccache.contract.Envelope;
import dev.cdccache.contract.ReducedEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.record.AbstractRecords;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Replaces a change event too large for the producer ({@code max.request.size}, e.g. a row with a 2 MB TEXT
 * value) by the reduced event of docs/contract.md, "Oversized events": the same envelope ({@code op}, {@code source},
 * {@code ts_ms}) whose {@code before}/{@code after} keep only the primary-key columns, plus a top-level
 * {@code "truncated_columns": [...]} naming the columns removed. The record key, topic and headers are unchanged.
 * Clients evict by key where their key columns survived and the whole cache otherwise, so the event still evicts
 * correctly.
 *
 * <p>Without this, the producer rejects the event, the batch is never acknowledged, the engine stops and a restart
 * reads the same event again: a crash loop that stops every invalidation behind it.
 *
 * <p>Counted in {@code cdc_connector_events_oversized_total{table}} and logged (WARN, table and key). Thread-safe.
 */
public final class OversizedEvents {

    private static final Logger log = LoggerFactory.getLogger(OversizedEvents.class);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final int maxRequestSize;
    private final MeterRegistry registry;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();

    /**
     * @param maxRequestSize the producer's {@code max.request.size}: larger records are refused by the producer
     */
    public OversizedEvents(int maxRequestSize, MeterRegistry registry) {
        this.maxRequestSize = maxRequestSize;
        this.registry = registry;
    }

    /** Whether the producer would refuse the record as too large (its own upper-bound estimate of the record). */
    public boolean tooLarge(ProducerRecord<byte[], byte[]> record) {
        return sizeOf(record) > maxRequestSize;
    }

    /**
     * The reduced event for {@code source} (whose serialized form is {@code full}), counted and logged.
     *
     * @throws IllegalStateException if even the reduced event is too large (a key over the limit)
     */
    public ProducerRecord<byte[], byte[]> reduce(SourceRecord source, ProducerRecord<byte[], byte[]> full, String table) {
        Set<String> keyColumns = keyColumns(source);
        ObjectNode value = (ObjectNode) JSON.readTree(full.value());
        Set<String> removed = new LinkedHashSet<>();
        for (String image : List.of(Envelope.BEFORE, Envelope.AFTER)) {
            JsonNode row = value.get(image);
            if (row instanceof ObjectNode columns) {
                List<String> names = new ArrayList<>(columns.propertyNames());
                for (String name : names) {
                    if (!keyColumns.contains(name)) {
                        columns.remove(name);
                        removed.add(name);
                    }
                }
            }
        }
        ArrayNode truncated = value.putArray(ReducedEvent.TRUNCATED_COLUMNS);
        removed.forEach(truncated::add);
        ProducerRecord<byte[], byte[]> reduced = new ProducerRecord<>(full.topic(), full.partition(), full.timestamp(),
                full.key(), JSON.writeValueAsBytes(value), full.headers());
        String key = full.key() == null ? "(no key)" : new String(full.key(), StandardCharsets.UTF_8);
        if (tooLarge(reduced)) {
            throw new IllegalStateException("The change event of " + table + " key " + key + " is " + sizeOf(full)
                    + " bytes and even its key-only form is over the producer's max.request.size (" + maxRequestSize
                    + "); raise max.request.size (cdc.connector.kafka.properties) and the topic's max.message.bytes");
        }
        counters.computeIfAbsent(table, t -> Counter.builder("cdc.connector.events.oversized")
                .description("Change events over the producer's max.request.size, published reduced to their key columns")
                .tag("table", t)
                .register(registry)).increment();
        log.warn("The change event of {} key {} is {} bytes, over the producer's max.request.size of {}: published it reduced"
                + " to its key columns with truncated_columns={} (clients evict by key, or the whole cache where its key"
                + " columns were removed). To carry such rows in full, raise max.request.size in cdc.connector.kafka.properties"
                + " and the topic's max.message.bytes, or exclude the large column (cdc.connector.columns.exclude).",
                table, key, sizeOf(full), maxRequestSize, removed);
        return reduced;
    }

    private static Set<String> keyColumns(SourceRecord source) {
        Set<String> names = new LinkedHashSet<>();
        if (source.keySchema() != null && source.keySchema().type() == org.apache.kafka.connect.data.Schema.Type.STRUCT) {
            for (Field field : source.keySchema().fields()) {
                names.add(field.name());
            }
        }
        return names;
    }

    private static int sizeOf(ProducerRecord<byte[], byte[]> record) {
        return AbstractRecords.estimateSizeInBytesUpperBound(RecordBatch.CURRENT_MAGIC_VALUE, CompressionType.NONE,
                record.key(), record.value(), record.headers().toArray());
    }
}
