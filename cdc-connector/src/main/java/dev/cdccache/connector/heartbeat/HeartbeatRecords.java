package dev.cdccache.connector.heartbeat;

import dev.cdccache.contract.HeartbeatTable;
import java.util.function.Supplier;
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
    private final Supplier<String> currentEpoch;

    /**
     * @param topic the heartbeat table's change topic, {@code <prefix>.<db>.<table>}; null when heartbeats are off
     * @param connectorId this connector's name, the id of its row
     */
    public HeartbeatRecords(String topic, String connectorId) {
        this(topic, connectorId, () -> null);
    }

    /**
     * @param currentEpoch the epoch this connector publishes now (null: not decided); its own rows of another epoch
     *     are {@linkplain #isOfAnotherEpoch(SourceRecord) not published}
     */
    public HeartbeatRecords(String topic, String connectorId, Supplier<String> currentEpoch) {
        this.topic = topic;
        this.connectorId = connectorId;
        this.currentEpoch = currentEpoch;
    }

    /** No heartbeat table captured. */
    public static HeartbeatRecords none() {
        return new HeartbeatRecords(null, "");
    }

    /**
     * Whether the record is this connector's row carrying an epoch other than the current one: a row written before the
     * epoch was replaced (at start-up after a gap, or while streaming after a statement in the binlog) but read from the
     * binlog after the point the new epoch stands for. Published, it would prove to clients times after that point
     * under the old epoch, before the new epoch's row makes them drop what they cannot prove.
     */
    public boolean isOfAnotherEpoch(SourceRecord record) {
        if (!isHeartbeat(record) || isForeign(record) || !(record.value() instanceof Struct value)) {
            return false;
        }
        String current = currentEpoch.get();
        Field afterField = value.schema().field("after");
        if (current == null || afterField == null || !(value.get(afterField) instanceof Struct after)) {
            return false;
        }
        Field epochField = after.schema().field(HeartbeatTable.EPOCH);
        Object epoch = epochField == null ? null : after.get(epochField);
        return epoch != null && !current.equals(epoch.toString());
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
