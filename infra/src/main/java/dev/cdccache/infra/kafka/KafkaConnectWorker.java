package dev.cdccache.infra.kafka;

import dev.cdccache.infra.DataDirectories;
import dev.cdccache.infra.process.FreePorts;
import dev.cdccache.infra.process.JavaProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One Kafka Connect distributed worker ({@code org.apache.kafka.connect.cli.ConnectDistributed}) in a JVM of
 * its own, run from the Kafka jars on Maven Central, as Kafka's distribution runs it: broker and worker share
 * one set of jars. Workers built with the same {@link Builder#groupId group id} and Kafka form one Connect
 * cluster: they share the config, offsets and status topics and split the connectors' tasks among them.
 *
 * <pre>{@code
 * KafkaConnectWorker first = KafkaConnectWorker.builder(dir.resolve("w1"), kafka.bootstrapServers())
 *         .groupId("connect-it").pluginPath(Path.of("target/connect-plugins"))
 *         .env("CDC_CONNECTOR_DATABASE_PASSWORD", secret)
 *         .build().start();                 // returns when its REST API answers
 * first.post("/connectors", connectorJson);
 * first.get("/connectors/coupons/status");
 * first.kill();                              // SIGKILL: its tasks move to the other workers
 * }</pre>
 *
 * <p>The worker's settings are those docs/kafka-connect.md recommends for cdc-cache (JSON without schemas,
 * the {@code env} config provider for the password, {@code exactly.once.source.support=enabled},
 * {@code producer.linger.ms=0}, one-second offset flushes),
 * with replication factor 1 for its internal topics (one local broker). Failover is tuned for tests: a dead
 * worker is noticed after {@code session.timeout.ms} (6 s) and its tasks are reassigned at once
 * ({@code scheduled.rebalance.max.delay.ms=0}; Kafka's default waits up to 5 minutes for the worker to come
 * back). Every setting can be overridden with {@link Builder#workerProperty}.
 *
 * <p>The process is guarded by a watchdog that kills it if this JVM dies. Not thread-safe.
 */
public final class KafkaConnectWorker implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration STOP_GRACE = Duration.ofSeconds(30);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Path baseDir;
    private final int restPort;
    private final Map<String, String> properties;
    private final Map<String, String> env;
    private final String heap;
    private final Path pluginPath;
    private JavaProcess process;

    private KafkaConnectWorker(Builder builder) {
        this.baseDir = builder.baseDir.toAbsolutePath();
        this.restPort = builder.restPort != 0 ? builder.restPort : FreePorts.next();
        this.env = Map.copyOf(builder.env);
        this.heap = builder.heap;
        this.pluginPath = builder.pluginPath == null ? null : builder.pluginPath.toAbsolutePath();
        Map<String, String> p = new LinkedHashMap<>();
        String group = builder.groupId;
        p.put("bootstrap.servers", builder.bootstrapServers);
        p.put("group.id", group);
        p.put("config.storage.topic", group + ".configs");
        p.put("offset.storage.topic", group + ".offsets");
        p.put("status.storage.topic", group + ".status");
        p.put("config.storage.replication.factor", "1");
        p.put("offset.storage.replication.factor", "1");
        p.put("status.storage.replication.factor", "1");
        p.put("offset.storage.partitions", "5");
        p.put("status.storage.partitions", "1");
        p.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
        p.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        p.put("key.converter.schemas.enable", "false");
        p.put("value.converter.schemas.enable", "false");
        p.put("listeners", "http://127.0.0.1:" + restPort);
        p.put("rest.advertised.host.name", "127.0.0.1");
        p.put("rest.advertised.port", Integer.toString(restPort));
        p.put("rest.advertised.listener", "http");
        if (pluginPath != null) {
            p.put("plugin.path", pluginPath.toString());
        }
        // What the exported connector needs from its worker (docs/kafka-connect.md).
        p.put("config.providers", "env");
        p.put("config.providers.env.class", "org.apache.kafka.common.config.provider.EnvVarConfigProvider");
        // the export requires exactly-once delivery (heartbeats never visible before earlier changes)
        p.put("exactly.once.source.support", "enabled");
        p.put("producer.linger.ms", "0");
        p.put("producer.acks", "all");
        p.put("offset.flush.interval.ms", "1000");
        // Failover within seconds: the broker's smallest session timeout, and lost tasks reassigned at once.
        p.put("session.timeout.ms", "6000");
        p.put("heartbeat.interval.ms", "1000");
        p.put("scheduled.rebalance.max.delay.ms", "0");
        p.putAll(builder.properties);
        this.properties = p;
    }

    /**
     * @param baseDir directory for the worker's configuration and log
     * @param bootstrapServers the Kafka cluster holding the Connect cluster's topics
     */
    public static Builder builder(Path baseDir, String bootstrapServers) {
        return new Builder(baseDir, bootstrapServers);
    }

    /** Starts the worker and waits until its REST API lists connectors (it has joined its group). */
    public KafkaConnectWorker start() {
        if (process != null && process.isAlive()) {
            return this;
        }
        if (pluginPath != null && plugins(pluginPath).isEmpty()) {
            throw new IllegalStateException("no connector plugin in " + pluginPath + ": unpack one there first, e.g. the"
                    + " 'plugin' tar.gz of io.debezium:debezium-connector-mariadb (see docs/kafka-connect.md)");
        }
        Path config = baseDir.resolve("worker.properties");
        try {
            Files.createDirectories(baseDir);
            StringBuilder text = new StringBuilder();
            properties.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
            Files.writeString(config, text.toString(), StandardCharsets.UTF_8);
            Files.writeString(baseDir.resolve("log4j2.properties"), log4jConfig(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("could not prepare the Connect worker in " + baseDir, e);
        }
        JavaProcess.Builder jvm = JavaProcess.builder("kafka-connect:" + restPort)
                .mainClass("org.apache.kafka.connect.cli.ConnectDistributed", KafkaBroker.brokerClasspath())
                .jvmArg("-Xmx" + heap)
                .jvmArg("-Xms128m")
                .jvmArg("-XX:+UseG1GC")
                .jvmArg("-XX:MaxGCPauseMillis=20")
                .jvmArg("-Djava.awt.headless=true")
                .jvmArg("-Dlog4j2.configurationFile=" + baseDir.resolve("log4j2.properties"))
                .arg(config.toString())
                .workDir(baseDir)
                .logFile(baseDir.resolve("worker.log"));
        env.forEach(jvm::env);
        process = jvm.start();
        process.awaitCondition("the REST API at " + restUrl(), START_TIMEOUT, () -> get("/connectors").status() == 200);
        return this;
    }

    /** Graceful stop (SIGTERM): the worker stops its tasks, commits their offsets and leaves its group. */
    public void stop() {
        if (process != null) {
            process.stop(STOP_GRACE);
        }
    }

    /** SIGKILL: no offset commit, no leaving the group; the cluster notices after the session timeout. */
    public void kill() {
        if (process != null) {
            process.kill();
        }
    }

    public boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** Stops the worker and deletes its directory. */
    @Override
    public void close() {
        stop();
        DataDirectories.delete(baseDir);
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String restUrl() {
        return "http://127.0.0.1:" + restPort;
    }

    /** How the Connect REST API names this worker in connector and task status ({@code worker_id}). */
    public String workerId() {
        return "127.0.0.1:" + restPort;
    }

    public Path logFile() {
        return baseDir.resolve("worker.log");
    }

    /** The last lines of the worker's log, for assertion messages. */
    public String logTail(int lines) {
        return process == null ? "" : process.tail(lines);
    }

    /** {@code GET} on the REST API; status 0 when the worker does not answer. */
    public Response get(String path) {
        return send(HttpRequest.newBuilder(URI.create(restUrl() + path)).GET());
    }

    /** {@code POST} of a JSON body, e.g. a connector's configuration to {@code /connectors}. */
    public Response post(String path, String json) {
        return send(HttpRequest.newBuilder(URI.create(restUrl() + path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8)));
    }

    /** {@code DELETE}, e.g. {@code /connectors/<name>}. */
    public Response delete(String path) {
        return send(HttpRequest.newBuilder(URI.create(restUrl() + path)).DELETE());
    }

    private static Response send(HttpRequest.Builder request) {
        try {
            HttpResponse<String> response = HTTP.send(request.timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Response(response.statusCode(), response.body());
        } catch (IOException e) {
            return new Response(0, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static String log4jConfig() {
        return String.join("\n",
                "rootLogger.level=WARN",
                "rootLogger.appenderRef.stdout.ref=STDOUT",
                "appender.stdout.type=Console",
                "appender.stdout.name=STDOUT",
                "appender.stdout.layout.type=PatternLayout",
                "appender.stdout.layout.pattern=[%d] %p %m (%c)%n",
                // joining the group, assignments, task starts and stops: what a failover looks like
                "logger.herder.name=org.apache.kafka.connect.runtime.distributed.DistributedHerder",
                "logger.herder.level=INFO",
                "logger.worker.name=org.apache.kafka.connect.runtime.Worker",
                "logger.worker.level=INFO",
                "logger.debezium.name=io.debezium",
                "logger.debezium.level=INFO",
                "logger.binlog.name=io.debezium.connector.binlog.BinlogStreamingChangeEventSource",
                "logger.binlog.level=WARN",
                "");
    }

    @Override
    public String toString() {
        return "Kafka Connect worker " + workerId() + " (group " + properties.get("group.id") + ")";
    }

    /** An answer of the REST API. */
    public record Response(int status, String body) {
    }

    /** Configures a {@link KafkaConnectWorker}. */
    public static final class Builder {
        private final Path baseDir;
        private final String bootstrapServers;
        private String groupId = "connect-cluster";
        private Path pluginPath;
        private int restPort;
        private String heap = "384m";
        private final Map<String, String> properties = new LinkedHashMap<>();
        private final Map<String, String> env = new LinkedHashMap<>();

        private Builder(Path baseDir, String bootstrapServers) {
            this.baseDir = Objects.requireNonNull(baseDir, "baseDir");
            this.bootstrapServers = Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        }

        /** The Connect cluster: workers with the same group id share their connectors (default {@code connect-cluster}). */
        public Builder groupId(String groupId) {
            this.groupId = Objects.requireNonNull(groupId);
            return this;
        }

        /** The directory the connector plugins are unpacked in ({@code plugin.path}). */
        public Builder pluginPath(Path pluginPath) {
            this.pluginPath = pluginPath;
            return this;
        }

        /** A fixed REST port; by default a free one is chosen. */
        public Builder restPort(int restPort) {
            this.restPort = restPort;
            return this;
        }

        /** Maximum heap of the worker JVM (default 384m). */
        public Builder heap(String heap) {
            this.heap = Objects.requireNonNull(heap);
            return this;
        }

        /** A worker setting; overrides the defaults listed in the class comment. */
        public Builder workerProperty(String key, String value) {
            properties.put(key, value);
            return this;
        }

        /** An environment variable of the worker process (read by the {@code env} config provider). */
        public Builder env(String key, String value) {
            env.put(key, value);
            return this;
        }

        public KafkaConnectWorker build() {
            return new KafkaConnectWorker(this);
        }
    }

    /** The plugin directories under {@code pluginPath} (each one a plugin with its own class loader). */
    private static List<Path> plugins(Path pluginPath) {
        try (var dirs = Files.list(pluginPath)) {
            return dirs.filter(Files::isDirectory).toList();
        } catch (IOException e) {
            return List.of();
        }
    }
}
