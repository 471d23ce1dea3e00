package dev.cdccache.connector.check;

import dev.cdccache.connector.config.ConnectorProperties;
import dev.cdccache.connector.config.ConnectorProperties.Flavor;
import dev.cdccache.connector.config.DebeziumSettings;
import dev.cdccache.connector.continuity.ContinuityCheck;
import dev.cdccache.connector.continuity.OffsetsOrigin;
import dev.cdccache.connector.continuity.StoredOffsets;
import dev.cdccache.connector.kafka.KafkaClients;
import dev.cdccache.connector.startup.DatabaseCheck;
import dev.cdccache.connector.startup.DebeziumOverrideCheck;
import dev.cdccache.connector.startup.KafkaClusterCheck;
import dev.cdccache.connector.startup.KeyColumnCheck;
import dev.cdccache.connector.startup.ReplicaCheck;
import dev.cdccache.connector.startup.ReplicationFilters;
import dev.cdccache.connector.startup.StartupCheckException;
import dev.cdccache.connector.startup.TopicProvisioner;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code cdc-connector check --config my.yml}: verifies a connector's settings against the real database and Kafka
 * cluster without starting the stream, prints what to fix, and exits 0 when nothing is wrong, 1 on any problem, 2 on
 * a usage error.
 *
 * <p>It runs the connector's own start-up checks (binlog settings, grants, captured and heartbeat tables, primary
 * keys, key columns, Kafka reachable, compacted change topics) and adds what those leave to the operator: the server's flavor
 * against the configured one, {@code server_id}, binlog retention, GTIDs, and the Kafka principal's permissions on
 * every topic the connector uses. Unlike start-up it goes on after a problem, so that one run lists all of them.
 * Last, when the connector runs, one heartbeat is sent through the whole pipeline ({@link HeartbeatProbe}).
 *
 * <p>Other arguments ({@code --cdc.connector.database.password=...}) and the environment override the file, as for
 * the connector itself.
 */
public final class ConnectorCheckCommand {

    /** The first argument that selects this command. */
    public static final String COMMAND = "check";

    private static final Duration KAFKA_TIMEOUT = Duration.ofSeconds(15);
    /** How long the probe waits for its heartbeat by default ({@code --probe-timeout} changes it). */
    static final Duration DEFAULT_PROBE_TIMEOUT = Duration.ofSeconds(30);

    private final ConnectorProperties properties;
    private final DebeziumSettings settings;
    private final CheckReport report;
    /** Whether the offsets topic exists (found by the Kafka checks). */
    private boolean offsetsStored;
    private final boolean probe;
    private final Duration probeTimeout;

    private ConnectorCheckCommand(ConnectorProperties properties, CheckReport report, boolean probe, Duration probeTimeout) {
        this.properties = properties;
        this.settings = new DebeziumSettings(properties);
        this.report = report;
        this.probe = probe;
        this.probeTimeout = probeTimeout;
    }

    /** Whether {@code args} ask for this command. */
    public static boolean requestedBy(String[] args) {
        return args.length > 0 && COMMAND.equals(args[0]);
    }

    /** Runs the command; returns the exit code. */
    public static int run(String[] args, PrintStream out) {
        Path config = null;
        boolean probe = true;
        Duration probeTimeout = DEFAULT_PROBE_TIMEOUT;
        List<String> springArgs = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            if (args[i].equals("--config") && i + 1 < args.length) {
                config = Path.of(args[++i]);
            } else if (args[i].startsWith("--config=")) {
                config = Path.of(args[i].substring("--config=".length()));
            } else if (args[i].equals("--no-probe")) {
                probe = false;
            } else if (args[i].equals("--probe-timeout") || args[i].startsWith("--probe-timeout=")) {
                String value = args[i].contains("=") ? args[i].substring(args[i].indexOf('=') + 1)
                        : i + 1 < args.length ? args[++i] : "";
                probeTimeout = probeTimeout(value);
                if (probeTimeout == null) {
                    return usage(out, "--probe-timeout needs a positive duration such as 30s, 2m or 500ms, was '"
                            + value + "'");
                }
            } else if (args[i].equals("--help") || args[i].equals("-h")) {
                return usage(out, null);
            } else {
                springArgs.add(args[i]);
            }
        }
        if (config == null) {
            return usage(out, "--config <file> is required");
        }
        if (!Files.isRegularFile(config)) {
            return usage(out, "no such file: " + config.toAbsolutePath());
        }
        springArgs.add("--spring.config.additional-location=file:" + config.toAbsolutePath());

