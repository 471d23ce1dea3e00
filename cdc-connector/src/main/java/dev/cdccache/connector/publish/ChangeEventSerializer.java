package dev.cdccache.connector.publish;

import dev.cdccache.contract.ConnectorHeader;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Turns Debezium's change records into Kafka records exactly as Kafka Connect would with
 * {@code JsonConverter} and {@code schemas.enable=false}: the key is the primary key as a JSON
 * object, the value the change-event envelope, a delete's tombstone a {@code null} value. Every record carries
 * the {@value ConnectorHeader#NAME} header with the connector's name (the Kafka Connect export adds
 * the same header with the InsertHeader transform).
 *
 * <p>Thread-safe once constructed ({@code JsonConverter} keeps no per-call state).
 */
public final class ChangeEventSerializer {

    private final JsonConverter keyConverter = new JsonConverter();
    private final JsonConverter valueConverter = new JsonConverter();
    private final Header connectorHeader;

    /** @param connectorName the value of the {@value ConnectorHeader#NAME} header */
    public ChangeEventSerializer(String connectorName) {
        this.connectorHeader = new RecordHeader(ConnectorHeader.NAME, ConnectorHeader.value(connectorName));
        keyConverter.configure(Map.of("schemas.enable", "false", "converter.type", "key"), true);
        valueConverter.configure(Map.of("schemas.enable", "false", "converter.type", "value"), false);
    }

    /** The Kafka record for one change record, addressed to the record's own topic. */
    public ProducerRecord<byte[], byte[]> toProducerRecord(SourceRecord record) {
        String topic = record.topic();
        byte[] key = record.key() == null ? null : keyConverter.fromConnectData(topic, record.keySchema(), record.key());
        byte[] value = record.value() == null ? null : valueConverter.fromConnectData(topic, record.valueSchema(), record.value());
        // No explicit partition: the producer's default partitioner hashes the key, so all changes of a row stay in order.
        return new ProducerRecord<>(topic, null, null, key, value, new RecordHeaders(new Header[] {connectorHeader}));
    }
}
