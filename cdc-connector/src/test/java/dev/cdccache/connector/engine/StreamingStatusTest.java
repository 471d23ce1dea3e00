package dev.cdccache.connector.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link StreamingStatus} against stand-ins of Debezium's streaming metrics MBean, registered the way Debezium
 * registers it: one per running engine task, gone while none runs, its counts starting again at 0 with each.
 */
class StreamingStatusTest {

    /** The attributes of Debezium's streaming metrics MBean that {@link StreamingStatus} reads. */
    public interface StreamingMetricsMBean {
        boolean isConnected();

        long getNumberOfDisconnects();
    }

    public static final class StreamingMetrics implements StreamingMetricsMBean {
        volatile boolean connected;
        volatile long disconnects;

        @Override
        public boolean isConnected() {
            return connected;
        }

        @Override
        public long getNumberOfDisconnects() {
            return disconnects;
        }
    }

    private static final String PREFIX = "streaming-status-test";
    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final ObjectName name = name(PREFIX);

    private static ObjectName name(String prefix) {
        try {
            return new ObjectName("debezium.mariadb:type=connector-metrics,context=streaming,server=" + prefix);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private StreamingMetrics taskStarted() throws Exception {
        StreamingMetrics metrics = new StreamingMetrics();
        server.registerMBean(metrics, name);
        return metrics;
    }

    private void taskStopped() throws Exception {
        server.unregisterMBean(name);
    }

    @AfterEach
    void unregister() throws Exception {
        if (server.isRegistered(name)) {
            taskStopped();
        }
    }

    @Test
    void readsWhetherTheBinlogReaderIsConnected() throws Exception {
        StreamingStatus status = new StreamingStatus(PREFIX);
        assertThat(status.connected()).as("no engine").isFalse();
        StreamingMetrics task = taskStarted();
        assertThat(status.connected()).isFalse();
        task.connected = true;
        assertThat(status.connected()).isTrue();
    }

    @Test
    void disconnectsKeepGrowingWhenDebeziumRestartsItsTask() throws Exception {
        StreamingStatus status = new StreamingStatus(PREFIX);
        status.engineStarting();
        assertThat(status.disconnects()).as("no task yet").isZero();

        StreamingMetrics first = taskStarted();
        first.disconnects = 2;
        assertThat(status.disconnects()).isEqualTo(2);
        taskStopped();
        assertThat(status.disconnects()).as("while no task runs").isEqualTo(2);

        StreamingMetrics second = taskStarted();
        assertThat(status.disconnects()).as("a new task counts from 0").isEqualTo(2);
        second.disconnects = 1;
        assertThat(status.disconnects()).isEqualTo(3);
    }

    @Test
    void aNewEngineOfThisProcessCountsOnFromWhatTheLastOneCounted() throws Exception {
        StreamingStatus status = new StreamingStatus(PREFIX);
        status.engineStarting();
        StreamingMetrics first = taskStarted();
        first.disconnects = 1;
        assertThat(status.disconnects()).isEqualTo(1);
        taskStopped();

        status.engineStarting();
        StreamingMetrics second = taskStarted();
        second.disconnects = 1; // as high as the last count read: only the restart tells it apart
        assertThat(status.disconnects()).isEqualTo(2);
        second.disconnects = 3;
        assertThat(status.disconnects()).isEqualTo(4);
    }

    @Test
    void anotherConnectorsMetricsAreNotCounted() throws Exception {
        ObjectName other = name("another-prefix");
        StreamingMetrics metrics = new StreamingMetrics();
        metrics.disconnects = 5;
        metrics.connected = true;
        server.registerMBean(metrics, other);
        try {
            StreamingStatus status = new StreamingStatus(PREFIX);
            assertThat(status.disconnects()).isZero();
            assertThat(status.connected()).isFalse();
        } finally {
            server.unregisterMBean(other);
        }
    }
}