        CheckReport report = new CheckReport(out);
        out.println("Checking the connector configured in " + config + " (nothing is started or changed; the probe at"
                + " the end updates the connector's heartbeat row)");
        SpringApplication application = new SpringApplication(CheckContext.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.setBannerMode(Banner.Mode.OFF);
        application.setLogStartupInfo(false);
        application.setDefaultProperties(Map.of("logging.level.root", "WARN", "logging.level.org.apache.kafka", "ERROR",
                "logging.level.org.springframework.boot.diagnostics", "OFF"));
        ConnectorProperties properties;
        try (ConfigurableApplicationContext context = application.run(springArgs.toArray(String[]::new))) {
            properties = context.getBean(ConnectorProperties.class);
        } catch (RuntimeException e) {
            report.fail("settings", "the settings do not bind: " + rootMessage(e),
                    "fix the named setting under cdc.connector (docs/connector.md lists them all)");
            return report.finish();
        }
        new ConnectorCheckCommand(properties, report, probe, probeTimeout).runChecks();
        return report.finish();
    }

    private void runChecks() {
        try {
            DebeziumOverrideCheck.verify(properties.getDebezium(), properties.getDatabase().getFlavor());
            report.ok("settings", "connector '" + properties.getName() + "', " + settings.dataTables().size()
                    + " table(s), topic prefix '" + properties.getTopicPrefix() + "'");
        } catch (StartupCheckException e) {
            report.fail("settings", e);
        }
        int failedBefore = report.failedChecks().size();
        boolean databaseOk = checkDatabase();
        boolean kafkaOk = checkKafka();
        checkStoredOffsets(kafkaOk);
        if (!probe) {
            report.skip("probe", "--no-probe");
        } else if (settings.heartbeatRow().isEmpty()) {
            report.skip("probe", "heartbeats are disabled (cdc.connector.heartbeat.interval=0)");
        } else if (!databaseOk || !kafkaOk) {
            List<String> failed = report.failedChecks();
            report.skip("probe", probeSkipped(failed.subList(failedBefore, failed.size())));
        } else {
            HeartbeatProbe.Outcome outcome = new HeartbeatProbe(properties, settings.heartbeatRow().get(), probeTimeout).run();
            if (outcome instanceof HeartbeatProbe.Outcome.Arrived arrived) {
                report.ok("probe", "a heartbeat written now reached " + arrived.topic() + " after "
                        + arrived.elapsed().toMillis() + " ms");
            } else if (outcome instanceof HeartbeatProbe.Outcome.NotStartedYet notYet) {
                report.skip("probe", "the connector has not run yet (" + notYet.reason() + "): start it, then run this"
                        + " check again to send a heartbeat through");
            } else if (outcome instanceof HeartbeatProbe.Outcome.Failed failed) {
                report.fail("probe", failed.problem(), failed.fix());
            }
        }
    }

    /**
     * Why the probe was not sent: it names the checks that failed rather than every check it depends on, so that an
     * operator whose connection checks passed is not sent looking at them.
     */
    static String probeSkipped(List<String> failedChecks) {
        if (failedChecks.isEmpty()) {
            return "not sent: the database and Kafka checks above did not all pass";
        }
        String names = failedChecks.size() == 1 ? failedChecks.get(0)
                : String.join(", ", failedChecks.subList(0, failedChecks.size() - 1)) + " and "
                        + failedChecks.get(failedChecks.size() - 1);
        return "not sent: the " + names + " check" + (failedChecks.size() == 1 ? "" : "s")
                + " above failed; fix " + (failedChecks.size() == 1 ? "it" : "them") + " first";
    }

