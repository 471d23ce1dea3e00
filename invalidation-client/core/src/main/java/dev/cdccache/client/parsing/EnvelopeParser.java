package dev.cdccache.client.parsing;

import dev.cdccache.client.Internal;
import dev.cdccache.contract.CoalescedEviction;
import dev.cdccache.contract.Envelope;
import dev.cdccache.contract.ReducedEvent;
import java.util.HashSet;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Parses Debezium's JSON change-event envelope, with schemas disabled ({@code {"before":..,"after":..}})
 * or enabled ({@code {"schema":..,"payload":{...}}}). Unknown fields are ignored. Thread-safe.
 *
 * <p>Reads the bytes as a token stream and keeps only what a {@link ChangeEvent} holds: {@code op}, the row
 * images (all columns, or those of a {@link RowColumns}), {@code ts_ms}, {@code truncated_columns}, {@code coalesced} and
 * {@code source.db/table/ts_ms/gtid}. Everything else ({@code source.file/pos/server_id/...}, {@code transaction},
 * {@code ts_us}, an embedded {@code schema}, skipped columns) is stepped over without being decoded: it is most
 * of an envelope, and the consumer parses every record. The outcome is exactly that of reading the whole value
 * as a JSON tree and picking the fields from it: fields in any order, the last of duplicated names wins, the
 * whole input is read before an envelope is judged (so truncated or trailing JSON is {@code MALFORMED_JSON}
 * whatever came before it), and values are the nodes a tree parse builds.
 */
@Internal
public final class EnvelopeParser {

    private static final String PAYLOAD = "payload";
    private static final String SCHEMA = "schema";

    private final ObjectMapper mapper;
    private final JsonNodeFactory nodes;
    /**
     * Longest string the parser accepts. A skipped string is never measured; a value this long could hold one
     * beyond the limit, and is therefore first read as a tree so that it is rejected as before.
     */
    private final long maxStringLength;

    public EnvelopeParser() {
        this(JsonMapper.builder().build());
    }

    /** With the stream-read constraints of {@code mapper} (tests lower them to reach the limits cheaply). */
    EnvelopeParser(ObjectMapper mapper) {
        this.mapper = mapper;
        this.nodes = mapper.getNodeFactory();
        this.maxStringLength = mapper.tokenStreamFactory().streamReadConstraints().getMaxStringLength();
    }

    /**
     * Parses an event keeping every column of its row images.
     *
     * @param value the record value, not {@code null} (a tombstone is handled before parsing)
     * @throws MalformedEventException if the bytes are not JSON, not an envelope, or carry an unknown op
     */
    public ChangeEvent parse(String topic, int partition, long offset, byte[] value) throws MalformedEventException {
        return parse(topic, partition, offset, value, RowColumns.all());
    }

    /**
     * Parses an event keeping only {@code columns} of its row images; everything else is as
     * {@link #parse(String, int, long, byte[])} reads it, errors included.
     *
     * @param value the record value, not {@code null} (a tombstone is handled before parsing)
     * @throws MalformedEventException if the bytes are not JSON, not an envelope, or carry an unknown op
     */
    public ChangeEvent parse(String topic, int partition, long offset, byte[] value, RowColumns columns)
            throws MalformedEventException {
        Fields root;
        try {
            if (value.length > maxStringLength) {
                mapper.readTree(value); // only for the string-length check of skipped strings; rare and large
            }
            // A bare token parser: the mapper's own createParser would set up a deserialization context per call,
            // which nothing here uses.
            try (JsonParser p = mapper.tokenStreamFactory().createParser(ObjectReadContext.empty(), value)) {
                JsonToken first = p.nextToken();
                if (first == JsonToken.START_OBJECT) {
                    root = readFields(p, columns, true);
                } else {
                    root = null;
                    if (first != null) {
                        p.skipChildren(); // still read to the end: broken JSON is malformed, not "not an object"
                    }
                }
                requireEnd(p);
            }
        } catch (JacksonException e) {
            throw new MalformedEventException(MalformedEventException.Reason.MALFORMED_JSON,
                    "not JSON: " + e.getOriginalMessage(), e);
        }
        if (root == null) {
            throw new MalformedEventException(MalformedEventException.Reason.NOT_AN_ENVELOPE,
                    "not a JSON object", null);
        }
        Fields envelope = root.payload != null && root.schemaPresent ? root.payload : root;
        if (envelope.op == null) {
            throw new MalformedEventException(MalformedEventException.Reason.NOT_AN_ENVELOPE,
                    "no '" + Envelope.OP + "' field", null);
        }
        Operation operation = Operation.ofCode(envelope.op);
        if (operation == null) {
            throw new MalformedEventException(MalformedEventException.Reason.UNEXPECTED_OPERATION,
                    "unknown op '" + envelope.op + "'", null);
        }
        return new ChangeEvent(topic, partition, offset, operation, envelope.before, envelope.after,
                envelope.database, envelope.table, envelope.sourceTs, envelope.ts, envelope.truncatedColumns,
                envelope.gtid, envelope.coalesced);
    }

