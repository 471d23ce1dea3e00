package dev.cdccache.connector.startup;

import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Node;

/** Verifies that the Kafka cluster answers before the engine starts. */
public final class KafkaClusterCheck {

    private final Admin admin;
    private final String bootstrapServers;
    private final Duration timeout;

    public KafkaClusterCheck(Admin admin, String bootstrapServers, Duration timeout) {
        this.admin = admin;
        this.bootstrapServers = bootstrapServers;
        this.timeout = timeout;
    }

    /**
     * Asks the cluster to describe itself.
     *
     * @throws StartupCheckException if it does not answer within the timeout
     */
    public void verify() throws InterruptedException {
        try {
            Collection<Node> nodes = admin.describeCluster().nodes().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (nodes.isEmpty()) {
                throw unreachable("the cluster reported no brokers", null);
            }
        } catch (TimeoutException e) {
            throw unreachable("no answer within " + timeout.toSeconds() + " s", e);
        } catch (ExecutionException e) {
            throw unreachable(e.getCause().toString(), e.getCause());
        }
    }

    private StartupCheckException unreachable(String detail, Throwable cause) {
        return new StartupCheckException("Kafka is not reachable at " + bootstrapServers + " (" + detail + ").",
                "Check cdc.connector.kafka.bootstrap-servers, that the brokers run and are reachable from this host,"
                        + " and cdc.connector.kafka.properties (security.protocol, sasl.*, ssl.*) if the cluster is secured.",
                cause);
    }
}
