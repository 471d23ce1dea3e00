package dev.cdccache.infra.kafka;

import dev.cdccache.infra.DataDirectories;
import dev.cdccache.infra.process.FreePorts;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;

/**
 * Several real Kafka brokers forming one KRaft cluster, each node broker and controller in a JVM of its own (a
 * controller quorum of all nodes), with replication factor {@code size} for the internal topics: for tests that
 * need replication, leaders and followers on different processes, and a broker that stalls ({@link
 * KafkaBroker#pause()}) while the others go on.
 *
 * <p>Failure detection is tightened for tests (a broker is fenced after 3 s without heartbeats, a follower leaves
 * the in-sync replicas after 2 s behind); everything else is Kafka's default.
 *
 * <pre>{@code
 * try (KafkaCluster cluster = KafkaCluster.builder(Path.of("target/cluster")).size(3).build().start()) {
 *     cluster.bootstrapServers(); // 127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3
 *     cluster.broker(2).pause();
 * }
 * }</pre>
 */
public final class KafkaCluster implements AutoCloseable {

    private final Path baseDir;
    private final List<KafkaBroker> brokers = new ArrayList<>();

    private KafkaCluster(Builder builder) {
        this.baseDir = builder.baseDir.toAbsolutePath();
        String clusterId = Uuid.randomUuid().toString();
        List<Integer> controllerPorts = new ArrayList<>();
        for (int i = 0; i < builder.size; i++) {
            controllerPorts.add(FreePorts.next());
        }
        String voters = java.util.stream.IntStream.range(0, builder.size)
                .mapToObj(i -> (i + 1) + "@127.0.0.1:" + controllerPorts.get(i)).collect(Collectors.joining(","));
        for (int i = 0; i < builder.size; i++) {
            KafkaBroker.Builder broker = KafkaBroker.builder(baseDir.resolve("node-" + (i + 1)))
                    .heap(builder.heap)
                    .clusterMember(i + 1, controllerPorts.get(i), voters, clusterId, builder.size)
                    .serverProperty("broker.heartbeat.interval.ms", "500")
                    .serverProperty("broker.session.timeout.ms", "3000")
                    .serverProperty("replica.lag.time.max.ms", "2000");
            builder.serverProperties.forEach(broker::serverProperty);
            brokers.add(broker.build());
        }
    }

    public static Builder builder(Path baseDir) {
        return new Builder(baseDir);
    }

    /**
     * Formats and starts every node (side by side: a controller quorum forms only once a majority runs) and waits
     * until each serves metadata.
     */
    public KafkaCluster start() {
        // One thread per node (not a parallel stream, whose pool on 2 cores runs two at a time).
        java.util.concurrent.ExecutorService starter = java.util.concurrent.Executors.newFixedThreadPool(brokers.size());
        try {
            List<java.util.concurrent.Future<KafkaBroker>> started = new ArrayList<>();
            brokers.forEach(b -> started.add(starter.submit(b::start)));
            for (java.util.concurrent.Future<KafkaBroker> f : started) {
                f.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new IllegalStateException("interrupted while starting " + this, e);
        } catch (java.util.concurrent.ExecutionException e) {
            close();
            throw new IllegalStateException("could not start " + this + ": " + e.getCause().getMessage(), e.getCause());
        } finally {
            starter.shutdown();
        }
        return this;
    }

    /** {@code host:port} of every broker, comma-separated. */
    public String bootstrapServers() {
        return brokers.stream().map(KafkaBroker::bootstrapServers).collect(Collectors.joining(","));
    }

    /** The broker with node id {@code nodeId} (1-based). */
    public KafkaBroker broker(int nodeId) {
        return brokers.get(nodeId - 1);
    }

    /** All brokers, by node id. */
    public List<KafkaBroker> brokers() {
        return List.copyOf(brokers);
    }

    /** An admin client for the cluster; the caller closes it. */
    public Admin admin() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15000);
        return Admin.create(props);
    }

    /**
     * Kills every broker (SIGKILL) and deletes the data. Not a graceful stop: the data goes next, and KRaft nodes
     * stopping together wait on each other's quorum until their grace period (30 s) runs out. A test that needs
     * a clean shutdown stops a broker itself ({@link KafkaBroker#stop()}).
     */
    @Override
    public void close() {
        brokers.parallelStream().forEach(b -> {
            try {
                b.kill(); // also ends a paused broker: SIGKILL needs no SIGCONT
            } catch (RuntimeException ignored) {
                // keep stopping the others
            }
        });
        DataDirectories.delete(baseDir);
    }

    @Override
    public String toString() {
        return "Kafka cluster " + bootstrapServers();
    }

    /** Configures a {@link KafkaCluster}. */
    public static final class Builder {
        private final Path baseDir;
        private int size = 3;
        private String heap = "384m";
        private final Map<String, String> serverProperties = new java.util.LinkedHashMap<>();

        private Builder(Path baseDir) {
            this.baseDir = Objects.requireNonNull(baseDir, "baseDir");
        }

        /** Number of nodes (each broker and controller), 3 by default; also the internal topics' replication factor. */
        public Builder size(int size) {
            if (size < 1) {
                throw new IllegalArgumentException("size must be at least 1, was " + size);
            }
            this.size = size;
            return this;
        }

        /** Maximum heap of each broker JVM. */
        public Builder heap(String heap) {
            this.heap = heap;
            return this;
        }

        /** A {@code server.properties} entry for every broker. */
        public Builder serverProperty(String key, String value) {
            serverProperties.put(key, value);
            return this;
        }

        public KafkaCluster build() {
            return new KafkaCluster(this);
        }
    }
}