    /** Returns whether the database was reachable and every database check passed. */
    private boolean checkDatabase() {
        ConnectorProperties.Database database = properties.getDatabase();
        Connection connection;
        try {
            connection = DatabaseCheck.connect(database);
        } catch (StartupCheckException e) {
            report.fail("database", e);
            return false;
        }
        int before = problemsSoFar();
        try (connection) {
            ServerSettings server = ServerSettings.read(connection);
            Flavor flavor = server.flavor();
            if (flavor != database.getFlavor()) {
                report.fail("flavor", "the server is " + flavor.name().toLowerCase(Locale.ROOT) + " (" + server.version()
                        + "), cdc.connector.database.flavor says " + database.getFlavor().name().toLowerCase(Locale.ROOT)
                        + ": Debezium's " + database.getFlavor().name().toLowerCase(Locale.ROOT) + " connector misreads or"
                        + " refuses this server's binlog",
                        "set cdc.connector.database.flavor: " + flavor.name().toLowerCase(Locale.ROOT));
            } else {
                report.ok("database", server.version() + " at " + database.getHost() + ":" + database.getPort() + " as '"
                        + database.getUser() + "' (flavor " + flavor.name().toLowerCase(Locale.ROOT) + ")");
            }
            DatabaseCheck check = new DatabaseCheck(database, settings.dataTables(), settings.heartbeatTable());
            step("binlog", "log_bin=ON, binlog_format=ROW, binlog_row_image=FULL, log_bin_compress=OFF",
                    () -> check.verifyBinlog(connection));
            checkServerSettings(server);
            step("grants", "user '" + database.getUser() + "' holds what the connector needs",
                    () -> check.verifyPrivileges(connection));
            step("tables", settings.dataTables().size() + " captured table(s)" + settings.heartbeatTable()
                    .map(t -> " and the heartbeat table " + t.qualifiedName()).orElse("") + " exist, each captured table"
                    + " with a primary key", () -> {
                        check.verifyTablesExist(connection);
                        check.verifyPrimaryKeys(connection);
                        KeyColumnCheck.of(properties, settings.capturedTables()).verify(connection);
                    });
            checkBinlogFilters(check, connection);
            checkReplica(connection);
            if (settings.heartbeatTable().isEmpty()) {
                report.warn("heartbeat", "disabled (cdc.connector.heartbeat.interval=0): clients cannot prove they are"
                        + " fresh and fall back to their staleness bound");
            }
        } catch (SQLException e) {
            report.fail("database", "a query failed: " + e.getMessage(),
                    "the connector user must be able to run SHOW VARIABLES and SHOW GRANTS");
        }
        return problemsSoFar() == before;
    }

    /** A replica: its heartbeat is written on its primary, and its and the primary's filters keep every table. */
    private void checkReplica(Connection connection) {
        try {
            report.ok("replica", new ReplicaCheck(properties).verify(connection));
        } catch (StartupCheckException e) {
            report.fail("replica", e);
        } catch (SQLException e) {
            report.fail("replica", e.toString(), "the connector user must be able to read the replication status"
                    + " (SLAVE MONITOR on MariaDB, REPLICATION CLIENT on MySQL)");
        }
    }