    /**
     * Nothing may follow the value: the tree parse this replaces fails on trailing tokens
     * ({@code DeserializationFeature.FAIL_ON_TRAILING_TOKENS}, on by default), with this message.
     */
    private static void requireEnd(JsonParser p) throws MalformedEventException {
        JsonToken trailing = p.nextToken();
        if (trailing != null) {
            throw new MalformedEventException(MalformedEventException.Reason.MALFORMED_JSON,
                    "not JSON: Trailing token (`JsonToken." + trailing.name() + "`) found after value (bound as "
                            + "`tools.jackson.databind.JsonNode`): not allowed as per "
                            + "`DeserializationFeature.FAIL_ON_TRAILING_TOKENS`", null);
        }
    }

    /** The fields of one object level, the parser positioned on its START_OBJECT; returns after its END_OBJECT. */
    private Fields readFields(JsonParser p, RowColumns columns, boolean root) {
        Fields fields = new Fields();
        String name;
        while ((name = p.nextName()) != null) {
            JsonToken token = p.nextToken();
            switch (name) {
                case Envelope.OP -> fields.op = string(p, token);
                case Envelope.BEFORE -> fields.before = token == JsonToken.START_OBJECT ? row(p, columns) : skip(p);
                case Envelope.AFTER -> fields.after = token == JsonToken.START_OBJECT ? row(p, columns) : skip(p);
                case Envelope.SOURCE -> readSource(p, token, fields);
                case Envelope.TS_MS -> fields.ts = number(p, token);
                case ReducedEvent.TRUNCATED_COLUMNS -> fields.truncatedColumns = truncatedColumns(p, token);
                case CoalescedEviction.FIELD -> fields.coalesced = coalesced(p, token);
                case PAYLOAD -> {
                    if (root && token == JsonToken.START_OBJECT) {
                        fields.payload = readFields(p, columns, false);
                    } else {
                        p.skipChildren();
                        fields.payload = null; // a later payload replaces an earlier one, as in a tree
                    }
                }
                case SCHEMA -> {
                    fields.schemaPresent |= root;
                    p.skipChildren();
                }
                default -> p.skipChildren();
            }
        }
        return fields;
    }

    /** {@code source}: a later block replaces an earlier one entirely, as in a tree; not an object means none. */
    private static void readSource(JsonParser p, JsonToken token, Fields fields) {
        fields.database = null;
        fields.table = null;
        fields.sourceTs = -1;
        fields.gtid = null;
        if (token != JsonToken.START_OBJECT) {
            p.skipChildren();
            return;
        }
        String name;
        while ((name = p.nextName()) != null) {
            JsonToken value = p.nextToken();
            switch (name) {
                case Envelope.SOURCE_DB -> fields.database = string(p, value);
                case Envelope.SOURCE_TABLE -> fields.table = string(p, value);
                case Envelope.TS_MS -> fields.sourceTs = number(p, value);
                case Envelope.SOURCE_GTID -> fields.gtid = string(p, value);
                default -> p.skipChildren();
            }
        }
    }

    /**
     * The columns an oversized event lost. A marker present but not a list of names must not make a reduced
     * event look complete: it yields {@link ReducedEvent#UNKNOWN_COLUMNS}, for which consumers evict whole caches.
     */
    private static Set<String> truncatedColumns(JsonParser p, JsonToken token) {
        if (token == JsonToken.VALUE_NULL) {
            return Set.of();
        }
        if (token != JsonToken.START_ARRAY) {
            p.skipChildren();
            return Set.of(ReducedEvent.UNKNOWN_COLUMNS);
        }
        Set<String> columns = new HashSet<>();
        JsonToken element;
        while ((element = p.nextToken()) != JsonToken.END_ARRAY) {
            if (element == JsonToken.VALUE_STRING) {
                columns.add(p.getString());
            } else {
                p.skipChildren();
                columns.add(ReducedEvent.UNKNOWN_COLUMNS);
            }
        }
        return columns.isEmpty() ? Set.of() : columns;
    }

