package dev.cdccache.infra.kafka;

import dev.cdccache.infra.DataDirectories;
import dev.cdccache.infra.LocalStack;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka Connect cluster for tests: a {@link KafkaCluster} of three brokers and two distributed
 * {@link KafkaConnectWorker workers} with exactly-once source support and their internal topics replicated to all
 * three brokers.
 *
 * <p>Starting one takes half a minute and more on two cores (three broker JVMs, then two worker JVMs that scan the
 * plugin path and join their group), so the test classes of a JVM share one through {@link #shared()}, as they share
 * the {@link LocalStack#shared() local stack}. Sharing is safe because nothing a test deploys outlives it: each
 * class deploys its connectors under names, topic prefixes and tables of its own and removes them when it ends
 * ({@link #removeConnector}). A class may kill or stop a worker, or pause a broker (and resume it before it ends):
 * {@link #shared()} starts every worker that is not running again before it hands the cluster to the next class.
 *
 * <p>Settings, and why:
 * <ul>
 *   <li>brokers: {@code replica.lag.time.max.ms} and {@code broker.session.timeout.ms} 30 s, so that a test may
 *       stall a broker (SIGSTOP) for a few seconds without it being dropped from the in-sync replicas or fenced;
 *   <li>workers: the {@link KafkaConnectWorker} defaults (the settings docs/kafka-connect.md recommends, and
 *       failover within seconds: a killed worker's tasks move after its 6 s session timeout), internal topics with
 *       replication factor 3. A test that stalls a broker must therefore not stall the Connect group's coordinator
 *       ({@link #groupCoordinator}), or the workers would leave the group meanwhile;
 *   <li>the workers' environment holds the shared stack's connector password for the {@code env} config provider
 *       ({@code CDC_CONNECTOR_DATABASE_PASSWORD}), as the exported connector configuration expects.
 * </ul>
 *
 * <p>Stopped, and its data deleted, by a shutdown hook; every process also has a watchdog that kills it if the JVM
 * dies without running hooks.
 */
public final class ConnectCluster implements AutoCloseable {

    /** The Connect cluster's {@code group.id}; also the prefix of its internal topics. */
    public static final String GROUP_ID = "shared-connect";
    /** Where the connector plugins are unpacked ({@code -Dcdc.connect.plugin-path}, default {@code target/connect-plugins}). */
    public static final String PLUGIN_PATH_PROPERTY = "cdc.connect.plugin-path";

    private static final Logger log = LoggerFactory.getLogger(ConnectCluster.class);
    private static final int WORKERS = 2;
    private static final Duration REMOVE_TIMEOUT = Duration.ofSeconds(60);
    private static ConnectCluster shared;

    private final Path baseDir;
    private final KafkaCluster kafka;
    private final List<KafkaConnectWorker> workers = new ArrayList<>();

    private ConnectCluster(Path baseDir, Path pluginPath, String connectorPassword) {
        this.baseDir = baseDir.toAbsolutePath();
        this.kafka = KafkaCluster.builder(baseDir.resolve("kafka")).size(3)
                .serverProperty("replica.lag.time.max.ms", "30000")
                .serverProperty("broker.session.timeout.ms", "30000")
                .build();
        for (int i = 1; i <= WORKERS; i++) {
            workers.add(KafkaConnectWorker.builder(baseDir.resolve("worker-" + i), kafka.bootstrapServers())
                    .groupId(GROUP_ID)
                    .pluginPath(pluginPath)
                    .env("CDC_CONNECTOR_DATABASE_PASSWORD", connectorPassword)
                    .workerProperty("config.storage.replication.factor", "3")
                    .workerProperty("offset.storage.replication.factor", "3")
                    .workerProperty("status.storage.replication.factor", "3")
                    .build());
        }
    }

    /**
     * The cluster shared by every test of this JVM, started on first call under {@code target/connect-<pid>} (or
     * {@code -Dcdc.infra.dir}); its workers reach the {@link LocalStack#shared() shared stack}'s MariaDB. Every call
     * first starts the workers that are not running (a previous test class killed or stopped them) and returns once
     * their REST APIs answer.
     */
    public static synchronized ConnectCluster shared() {
        // synchronized as a whole: test classes ask once each, and one that asks while the cluster starts waits
        if (shared == null) {
            Path dir = Path.of(System.getProperty("cdc.infra.dir", "target"))
                    .resolve("connect-" + ProcessHandle.current().pid());
            Path plugins = Path.of(System.getProperty(PLUGIN_PATH_PROPERTY, "target/connect-plugins"));
            ConnectCluster cluster = new ConnectCluster(dir, plugins, LocalStack.shared().mariaDb().connectorPassword());
            Runtime.getRuntime().addShutdownHook(new Thread(cluster::close, "connect-cluster-shutdown"));
            cluster.start(); // closes what it started and throws when it fails: the next caller tries again
            shared = cluster;
        }
        shared.startStoppedWorkers();
        return shared;
    }

    private void start() {
        long started = System.nanoTime();
        boolean up = false;
        try {
            kafka.start();
            workers.parallelStream().forEach(KafkaConnectWorker::start);
            up = true;
        } finally {
            if (!up) {
                close(); // nothing half-started is left running
            }
        }
        log.info("Connect cluster up in {} ms: {} workers on {}", (System.nanoTime() - started) / 1_000_000,
                workers.size(), kafka);
    }

    /** Starts again, side by side, every worker that is not running; returns once each REST API answers. */
    public synchronized void startStoppedWorkers() {
        List<KafkaConnectWorker> stopped = workers.stream().filter(w -> !w.isRunning()).toList();
        if (!stopped.isEmpty()) {
            log.info("starting {} stopped Connect worker(s) again", stopped.size());
            stopped.parallelStream().forEach(KafkaConnectWorker::start);
        }
    }

    /** The brokers the workers run on (node ids 1 to 3). */
    public KafkaCluster kafka() {
        return kafka;
    }

    /** The workers, in a fixed order (some may have been killed by the test running now). */
    public List<KafkaConnectWorker> workers() {
        return List.copyOf(workers);
    }

    /** The first worker that is running: where to send REST requests. */
    public KafkaConnectWorker runningWorker() {
        return workers.stream().filter(KafkaConnectWorker::isRunning).findFirst()
                .orElseThrow(() -> new IllegalStateException("no Connect worker is running"));
    }

    /**
     * The node id of the broker coordinating the workers' group: a worker that cannot reach it for longer than its
     * session timeout leaves the group and its tasks are moved.
     */
    public int groupCoordinator() {
        try (var admin = kafka.admin()) {
            return admin.describeClassicGroups(List.of(GROUP_ID)).describedGroups().get(GROUP_ID)
                    .get(30, java.util.concurrent.TimeUnit.SECONDS).coordinator().id();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("could not look up the coordinator of group " + GROUP_ID, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * Deletes a connector (its tasks stop; its offsets stay in the offsets topic, under its name) and waits until
     * no worker lists it. Does nothing when there is no such connector.
     */
    public void removeConnector(String name) {
        KafkaConnectWorker worker = runningWorker();
        KafkaConnectWorker.Response deleted = worker.delete("/connectors/" + name);
        if (deleted.status() == 404) {
            return;
        }
        if (deleted.status() / 100 != 2) {
            throw new IllegalStateException("DELETE /connectors/" + name + " answered " + deleted);
        }
        long deadline = System.nanoTime() + REMOVE_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (workers.stream().filter(KafkaConnectWorker::isRunning)
                    .allMatch(w -> w.get("/connectors/" + name).status() == 404)) {
                return;
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
        throw new IllegalStateException("connector " + name + " still listed " + REMOVE_TIMEOUT.toSeconds()
                + " s after it was deleted");
    }

    /**
     * Kills the workers and the brokers (SIGKILL) and deletes their data. Nothing is worth a graceful stop here:
     * the data goes next, and three KRaft nodes stopping together wait on each other's quorum, long enough for
     * the test JVM's exit to be cut short (and the data left behind) when this runs as its shutdown hook.
     */
    @Override
    public void close() {
        workers.parallelStream().forEach(w -> {
            try {
                w.kill();
                w.close(); // only deletes its directory now
            } catch (RuntimeException ignored) {
                // keep stopping the others
            }
        });
        kafka.close(); // kills the brokers too, and deletes their data
        DataDirectories.delete(baseDir);
    }

    @Override
    public String toString() {
        return "Connect cluster " + GROUP_ID + " (" + workers.size() + " workers on " + kafka + ")";
    }
}
