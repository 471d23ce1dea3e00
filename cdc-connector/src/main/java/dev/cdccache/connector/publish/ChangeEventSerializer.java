package dev.cdccache.connector.publish;

import dev.cdccache.contract.ConnectorHeader;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns Debezium's change records into Kafka records exactly as Kafka Connect would with
 * {@code JsonConverter} and {@code schemas.enable=false}: the key is the primary key as a JSON
 * object, the value the change-event envelope, a delete's tombstone a {@code null} value. Every record carries
 * the {@value ConnectorHeader#NAME} header with the connector's name (the Kafka Connect export adds
 * the same header with the InsertHeader transform).
 *
 * <p>The bytes are written by {@link StreamingJsonWriter} straight from the record's Structs: the converter built a
 * JSON tree of every record first, which was most of the polling thread's time and allocation during bulk changes.
 * The bytes are the converter's, byte for byte (the contract module's clients and the Kafka Connect export read the
 * same topics). For data the writer does not reproduce exactly it throws, and that record is converted by
 * {@code JsonConverter} as before; such records are counted in {@value #FALLBACKS_METER}
 * (Prometheus {@code cdc_connector_serializer_fallbacks_total}) and logged once per topic at WARN. A record the
 * converter cannot convert either fails exactly as before.
 *
 * <p>A safety net against a difference nobody foresaw (wrong bytes would be wrong keys on the topics, and a client
 * that cannot match a key does not evict): the first record of every schema (Debezium keeps one schema object per
 * table until its DDL changes) is written both ways and compared. If the bytes differ, the converter's are
 * published, and every later record of that schema goes through the converter; counted in
 * {@value #MISMATCHES_METER} ({@code cdc_connector_serializer_mismatches_total}) and logged at ERROR.
 *
 * <p>Thread-safe: the writer's reused buffer and the checked schemas are guarded by this object's lock (taken once per record by the one
 * polling thread, so uncontended).
 */
public final class ChangeEventSerializer {

    /** Records converted by JsonConverter because the streaming writer could not reproduce them exactly. */
    public static final String FALLBACKS_METER = "cdc.connector.serializer.fallbacks";

    /** Schemas whose first record the streaming writer did not write exactly as JsonConverter. */
    public static final String MISMATCHES_METER = "cdc.connector.serializer.mismatches";

    /** Schemas remembered as checked; a bound against an unbounded number of DDL changes in a long-running process. */
    private static final int MAX_CHECKED_SCHEMAS = 10_000;

    private static final Logger log = LoggerFactory.getLogger(ChangeEventSerializer.class);

    private final JsonConverter keyConverter = new JsonConverter();
    private final JsonConverter valueConverter = new JsonConverter();
    private final BiFunction<Schema, Object, byte[]> writer;
    private final Header connectorHeader;
    private final Counter fallbacks;
    private final Counter mismatches;
    // identity: Debezium reuses one schema object per table version; equals() would compare schemas field by field
    private final Set<Schema> checked = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Set<Schema> converterOnly = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Set<String> fallbackLogged = ConcurrentHashMap.newKeySet();

    /** A serializer whose fallback counter is not exported (tests, tools). */
    public ChangeEventSerializer(String connectorName) {
        this(connectorName, new SimpleMeterRegistry());
    }

    /**
     * @param connectorName the value of the {@value ConnectorHeader#NAME} header
     * @param registry where {@value #FALLBACKS_METER} is registered
     */
    public ChangeEventSerializer(String connectorName, MeterRegistry registry) {
        this(connectorName, registry, new StreamingJsonWriter()::write);
    }

    /** With another writer than the streaming one: tests of the fallback and the first-record check. */
    ChangeEventSerializer(String connectorName, MeterRegistry registry, BiFunction<Schema, Object, byte[]> writer) {
        this.writer = writer;
        this.connectorHeader = new RecordHeader(ConnectorHeader.NAME, ConnectorHeader.value(connectorName));
        keyConverter.configure(Map.of("schemas.enable", "false", "converter.type", "key"), true);
        valueConverter.configure(Map.of("schemas.enable", "false", "converter.type", "value"), false);
        this.fallbacks = Counter.builder(FALLBACKS_METER)
                .description("Change records serialized by Kafka's JsonConverter because the streaming serializer"
                        + " could not reproduce its bytes exactly (same bytes, slower)")
                .register(registry);
        this.mismatches = Counter.builder(MISMATCHES_METER)
                .description("Record schemas whose first record the streaming serializer did not write exactly as"
                        + " JsonConverter; their records are serialized by JsonConverter")
                .register(registry);
    }

    /** The Kafka record for one change record, addressed to the record's own topic. */
    public ProducerRecord<byte[], byte[]> toProducerRecord(SourceRecord record) {
        String topic = record.topic();
        byte[] key;
        byte[] value;
        synchronized (this) {
            key = record.key() == null ? null : toJson(keyConverter, topic, record.keySchema(), record.key());
            value = record.value() == null ? null : toJson(valueConverter, topic, record.valueSchema(), record.value());
        }
        // No explicit partition: the producer's default partitioner hashes the key, so all changes of a row stay in order.
        return new ProducerRecord<>(topic, null, null, key, value, new RecordHeaders(new Header[] {connectorHeader}));
    }

    private byte[] toJson(JsonConverter converter, String topic, Schema schema, Object data) {
        if (schema != null && converterOnly.contains(schema)) {
            fallbacks.increment();
            return converter.fromConnectData(topic, schema, data);
        }
        byte[] streamed;
        try {
            streamed = writer.apply(schema, data);
        } catch (RuntimeException e) {
            fallbacks.increment();
            if (fallbackLogged.add(topic)) {
                log.warn("Serializing a record of topic {} with JsonConverter (slower, same bytes): {}; further such"
                        + " records of this topic are counted in {} only", topic, e.toString(), FALLBACKS_METER);
            } else if (log.isDebugEnabled()) {
                log.debug("Serializing a record of topic {} with JsonConverter: {}", topic, e.toString());
            }
            return converter.fromConnectData(topic, schema, data);
        }
        if (schema == null || checked.contains(schema)) {
            return streamed;
        }
        byte[] expected = converter.fromConnectData(topic, schema, data);
        if (checked.size() >= MAX_CHECKED_SCHEMAS) {
            checked.clear(); // schemas of tables changed long ago; the current ones are checked again once
        }
        checked.add(schema);
        if (Arrays.equals(streamed, expected)) {
            return streamed;
        }
        mismatches.increment();
        fallbacks.increment();
        converterOnly.add(schema);
        log.error("The streaming serializer wrote a record of topic {} (schema {}) other than JsonConverter does;"
                + " published JsonConverter's bytes, and every further record of this schema is serialized by"
                + " JsonConverter (slower). Please report it with the table's DDL.", topic, schema.name());
        return expected;
    }
}
