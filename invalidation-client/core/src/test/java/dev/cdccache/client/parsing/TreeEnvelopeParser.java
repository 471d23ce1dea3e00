package dev.cdccache.client.parsing;

import dev.cdccache.contract.CoalescedEviction;
import dev.cdccache.contract.Envelope;
import dev.cdccache.contract.ReducedEvent;
import java.util.HashSet;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * The envelope parser the client used before {@link EnvelopeParser} read a token stream: the whole value read
 * as a JSON tree, the fields picked from it. Kept, unchanged, only as the oracle the streaming parser is
 * compared with (EnvelopeParserEquivalenceTest, and the system tests' envelopes from the connector) and
 * measured against (EnvelopeParseBenchmark).
 */
public final class TreeEnvelopeParser {

    private final ObjectMapper mapper;

    public TreeEnvelopeParser() {
        this(JsonMapper.builder().build());
    }

    TreeEnvelopeParser(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    /**
     * @param value the record value, not {@code null} (a tombstone is handled before parsing)
     * @throws MalformedEventException if the bytes are not JSON, not an envelope, or carry an unknown op
     */
    public ChangeEvent parse(String topic, int partition, long offset, byte[] value) throws MalformedEventException {
        JsonNode root;
        try {
            root = mapper.readTree(value);
        } catch (JacksonException e) {
            throw new MalformedEventException(MalformedEventException.Reason.MALFORMED_JSON,
                    "not JSON: " + e.getOriginalMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new MalformedEventException(MalformedEventException.Reason.NOT_AN_ENVELOPE,
                    "not a JSON object", null);
        }
        JsonNode payload = root.get("payload");
        JsonNode envelope = payload != null && payload.isObject() && root.has("schema") ? payload : root;
        JsonNode opNode = envelope.get(Envelope.OP);
        if (opNode == null || !opNode.isString()) {
            throw new MalformedEventException(MalformedEventException.Reason.NOT_AN_ENVELOPE,
                    "no '" + Envelope.OP + "' field", null);
        }
        Operation operation = Operation.ofCode(opNode.asString());
        if (operation == null) {
            throw new MalformedEventException(MalformedEventException.Reason.UNEXPECTED_OPERATION,
                    "unknown op '" + opNode.asString() + "'", null);
        }
        JsonNode source = envelope.get(Envelope.SOURCE);
        String database = null;
        String table = null;
        long sourceTs = -1;
        String gtid = null;
        if (source != null && source.isObject()) {
            database = text(source.get(Envelope.SOURCE_DB));
            table = text(source.get(Envelope.SOURCE_TABLE));
            sourceTs = number(source.get(Envelope.TS_MS));
            gtid = text(source.get(Envelope.SOURCE_GTID));
        }
        return new ChangeEvent(topic, partition, offset, operation, row(envelope.get(Envelope.BEFORE)),
                row(envelope.get(Envelope.AFTER)), database, table, sourceTs, number(envelope.get(Envelope.TS_MS)),
                truncatedColumns(envelope.get(ReducedEvent.TRUNCATED_COLUMNS)), gtid,
                coalesced(envelope.get(CoalescedEviction.FIELD)));
    }

    /** The {@code coalesced} marker if it is an object, else {@code null}. */
    private static ChangeEvent.Coalesced coalesced(JsonNode node) {
        if (node == null || !node.isObject()) {
            return null;
        }
        JsonNode rows = node.get(CoalescedEviction.ROWS_PUBLISHED);
        return new ChangeEvent.Coalesced(text(node.get(CoalescedEviction.TRANSACTION)),
                text(node.get(CoalescedEviction.EVICTION)),
                rows != null && rows.isIntegralNumber() ? rows.asLong() : -1);
    }

    /**
     * The columns an oversized event lost. A marker present but not a list of names must not make a reduced
     * event look complete: it yields {@link ReducedEvent#UNKNOWN_COLUMNS}, for which consumers evict whole caches.
     */
    private static Set<String> truncatedColumns(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return Set.of();
        }
        if (!node.isArray()) {
            return Set.of(ReducedEvent.UNKNOWN_COLUMNS);
        }
        Set<String> columns = new HashSet<>();
        for (JsonNode column : node) {
            columns.add(column.isString() ? column.asString() : ReducedEvent.UNKNOWN_COLUMNS);
        }
        return columns.isEmpty() ? Set.of() : columns;
    }

    private static JsonNode row(JsonNode node) {
        return node != null && node.isObject() ? node : null;
    }

    private static String text(JsonNode node) {
        return node != null && node.isString() ? node.asString() : null;
    }

    /**
     * A non-negative epoch-millisecond field, or {@code -1}: absent, not an integer, or not a long (a
     * {@code ts_ms} of 2^70 must not throw from deep inside the consumer loop; Jackson's {@code asLong()}
     * does for such values, {@code longValueOpt()} does not).
     */
    private static long number(JsonNode node) {
        if (node == null || !node.isIntegralNumber()) {
            return -1;
        }
        return node.longValueOpt().orElse(-1);
    }
}