    private void checkBinlogFilters(DatabaseCheck check, Connection connection) {
        try {
            ReplicationFilters filters = check.verifyBinlogFilters(connection);
            if (filters.isEmpty()) {
                report.ok("binlog filters", "none: every change is logged");
            } else {
                ConnectorProperties.Database database = properties.getDatabase();
                report.warn("binlog filters", database.getHost() + ":" + database.getPort() + " (" + filters + ")"
                        + " logs every row change of the captured tables, but a"
                        + " RENAME, DROP, ALTER or TRUNCATE of one run under a filtered default database is not logged"
                        + " and its rows would stay cached as fresh: run such statements after USE <captured"
                        + " database>, or remove the database rules");
            }
        } catch (StartupCheckException e) {
            report.fail("binlog filters", e);
        } catch (SQLException e) {
            report.fail("binlog filters", e.toString(), "the connector user must be able to run SHOW MASTER STATUS"
                    + " (REPLICATION CLIENT, on MariaDB alias BINLOG MONITOR)");
        }
    }

    private void checkServerSettings(ServerSettings server) {
        long serverId = server.serverId();
        if (serverId == 0) {
            report.fail("server_id", "server_id is 0: the server does not write a usable binlog for replication clients",
                    "set server_id to a unique number (1 to 4294967295) in the server's configuration and restart it");
        } else if (serverId == settings.serverId()) {
            report.fail("server_id", "the server's server_id " + serverId + " equals the connector's replication client"
                    + " id", "set cdc.connector.database.server-id to another number, unique among all replicas and"
                    + " binlog readers of this server");
        } else {
            report.ok("server_id", serverId + " (the connector reads as replication client " + settings.serverId() + ")");
        }
        Duration retention = server.retention();
        if (retention.isZero()) {
            report.ok("retention", "binlog files never expire (watch the disk)");
        } else if (retention.compareTo(ServerSettings.ADVISED_RETENTION) < 0) {
            report.warn("retention", "binlog files expire after " + human(retention) + ": a connector stopped longer"
                    + " than that loses its position and starts a new epoch (every client drops its caches); keep at"
                    + " least " + human(ServerSettings.ADVISED_RETENTION) + " (binlog_expire_logs_seconds)");
        } else {
            report.ok("retention", "binlog files kept " + human(retention));
        }
        ServerSettings.GtidState gtids = server.gtids();
        if (gtids.on()) {
            report.ok("gtid", gtids.description());
        } else {
            report.warn("gtid", gtids.description() + ": the connector streams, but cannot follow a failover to a"
                    + " replica by position; set gtid_mode=ON and enforce_gtid_consistency=ON");
        }
    }

    /**
     * What the stored offsets say about the next start: a hold for a filter that kept changes from being applied on the
     * replica refuses it ({@link ContinuityCheck#resyncRefusal}). Read only where they exist: opening the offsets
     * topic creates it.
     */
    private void checkStoredOffsets(boolean kafkaOk) {
        boolean kafkaStore = properties.getOffsets().getStore() == ConnectorProperties.OffsetStore.KAFKA;
        if (kafkaStore ? !kafkaOk || !offsetsStored : !Files.exists(properties.getOffsets().getFile())) {
            report.ok("offsets", kafkaStore && !kafkaOk ? "not read (Kafka did not answer)" : "none stored yet");
            return;
        }
        try {
            Optional<OffsetsOrigin> origin = new StoredOffsets(properties.getOffsets().getStore(),
                    settings.engineProperties(), properties.getName(), properties.getTopicPrefix()).read().origin();
            Optional<StartupCheckException> refusal = ContinuityCheck.resyncRefusal(properties, origin);
            if (refusal.isPresent()) {
                report.fail("offsets", refusal.get());
            } else {
                report.ok("offsets", origin.isPresent() ? "stored, written under epoch " + origin.get().epoch()
                        : "stored, without the connector's record of their epoch");
            }
        } catch (RuntimeException e) {
            report.warn("offsets", "could not be read (" + e.getMessage() + ")");
        }
    }

