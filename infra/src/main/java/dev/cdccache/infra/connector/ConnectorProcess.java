package dev.cdccache.infra.connector;

import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.kafka.KafkaBroker;
import dev.cdccache.infra.process.FreePorts;
import dev.cdccache.infra.process.JavaProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The CDC connector (its {@code -exec.jar}) running as a separate process against a
 * {@link LocalStack}: the way tests of other modules, and crash tests of the connector itself, run it.
 *
 * <pre>{@code
 * ConnectorProcess connector = ConnectorProcess.builder(Path.of("target/cdc-connector-exec.jar"), LocalStack.shared())
 *         .tables(List.of("coupon_db.coupon"))
 *         .topicPrefix("cdc")
 *         .name("coupon-it")
 *         .build()
 *         .start();          // returns when /actuator/health is UP (the engine streams)
 * ...
 * connector.kill();          // SIGKILL: no graceful shutdown
 * connector.restart();       // same port, same settings; resumes from the offsets stored in Kafka
 * connector.stop();
 * }</pre>
 *
 * <p>The connector connects as the stack's connector user; the password travels in the environment,
 * not on the command line. Every child JVM is guarded by a watchdog that kills it if the test JVM dies.
 * Not thread-safe: drive it from the test thread.
 */
public final class ConnectorProcess implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration STOP_GRACE = Duration.ofSeconds(30);

    private final Builder spec;
    private final int port;
    private final Path logFile;
    private JavaProcess process;

    private ConnectorProcess(Builder spec) {
        this.spec = spec;
        this.port = FreePorts.next();
        this.logFile = spec.logFile != null ? spec.logFile : Path.of("target", "connector-" + spec.name + ".log");
    }

    /**
     * @param execJar the connector's runnable jar ({@code cdc-connector-<version>-exec.jar})
     * @param stack the MariaDB and Kafka to connect to
     */
    public static Builder builder(Path execJar, LocalStack stack) {
        return new Builder(execJar, stack);
    }

    /** Starts the process and waits until its health is UP (database and Kafka reachable, binlog streaming). */
    public ConnectorProcess start() {
        if (process != null && process.isAlive()) {
            return this;
        }
        launch();
        awaitHealthy(START_TIMEOUT);
        return this;
    }

    /**
     * Starts the process without waiting for it to become healthy: for a connector that is expected to refuse to
     * start ({@link #awaitExit(Duration)}).
     */
    public ConnectorProcess launch() {
        if (!Files.isRegularFile(spec.execJar)) {
            throw new IllegalStateException("connector jar " + spec.execJar.toAbsolutePath()
                    + " not found: build it with ./mvnw -pl cdc-connector package -DskipTests (or copy it with"
                    + " maven-dependency-plugin, see docs/connector.md)");
        }
        JavaProcess.Builder builder = JavaProcess.builder("cdc-connector-" + spec.name)
                .jar(spec.execJar)
                .logFile(logFile)
                .env("CDC_CONNECTOR_DATABASE_PASSWORD", spec.stack.mariaDb().connectorPassword());
        spec.env.forEach(builder::env);
        spec.jvmArgs.forEach(builder::jvmArg);
        arguments().forEach(builder::arg);
        process = builder.start();
        return this;
    }

    /** Waits until the process exits and returns its exit code (1: start-up refused, 3: the engine stopped). */
    public int awaitExit(Duration timeout) {
        return process.waitFor(timeout);
    }

    /** Waits until {@code /actuator/health} answers 200 (status UP). */
    public void awaitHealthy(Duration timeout) {
        process.awaitHttpOk(healthUrl(), timeout);
    }

    /** Graceful stop (SIGTERM): the connector closes the engine and stores its offsets. */
    public void stop() {
        if (process != null) {
            process.stop(STOP_GRACE);
        }
    }

    /** SIGKILL: no shutdown hooks, offsets only as far as they were already stored. */
    public void kill() {
        if (process != null) {
            process.kill();
        }
    }

    /** Stops the process if it still runs (gracefully) and starts it again with the same settings and port. */
    public ConnectorProcess restart() {
        stop();
        process = null;
        return start();
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    /** The process's combined stdout/stderr (appended across restarts). */
    public Path logFile() {
        return logFile;
    }

    /** The last lines of the log, for assertion messages. */
    public String logTail(int lines) {
        return process == null ? "" : process.tail(lines);
    }

    /** The HTTP port of the actuator. */
    public int port() {
        return port;
    }

    /** {@code http://127.0.0.1:<port>/actuator/health}. */
    public String healthUrl() {
        return "http://127.0.0.1:" + port + "/actuator/health";
    }

    /** {@code http://127.0.0.1:<port>/actuator/prometheus}. */
    public String prometheusUrl() {
        return "http://127.0.0.1:" + port + "/actuator/prometheus";
    }

    /** The topic a table's changes go to. */
    public String topic(String databaseDotTable) {
        return spec.topicPrefix + "." + databaseDotTable;
    }

    @Override
    public void close() {
        stop();
    }

    private List<String> arguments() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("server.port", Integer.toString(port));
        settings.put("cdc.connector.name", spec.name);
        settings.put("cdc.connector.database.flavor", "mariadb");
        settings.put("cdc.connector.database.host", spec.stack.mariaDb().host());
        settings.put("cdc.connector.database.port", Integer.toString(spec.stack.mariaDb().port()));
        settings.put("cdc.connector.database.user", spec.stack.mariaDb().connectorUser());
        settings.put("cdc.connector.kafka.bootstrap-servers",
                (spec.kafka != null ? spec.kafka : spec.stack.kafka()).bootstrapServers());
        settings.put("cdc.connector.topic-prefix", spec.topicPrefix);
        for (int i = 0; i < spec.tables.size(); i++) {
            settings.put("cdc.connector.tables[" + i + "]", spec.tables.get(i));
        }
        settings.putAll(spec.properties);
        List<String> args = new ArrayList<>();
        settings.forEach((k, v) -> args.add("--" + k + "=" + v));
        return args;
    }

    /** Configures a {@link ConnectorProcess}. */
    public static final class Builder {
        private final Path execJar;
        private final LocalStack stack;
        private List<String> tables = List.of();
        private String topicPrefix = "cdc";
        private String name = "cdc-connector";
        private final Map<String, String> properties = new LinkedHashMap<>();
        private final Map<String, String> env = new LinkedHashMap<>();
        private KafkaBroker kafka;
        private final List<String> jvmArgs = new ArrayList<>(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        private Path logFile;

        private Builder(Path execJar, LocalStack stack) {
            this.execJar = Objects.requireNonNull(execJar, "execJar");
            this.stack = Objects.requireNonNull(stack, "stack");
        }

        /** Tables to capture, each {@code database.table} (required). */
        public Builder tables(List<String> tables) {
            this.tables = List.copyOf(tables);
            return this;
        }

        /** Topic prefix (default {@code cdc}). */
        public Builder topicPrefix(String topicPrefix) {
            this.topicPrefix = Objects.requireNonNull(topicPrefix);
            return this;
        }

        /** Connector name; its offsets and schema history topics derive from it (default {@code cdc-connector}). */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name);
            return this;
        }

        /** Any Spring property, e.g. {@code cdc.connector.topic-partitions}; overrides the defaults above. */
        public Builder property(String key, String value) {
            properties.put(key, value);
            return this;
        }

        /**
         * An environment variable of the connector process: the way secrets travel (Spring binds
         * {@code CDC_CONNECTOR_KAFKA_SECURITY_SASL_PASSWORD} to {@code cdc.connector.kafka.security.sasl.password}),
         * so they appear neither on the command line nor in {@code sun.java.command}.
         */
        public Builder env(String key, String value) {
            env.put(key, value);
            return this;
        }

        /** Another broker than the stack's (e.g. one requiring SCRAM); its security settings are the caller's. */
        public Builder kafka(KafkaBroker kafka) {
            this.kafka = kafka;
            return this;
        }

        /** An extra JVM option for the connector process. */
        public Builder jvmArg(String arg) {
            jvmArgs.add(arg);
            return this;
        }

        /** Log file (default {@code target/connector-<name>.log}). */
        public Builder logFile(Path logFile) {
            this.logFile = logFile;
            return this;
        }

        public ConnectorProcess build() {
            if (tables.isEmpty()) {
                throw new IllegalStateException("tables(...) is required: the connector captures at least one table");
            }
            return new ConnectorProcess(this);
        }
    }
}
