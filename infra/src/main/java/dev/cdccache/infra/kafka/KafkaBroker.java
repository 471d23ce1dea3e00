package dev.cdccache.infra.kafka;

import dev.cdccache.infra.DataDirectories;
import dev.cdccache.infra.process.FreePorts;
import dev.cdccache.infra.process.JavaProcess;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * A real Kafka broker in KRaft combined mode (broker and controller in one process), run in a JVM of
 * its own from the broker jars on Maven Central. Its storage is formatted by Kafka's own
 * {@code StorageTool}. Restarting keeps the port and the log directory.
 */
public final class KafkaBroker implements AutoCloseable {

    private static final String CLASSPATH_RESOURCE = "/dev/cdccache/infra/kafka-broker.classpath";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    private final Path baseDir;
    private final int port;
    private final int controllerPort;
    private final String heap;
    private JavaProcess process;

    private KafkaBroker(Builder builder) {
        this.baseDir = builder.baseDir.toAbsolutePath();
        this.port = builder.port != 0 ? builder.port : FreePorts.next();
        // A fixed client port means a kept data directory across runs: keep the controller port stable too.
        this.controllerPort = builder.port != 0 ? builder.port + 1 : FreePorts.next();
        this.heap = builder.heap;
    }

    public static Builder builder(Path baseDir) {
        return new Builder(baseDir);
    }

    /** Formats the storage on first use, starts the broker and waits until it serves metadata. */
    public synchronized KafkaBroker start() {
        if (process != null && process.isAlive()) {
            return this;
        }
        Path config = baseDir.resolve("server.properties");
        try {
            Files.createDirectories(baseDir);
            Files.writeString(config, serverProperties(), StandardCharsets.UTF_8);
            Files.writeString(baseDir.resolve("log4j2.properties"), log4jConfig(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("could not prepare Kafka in " + baseDir, e);
        }
        if (!Files.exists(baseDir.resolve("logs").resolve("meta.properties"))) {
            format(config);
        }
        process = jvm("kafka-broker:" + port, "kafka.Kafka", List.of(config.toString()),
                baseDir.resolve("broker.log"));
        process.awaitCondition("metadata from " + bootstrapServers(), START_TIMEOUT, this::answers);
        return this;
    }

    /** Graceful shutdown (SIGTERM): the broker closes its logs cleanly. */
    public synchronized void stop() {
        if (process != null) {
            process.stop(Duration.ofSeconds(30));
        }
    }

    /** SIGKILL. */
    public synchronized void kill() {
        if (process != null) {
            process.kill();
        }
    }

    /** Stops gracefully and starts again on the same port with the same data. */
    public synchronized void restart() {
        stop();
        start();
    }

    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** Stops the broker and deletes its data. */
    @Override
    public synchronized void close() {
        stop();
        DataDirectories.delete(baseDir);
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    /** Creates a topic (replication factor 1) unless it exists. */
    public void createTopic(String name, int partitions) {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException("could not create topic " + name + ": " + e.getCause(), e);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("creating topic " + name + " timed out", e);
        }
    }

    /** An admin client for this broker; the caller closes it. */
    public Admin admin() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10000);
        return Admin.create(props);
    }

    private boolean answers() {
        try (Admin admin = admin()) {
            admin.describeCluster().nodes().get(3, TimeUnit.SECONDS);
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    private void format(Path config) {
        String clusterId = Uuid.randomUuid().toString();
        JavaProcess tool = jvm("kafka-storage-format", "kafka.tools.StorageTool",
                List.of("format", "-t", clusterId, "-c", config.toString()), baseDir.resolve("format.log"));
        int exit = tool.waitFor(Duration.ofSeconds(60));
        if (exit != 0) {
            throw new IllegalStateException("kafka-storage format failed with exit code " + exit + ":\n" + tool.tail(30));
        }
    }

    private JavaProcess jvm(String name, String mainClass, List<String> args, Path log) {
        return JavaProcess.builder(name)
                .mainClass(mainClass, brokerClasspath())
                .jvmArg("-Xmx" + heap)
                .jvmArg("-Xms128m")
                .jvmArg("-XX:+UseG1GC")
                .jvmArg("-Djava.awt.headless=true")
                .jvmArg("-Dlog4j2.configurationFile=" + baseDir.resolve("log4j2.properties"))
                .jvmArg("-Dkafka.logs.dir=" + baseDir)
                .args(args)
                .workDir(baseDir)
                .logFile(log)
                .start();
    }

    /** The broker jars resolved by the build (see infra/pom.xml, build-classpath). */
    static List<Path> brokerClasspath() {
        try (InputStream in = KafkaBroker.class.getResourceAsStream(CLASSPATH_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(CLASSPATH_RESOURCE + " is missing: build the infra module with Maven "
                        + "(./mvnw -pl infra install) so the broker classpath is resolved.");
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            List<Path> jars = Arrays.stream(text.split(java.io.File.pathSeparator)).map(Path::of).toList();
            for (Path jar : jars) {
                if (!Files.exists(jar)) {
                    throw new IllegalStateException("Kafka broker jar " + jar + " is missing: rebuild the infra module.");
                }
            }
            return jars;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String serverProperties() {
        Map<String, String> props = new java.util.LinkedHashMap<>();
        props.put("process.roles", "broker,controller");
        props.put("node.id", "1");
        props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        props.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        props.put("controller.listener.names", "CONTROLLER");
        props.put("inter.broker.listener.name", "PLAINTEXT");
        props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        props.put("log.dirs", baseDir.resolve("logs").toString());
        props.put("num.partitions", "1");
        props.put("auto.create.topics.enable", "true");
        props.put("offsets.topic.replication.factor", "1");
        props.put("offsets.topic.num.partitions", "5");
        props.put("transaction.state.log.replication.factor", "1");
        props.put("transaction.state.log.min.isr", "1");
        props.put("share.coordinator.state.topic.replication.factor", "1");
        props.put("share.coordinator.state.topic.min.isr", "1");
        props.put("group.initial.rebalance.delay.ms", "0");
        props.put("message.max.bytes", "10485760");
        StringBuilder text = new StringBuilder();
        props.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        return text.toString();
    }

    private static String log4jConfig() {
        return String.join("\n",
                "rootLogger.level=WARN",
                "rootLogger.appenderRef.stdout.ref=STDOUT",
                "appender.stdout.type=Console",
                "appender.stdout.name=STDOUT",
                "appender.stdout.layout.type=PatternLayout",
                "appender.stdout.layout.pattern=[%d] %p %m (%c)%n",
                "logger.kafka.name=kafka.server.KafkaRaftServer",
                "logger.kafka.level=INFO",
                "logger.server.name=kafka.server.BrokerServer",
                "logger.server.level=INFO",
                "");
    }

    @Override
    public String toString() {
        return "Kafka " + bootstrapServers();
    }

    /** Configures a {@link KafkaBroker}. */
    public static final class Builder {
        private final Path baseDir;
        private int port;
        private String heap = "768m";

        private Builder(Path baseDir) {
            this.baseDir = Objects.requireNonNull(baseDir, "baseDir");
        }

        /** A fixed client port (the KRaft controller then listens on port + 1); by default free ports are chosen. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** Maximum heap of the broker JVM, e.g. "768m". */
        public Builder heap(String heap) {
            this.heap = heap;
            return this;
        }

        public KafkaBroker build() {
            return new KafkaBroker(this);
        }
    }
}
