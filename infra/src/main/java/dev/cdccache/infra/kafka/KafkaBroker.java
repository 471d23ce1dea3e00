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
 *
 * <p>With {@link Builder#scram} the client listener requires SASL/SCRAM authentication (users are created at
 * format time, {@code kafka-storage format --add-scram}); with {@link Builder#tls} it is encrypted with a
 * self-signed certificate made by the JDK's {@code keytool}, whose trust store {@link #truststore()} clients use.
 * The broker talks to itself over an internal plain-text listener on another port, which clients are not told of.
 */
public final class KafkaBroker implements AutoCloseable {

    private static final String CLASSPATH_RESOURCE = "/dev/cdccache/infra/kafka-broker.classpath";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    private final Path baseDir;
    private final int port;
    private final int controllerPort;
    private final String heap;
    private final Scram scram;
    private final boolean tls;
    private final int internalPort;
    private final String storePassword = Uuid.randomUuid().toString();
    private final int nodeId;
    private final String quorumVoters;
    private final String clusterId;
    private final int internalReplication;
    private final Map<String, String> extraProperties;
    private JavaProcess process;

    private KafkaBroker(Builder builder) {
        this.baseDir = builder.baseDir.toAbsolutePath();
        this.port = builder.port != 0 ? builder.port : FreePorts.next();
        // A fixed client port means a kept data directory across runs: keep the controller port stable too.
        this.controllerPort = builder.controllerPort != 0 ? builder.controllerPort
                : builder.port != 0 ? builder.port + 1 : FreePorts.next();
        this.heap = builder.heap;
        this.scram = builder.scram;
        this.tls = builder.tls;
        boolean secured = scram != null || tls;
        this.internalPort = !secured ? 0 : builder.port != 0 ? builder.port + 2 : FreePorts.next();
        this.nodeId = builder.nodeId;
        this.quorumVoters = builder.quorumVoters != null ? builder.quorumVoters : nodeId + "@127.0.0.1:" + controllerPort;
        this.clusterId = builder.clusterId;
        this.internalReplication = builder.internalReplication;
        this.extraProperties = Map.copyOf(builder.extraProperties);
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
        if (tls && !Files.exists(keystore())) {
            createCertificates();
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

    /**
     * SIGSTOP: the broker stops answering without closing a connection, like a stalled or partitioned node
     * (requests to it hang until the client's timeout; it stays a replica until the controller fences it).
     */
    public synchronized void pause() {
        signal("STOP");
    }

    /** SIGCONT after {@link #pause()}. */
    public synchronized void resume() {
        signal("CONT");
    }

    private void signal(String name) {
        if (process == null || !process.isAlive()) {
            throw new IllegalStateException(this + " is not running");
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** The broker's node id (1 for a single broker). */
    public int nodeId() {
        return nodeId;
    }

    /** The KRaft controller listener port. */
    public int controllerPort() {
        return controllerPort;
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

    /** The protocol of the client listener: PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL. */
    public String securityProtocol() {
        return scram != null ? (tls ? "SASL_SSL" : "SASL_PLAINTEXT") : (tls ? "SSL" : "PLAINTEXT");
    }

    /** The SCRAM mechanism of the client listener, e.g. {@code SCRAM-SHA-512}; {@code null} without SCRAM. */
    public String saslMechanism() {
        return scram == null ? null : scram.mechanism;
    }

    /** The PKCS12 trust store holding the broker's self-signed certificate; {@code null} without TLS. */
    public Path truststore() {
        return tls ? baseDir.resolve("truststore.p12") : null;
    }

    /** Password of {@link #truststore()}. */
    public String truststorePassword() {
        return tls ? storePassword : null;
    }

    /**
     * Kafka client properties (beyond {@code bootstrap.servers}) for a client of this broker authenticating as
     * {@code user}: what a test passes to the component it configures. Empty for a plain-text broker.
     */
    public Map<String, String> clientProperties(String user, String password) {
        Map<String, String> props = new java.util.LinkedHashMap<>();
        if (scram == null && !tls) {
            return props;
        }
        props.put("security.protocol", securityProtocol());
        if (scram != null) {
            props.put("sasl.mechanism", scram.mechanism);
            props.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                    + user + "\" password=\"" + password + "\";");
        }
        if (tls) {
            props.put("ssl.truststore.location", truststore().toString());
            props.put("ssl.truststore.password", storePassword);
            props.put("ssl.truststore.type", "PKCS12");
        }
        return props;
    }

    /** {@link #clientProperties(String, String)} of the first SCRAM user (the one {@link #admin()} uses). */
    public Map<String, String> adminClientProperties() {
        return scram == null ? clientProperties(null, null)
                : clientProperties(scram.users.keySet().iterator().next(), scram.users.values().iterator().next());
    }

    /** An admin client for this broker (on a SCRAM broker: as its first user); the caller closes it. */
    public Admin admin() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.putAll(adminClientProperties());
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
        String clusterId = this.clusterId != null ? this.clusterId : Uuid.randomUuid().toString();
        List<String> args = new java.util.ArrayList<>(List.of("format", "-t", clusterId, "-c", config.toString()));
        if (scram != null) {
            // KRaft keeps SCRAM credentials in the metadata log: users that must exist before the first start are
            // written at format time.
            scram.users.forEach((user, password) -> {
                args.add("--add-scram");
                args.add(scram.mechanism + "=[name=" + user + ",password=" + password + "]");
            });
        }
        JavaProcess tool = jvm("kafka-storage-format", "kafka.tools.StorageTool", args, baseDir.resolve("format.log"));
        int exit = tool.waitFor(Duration.ofSeconds(60));
        if (exit != 0) {
            throw new IllegalStateException("kafka-storage format failed with exit code " + exit + ":\n" + tool.tail(30));
        }
    }

    private Path keystore() {
        return baseDir.resolve("broker-keystore.p12");
    }

    /** A self-signed certificate for 127.0.0.1/localhost and a trust store holding it, made with the JDK's keytool. */
    private void createCertificates() {
        Path certificate = baseDir.resolve("broker.crt");
        keytool("-genkeypair", "-alias", "broker", "-keyalg", "RSA", "-keysize", "2048", "-validity", "3650",
                "-dname", "CN=localhost", "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-keystore", keystore().toString(),
                "-storetype", "PKCS12", "-storepass", storePassword, "-keypass", storePassword);
        keytool("-exportcert", "-rfc", "-alias", "broker", "-keystore", keystore().toString(), "-storetype", "PKCS12",
                "-storepass", storePassword, "-file", certificate.toString());
        keytool("-importcert", "-noprompt", "-alias", "broker", "-file", certificate.toString(),
                "-keystore", truststore().toString(), "-storetype", "PKCS12", "-storepass", storePassword);
    }

    private void keytool(String... args) {
        List<String> command = new java.util.ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        try {
            Process keytool = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(baseDir.resolve("keytool.log").toFile()).start();
            if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
                keytool.destroyForcibly();
                throw new IllegalStateException("keytool " + args[0] + " failed: "
                        + Files.readString(baseDir.resolve("keytool.log")));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not run keytool", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
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
        props.put("node.id", Integer.toString(nodeId));
        props.put("controller.quorum.voters", quorumVoters);
        props.put("controller.listener.names", "CONTROLLER");
        if (scram == null && !tls) {
            props.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
            props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
            props.put("inter.broker.listener.name", "PLAINTEXT");
            props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        } else {
            String protocol = securityProtocol();
            String listener = protocol.toLowerCase(java.util.Locale.ROOT);
            props.put("listeners", protocol + "://127.0.0.1:" + port + ",INTERNAL://127.0.0.1:" + internalPort
                    + ",CONTROLLER://127.0.0.1:" + controllerPort);
            props.put("advertised.listeners", protocol + "://127.0.0.1:" + port + ",INTERNAL://127.0.0.1:" + internalPort);
            props.put("inter.broker.listener.name", "INTERNAL");
            props.put("listener.security.protocol.map", protocol + ":" + protocol + ",INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT");
            if (scram != null) {
                props.put("sasl.enabled.mechanisms", scram.mechanism);
                props.put("listener.name." + listener + ".sasl.enabled.mechanisms", scram.mechanism);
                props.put("listener.name." + listener + "." + scram.mechanism.toLowerCase(java.util.Locale.ROOT)
                        + ".sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required;");
            }
            if (tls) {
                props.put("ssl.keystore.location", keystore().toString());
                props.put("ssl.keystore.password", storePassword);
                props.put("ssl.key.password", storePassword);
                props.put("ssl.keystore.type", "PKCS12");
            }
        }
        props.put("log.dirs", baseDir.resolve("logs").toString());
        props.put("num.partitions", "1");
        props.put("auto.create.topics.enable", "true");
        String replication = Integer.toString(internalReplication);
        props.put("offsets.topic.replication.factor", replication);
        props.put("offsets.topic.num.partitions", "5");
        props.put("transaction.state.log.replication.factor", replication);
        props.put("transaction.state.log.min.isr", "1");
        props.put("share.coordinator.state.topic.replication.factor", replication);
        props.put("share.coordinator.state.topic.min.isr", "1");
        props.put("default.replication.factor", replication);
        props.put("group.initial.rebalance.delay.ms", "0");
        props.put("message.max.bytes", "10485760");
        props.putAll(extraProperties);
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

    /** SCRAM users of the client listener, in order (the first is the one {@link #admin()} uses). */
    private record Scram(String mechanism, Map<String, String> users) {
    }

    /** Configures a {@link KafkaBroker}. */
    public static final class Builder {
        private final Path baseDir;
        private int port;
        private String heap = "768m";
        private Scram scram;
        private boolean tls;
        private int nodeId = 1;
        private int controllerPort;
        private String quorumVoters;
        private String clusterId;
        private int internalReplication = 1;
        private final Map<String, String> extraProperties = new java.util.LinkedHashMap<>();

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

        /**
         * Makes the client listener require SASL with {@code mechanism} ({@code SCRAM-SHA-256} or
         * {@code SCRAM-SHA-512}) and creates {@code user} with {@code password}; call again for more users (same
         * mechanism). The first user is the one {@link KafkaBroker#admin()} uses.
         */
        public Builder scram(String mechanism, String user, String password) {
            if (!mechanism.equals("SCRAM-SHA-256") && !mechanism.equals("SCRAM-SHA-512")) {
                throw new IllegalArgumentException("SCRAM-SHA-256 or SCRAM-SHA-512, not " + mechanism);
            }
            if (scram != null && !scram.mechanism.equals(mechanism)) {
                throw new IllegalArgumentException("one mechanism per broker: " + scram.mechanism + " was set");
            }
            if (!user.matches("[A-Za-z0-9_-]+") || password.contains(",") || password.contains("]")
                    || password.contains("\"")) {
                throw new IllegalArgumentException("user names are letters, digits, '_', '-'; passwords have no ',' ']' '\"'");
            }
            if (scram == null) {
                scram = new Scram(mechanism, new java.util.LinkedHashMap<>());
            }
            scram.users.put(user, password);
            return this;
        }

        /** Encrypts the client listener with TLS (a self-signed certificate; clients trust {@link KafkaBroker#truststore()}). */
        public Builder tls(boolean tls) {
            this.tls = tls;
            return this;
        }

        /**
         * Makes this broker node {@code nodeId} of a multi-node KRaft cluster (see {@link KafkaCluster}): every node
         * is broker and controller, {@code quorumVoters} lists all controllers, and all nodes are formatted with
         * the same {@code clusterId}.
         */
        Builder clusterMember(int nodeId, int controllerPort, String quorumVoters, String clusterId, int internalReplication) {
            this.nodeId = nodeId;
            this.controllerPort = controllerPort;
            this.quorumVoters = quorumVoters;
            this.clusterId = clusterId;
            this.internalReplication = internalReplication;
            return this;
        }

        /** A further {@code server.properties} entry (overrides the defaults). */
        public Builder serverProperty(String key, String value) {
            this.extraProperties.put(key, value);
            return this;
        }

        public KafkaBroker build() {
            return new KafkaBroker(this);
        }
    }
}
