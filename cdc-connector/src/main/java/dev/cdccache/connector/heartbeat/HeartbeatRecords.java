package dev.cdccache.connector.heartbeat;

import dev.cdccache.contract.HeartbeatTable;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Recognises change records of the heartbeat table: this connector's own row (published, and only after every
 * earlier change is acknowledged) and rows of other connectors sharing the table (not published: they are not
 * this connector's to vouch for; each connector publishes its own row).
 */
public final class HeartbeatRecords {

    private final String topic;
    private final String connectorId;

    /**
     * @param topic the heartbeat table's change topic, {@code <prefix>.<db>.<table>}; null when heartbeats are off
     * @param connectorId this connector's name, the id of its row
     */
    public HeartbeatRecords(String topic, String connectorId) {
        this.topic = topic;
        this.connectorId = connectorId;
    }

    /** No heartbeat table captured. */
    public static HeartbeatRecords none() {
        return new HeartbeatRecords(null, "");
    }

    /** Whether the record is a change of the heartbeat table (any connector's row). */
    public boolean isHeartbeat(SourceRecord record) {
        return topic != null && topic.equals(record.topic());
    }

    /** Whether the record is a change of another connector's heartbeat row. */
    public boolean isForeign(SourceRecord record) {
        if (!isHeartbeat(record)) {
            return false;
        }
        Object id = idOf(record);
        return id != null && !connectorId.equals(id.toString());
    }

    private static Object idOf(SourceRecord record) {
        if (record.key() instanceof Struct key) {
            Field field = key.schema().field(HeartbeatTable.ID);
            if (field != null) {
                return key.get(field);
            }
        }
        return null;
    }
}
