package dev.cdccache.connector.engine;

import java.lang.management.ManagementFactory;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * Reads whether Debezium's binlog reader is connected, and how often its connection was lost, from the streaming
 * metrics MBean Debezium registers ({@code debezium.<connector>:type=connector-metrics,context=streaming,server=<topic-prefix>}).
 */
final class StreamingStatus {

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final ObjectName query;
    /** Disconnects counted by engines that have stopped since, and the last count read (guarded by this). */
    private long earlierDisconnects;
    private long lastDisconnects;

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

    /**
     * The binlog connections lost since this object was made ({@code NumberOfDisconnects}: the binlog client's own
     * count, a keep-alive reconnect included). Debezium's count starts again at 0 with every engine, and is absent
     * while none runs; this one only grows, as a counter must: a count lower than the last one read is a new
     * engine's (Debezium restarts its task after a retriable error), added to what the earlier ones had counted.
     * {@link #engineStarting()} says so exactly when this process starts an engine.
     */
    synchronized long disconnects() {
        long current = currentDisconnects();
        if (current < lastDisconnects) {
            earlierDisconnects += lastDisconnects;
        }
        lastDisconnects = current;
        return earlierDisconnects + current;
    }

    /** A new engine is about to start (the previous one, if any, has stopped): its count starts from 0. */
    synchronized void engineStarting() {
        earlierDisconnects += lastDisconnects;
        lastDisconnects = 0;
    }

    private long currentDisconnects() {
        long total = 0;
        for (ObjectName name : server.queryNames(query, null)) {
            try {
                if (server.getAttribute(name, "NumberOfDisconnects") instanceof Number n) {
                    total += n.longValue();
                }
            } catch (Exception e) {
                // MBean unregistered between query and read (the engine stopped): nothing to add
            }
        }
        return total;
    }
}