    /**
     * The {@code coalesced} marker: an object (its {@code transaction} and {@code eviction} strings and its
     * {@code rows_published} number, other fields ignored), or {@code null} when the field is {@code null} or not an object (then the event is read like any
     * reduced event: its {@code truncated_columns} still evict).
     */
    private static ChangeEvent.Coalesced coalesced(JsonParser p, JsonToken token) {
        if (token != JsonToken.START_OBJECT) {
            p.skipChildren();
            return null;
        }
        String transaction = null;
        String eviction = null;
        long rowsPublished = -1;
        String name;
        while ((name = p.nextName()) != null) {
            JsonToken value = p.nextToken();
            switch (name) {
                case CoalescedEviction.TRANSACTION -> transaction = string(p, value);
                case CoalescedEviction.EVICTION -> eviction = string(p, value);
                case CoalescedEviction.ROWS_PUBLISHED -> rowsPublished = number(p, value);
                default -> p.skipChildren();
            }
        }
        return new ChangeEvent.Coalesced(transaction, eviction, rowsPublished);
    }

    /** A row image: the kept columns with the values a tree parse holds; the others skipped undecoded. */
    private ObjectNode row(JsonParser p, RowColumns columns) {
        ObjectNode row = nodes.objectNode();
        String name;
        while ((name = p.nextName()) != null) {
            JsonToken token = p.nextToken();
            if (columns.keeps(name)) {
                row.set(name, value(p, token));
            } else {
                p.skipChildren();
            }
        }
        return row;
    }

    /**
     * The node a tree parse builds for the current value: the smallest integer node that holds it, a double for
     * a fraction, and nested objects and arrays (JSON columns of some connectors) alike. Recursion is bounded by
     * the parser's nesting limit, which it enforces before handing out a deeper level.
     */
    private JsonNode value(JsonParser p, JsonToken token) {
        switch (token) {
            case VALUE_STRING:
                return nodes.stringNode(p.getString());
            case VALUE_NUMBER_INT:
                return switch (p.getNumberType()) {
                    case INT -> nodes.numberNode(p.getIntValue());
                    case LONG -> nodes.numberNode(p.getLongValue());
                    default -> nodes.numberNode(p.getBigIntegerValue());
                };
            case VALUE_NUMBER_FLOAT:
                return switch (p.getNumberTypeFP()) {
                    case BIG_DECIMAL -> nodes.numberNode(p.getDecimalValue());
                    case FLOAT32 -> nodes.numberNode(p.getFloatValue());
                    default -> nodes.numberNode(p.getDoubleValue());
                };
            case VALUE_TRUE:
                return nodes.booleanNode(true);
            case VALUE_FALSE:
                return nodes.booleanNode(false);
            case VALUE_NULL:
                return nodes.nullNode();
            case START_OBJECT: {
                ObjectNode object = nodes.objectNode();
                String name;
                while ((name = p.nextName()) != null) {
                    object.set(name, value(p, p.nextToken()));
                }
                return object;
            }
            case START_ARRAY: {
                ArrayNode array = nodes.arrayNode();
                JsonToken element;
                while ((element = p.nextToken()) != JsonToken.END_ARRAY) {
                    array.add(value(p, element));
                }
                return array;
            }
            default:
                // Not produced by a JSON text parser (embedded objects); read it as the tree model would.
                return mapper.readTree(p);
        }
    }

    private static ObjectNode skip(JsonParser p) {
        p.skipChildren();
        return null;
    }

    private static String string(JsonParser p, JsonToken token) {
        if (token == JsonToken.VALUE_STRING) {
            return p.getString();
        }
        p.skipChildren();
        return null;
    }

    /**
     * An epoch-millisecond field or a count, or {@code -1}: absent, not an integer, or beyond a long (a {@code ts_ms} of
     * 2^70 must not throw from deep inside the consumer loop). The parser types an integer by the smallest of
     * int, long and big integer that holds it, so a big integer never fits a long.
     */
    private static long number(JsonParser p, JsonToken token) {
        if (token != JsonToken.VALUE_NUMBER_INT) {
            p.skipChildren();
            return -1;
        }
        JsonParser.NumberType type = p.getNumberType();
        return type == JsonParser.NumberType.INT || type == JsonParser.NumberType.LONG ? p.getLongValue() : -1;
    }

    /** What one object level of the envelope said; the last occurrence of a field wins, as in a tree. */
    private static final class Fields {
        /** {@code op} if its last occurrence was a string. */
        String op;
        ObjectNode before;
        ObjectNode after;
        String database;
        String table;
        long sourceTs = -1;
        String gtid;
        long ts = -1;
        Set<String> truncatedColumns = Set.of();
        ChangeEvent.Coalesced coalesced;
        /** Root only: the {@code payload} object of an envelope with embedded schema. */
        Fields payload;
        /** Root only: whether a {@code schema} field is present (with any value). */
        boolean schemaPresent;
    }
}