    /** Returns whether Kafka answered and every Kafka check passed. */
    private boolean checkKafka() {
        String bootstrap = properties.getKafka().getBootstrapServers();
        int before = problemsSoFar();
        try (KafkaClients clients = new KafkaClients(properties.getKafka(), properties.getName() + "-check")) {
            try {
                new KafkaClusterCheck(clients.admin(), bootstrap, KAFKA_TIMEOUT).verify();
                report.ok("kafka", "reachable at " + bootstrap + " (" + properties.getKafka().getSecurity().protocol() + ")");
            } catch (StartupCheckException e) {
                report.fail("kafka", e);
                return false;
            }
            Map<String, KafkaAccess.Use> topics = new LinkedHashMap<>();
            settings.changeTopics().forEach(t -> topics.put(t, KafkaAccess.Use.CHANGES));
            if (properties.getOffsets().getStore() == ConnectorProperties.OffsetStore.KAFKA) {
                topics.put(settings.offsetsTopic(), KafkaAccess.Use.STATE);
            }
            topics.put(settings.schemaHistoryTopic(), KafkaAccess.Use.STATE);
            List<String> existingChangeTopics = new ArrayList<>();
            for (KafkaAccess.Finding finding : new KafkaAccess(clients.admin(), KAFKA_TIMEOUT)
                    .check(topics, properties.getTopicPartitions(), (short) properties.getTopicReplicationFactor())) {
                if (finding.problem() != null) {
                    report.fail("topic", finding.topic() + ": " + finding.problem(), finding.fix());
                } else {
                    report.ok("topic", finding.topic() + ": " + finding.detail());
                    if (finding.exists() && topics.get(finding.topic()) == KafkaAccess.Use.CHANGES) {
                        existingChangeTopics.add(finding.topic());
                    }
                    if (finding.exists() && finding.topic().equals(settings.offsetsTopic())) {
                        offsetsStored = true;
                    }
                }
            }
            if (!existingChangeTopics.isEmpty()) {
                TopicProvisioner provisioner = new TopicProvisioner(clients.admin(), properties.getTopicPartitions(),
                        (short) properties.getTopicReplicationFactor(), KAFKA_TIMEOUT);
                step("cleanup", "the existing change topics delete old segments, none is compacted",
                        () -> provisioner.refuseCompactedTopics(existingChangeTopics));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            report.fail("kafka", "interrupted", null);
        }
        return problemsSoFar() == before;
    }

    private interface Step {
        void run() throws Exception;
    }

    private void step(String check, String whenOk, Step step) {
        try {
            step.run();
            report.ok(check, whenOk);
        } catch (StartupCheckException e) {
            report.fail(check, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            report.fail(check, "interrupted", null);
        } catch (Exception e) {
            report.fail(check, e.toString(), null);
        }
    }

    private int problemsSoFar() {
        return report.problems();
    }

    private static String human(Duration duration) {
        return duration.toHours() >= 48 ? duration.toDays() + " days" : duration.toHours() >= 1 ? duration.toHours()
                + " h" : duration.toMinutes() + " min";
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        StringBuilder messages = new StringBuilder();
        while (root != null) {
            if (root.getMessage() != null && !messages.toString().contains(root.getMessage())) {
                messages.setLength(0);
                messages.append(root.getMessage());
            }
            root = root.getCause();
        }
        return messages.toString();
    }

    private static int usage(PrintStream out, String problem) {
        if (problem != null) {
            out.println(problem);
        }
        out.println("usage: java -jar cdc-connector-exec.jar check --config <connector.yml> [--no-probe]"
                + " [--probe-timeout <duration, default 30s>] [--cdc.connector.<setting>=<value> ...]");
        return 2;
    }

    /**
     * A positive duration in Spring Boot's notation ({@code 30s}, {@code 500ms}, {@code PT1M}; a bare number is
     * seconds), or null.
     */
    static Duration probeTimeout(String value) {
        try {
            Duration timeout = DurationStyle.detectAndParse(value.trim(), ChronoUnit.SECONDS);
            return timeout.isNegative() || timeout.isZero() ? null : timeout;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
