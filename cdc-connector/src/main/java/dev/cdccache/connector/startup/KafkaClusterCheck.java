package dev.cdccache.connector.startup;

import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;

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
            if (e.getCause() instanceof SslAuthenticationException tls) {
                throw new StartupCheckException("The TLS handshake with Kafka at " + bootstrapServers + " failed ("
                        + tls.getMessage() + ").",
                        "Check cdc.connector.kafka.security.ssl.truststore-location (it must hold the CA that signed the"
                                + " brokers' certificates), its password, and ssl.endpoint-identification-algorithm.", tls);
            }
            if (e.getCause() instanceof AuthenticationException refused) {
                // Kafka's message names the mechanism and says "invalid credentials"; it never contains the password.
                throw new StartupCheckException("Kafka at " + bootstrapServers + " refused the connector's credentials ("
                        + refused.getMessage() + ").",
                        "Check cdc.connector.kafka.security.sasl.username, sasl.password and sasl.mechanism, and that the"
                                + " user exists on the cluster with a SCRAM credential for that mechanism"
                                + " (kafka-configs --alter --entity-type users --entity-name <user> --add-config"
                                + " 'SCRAM-SHA-512=[password=...]').", refused);
            }
            throw unreachable(e.getCause().toString(), e.getCause());
        }
    }

    private StartupCheckException unreachable(String detail, Throwable cause) {
        return new StartupCheckException("Kafka is not reachable at " + bootstrapServers + " (" + detail + ").",
                "Check cdc.connector.kafka.bootstrap-servers, that the brokers run and are reachable from this host,"
                        + " and cdc.connector.kafka.security.* (protocol, sasl, ssl) if the cluster is secured: a client"
                        + " speaking PLAINTEXT to a SASL or TLS listener gets no answer.",
                cause);
    }
}
