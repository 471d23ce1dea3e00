package dev.cdccache.connector.engine;

import java.lang.management.ManagementFactory;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * Reads whether Debezium's binlog reader is connected, from the streaming metrics MBean Debezium
 * registers ({@code debezium.<connector>:type=connector-metrics,context=streaming,server=<topic-prefix>}).
 */
final class StreamingStatus {

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final ObjectName query;

    StreamingStatus(String topicPrefix) {
        try {
            this.query = new ObjectName("debezium.*:type=connector-metrics,context=streaming,server=" + topicPrefix + ",*");
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException("topic prefix " + topicPrefix, e);
        }
    }

    /** Whether the binlog reader of this connector is connected. */
    boolean connected() {
        Set<ObjectName> names = server.queryNames(query, null);
        for (ObjectName name : names) {
            try {
                if (Boolean.TRUE.equals(server.getAttribute(name, "Connected"))) {
                    return true;
                }
            } catch (Exception e) {
                // MBean unregistered between query and read: not connected
            }
        }
        return false;
    }
}
