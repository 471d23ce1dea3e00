package dev.cdccache.connector.publish;

import dev.cdccache.contract.CoalescedEviction;
import dev.cdccache.contract.Envelope;
import dev.cdccache.contract.ReducedEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Builds the table-wide eviction of docs/contract.md, "Large transactions" ({@link CoalescedEviction}): from the
 * serialized first row event it replaces, the same envelope ({@code op}, {@code source}, {@code ts_ms}) and headers
 * with {@code before}/{@code after} {@code null}, {@code truncated_columns: ["*"]} (a client of the previous
 * release evicts every cache of the table for it, as for a reduced event whose columns are unknown) and the
 * {@code coalesced} marker; one copy per partition of the topic, with no key, each addressed to its partition.
 *
 * <p>Why every partition: the suppressed rows would have been spread over the partitions by their keys, and a
 * client proves positions per partition. Each copy takes, in its partition, the place those rows would have had, so
 * no partition's position passes the transaction before that partition's copy was applied.
 */
final class TableEvictions {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Supplier<String> evictionIds;

    TableEvictions() {
        this(() -> UUID.randomUUID().toString());
    }

    /** @param evictionIds a new id per eviction (tests fix them) */
    TableEvictions(Supplier<String> evictionIds) {
        this.evictionIds = evictionIds;
    }

    /**
     * The copies of one eviction.
     *
     * @param firstSuppressed the serialized row event the eviction replaces first (not a tombstone)
     * @param transaction the transaction's name (GTID, or file:pos)
     * @param rowsPublished row events of the table the transaction published before
     * @param partitions the partitions of the topic
     */
    List<ProducerRecord<byte[], byte[]>> of(ProducerRecord<byte[], byte[]> firstSuppressed, String transaction,
            int rowsPublished, List<Integer> partitions) {
        ObjectNode value = (ObjectNode) JSON.readTree(firstSuppressed.value());
        value.putNull(Envelope.BEFORE);
        value.putNull(Envelope.AFTER);
        value.putArray(ReducedEvent.TRUNCATED_COLUMNS).add(ReducedEvent.UNKNOWN_COLUMNS);
        ObjectNode marker = value.putObject(CoalescedEviction.FIELD);
        marker.put(CoalescedEviction.TRANSACTION, transaction);
        marker.put(CoalescedEviction.EVICTION, evictionIds.get());
        marker.put(CoalescedEviction.ROWS_PUBLISHED, rowsPublished);
        marker.put(CoalescedEviction.PARTITIONS, partitions.size());
        byte[] bytes = JSON.writeValueAsBytes(value);
        List<ProducerRecord<byte[], byte[]>> copies = new ArrayList<>(partitions.size());
        for (int partition : partitions) {
            copies.add(new ProducerRecord<>(firstSuppressed.topic(), partition, null, null, bytes,
                    new RecordHeaders(firstSuppressed.headers().toArray())));
        }
        return copies;
    }
}
