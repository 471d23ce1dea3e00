package dev.cdccache.connector.config;

import dev.cdccache.connector.continuity.ContinuityCheck;
import dev.cdccache.connector.continuity.ContinuityHealthIndicator;
import dev.cdccache.connector.continuity.ContinuityState;
import dev.cdccache.connector.continuity.SchemaChangeScope;
import dev.cdccache.connector.continuity.StatementEventDetector;
import dev.cdccache.connector.continuity.UnreadableChange;
import dev.cdccache.connector.continuity.OffsetsOrigin;
import dev.cdccache.connector.continuity.StoredOffsets;
import dev.cdccache.connector.engine.ChangeEventEngine;
import dev.cdccache.connector.engine.EngineFailedEvent;
import dev.cdccache.connector.export.ConnectConfigExporter;
import dev.cdccache.connector.health.DatabaseHealthIndicator;
import dev.cdccache.connector.heartbeat.HeartbeatRecords;
import dev.cdccache.connector.heartbeat.HeartbeatRow;
import dev.cdccache.connector.heartbeat.HeartbeatWriter;
import dev.cdccache.connector.health.EngineHealthIndicator;
import dev.cdccache.connector.health.KafkaHealthIndicator;
import dev.cdccache.connector.kafka.KafkaClients;
import dev.cdccache.connector.lease.ConnectorLease;
import dev.cdccache.connector.metrics.EpochMetrics;
import dev.cdccache.connector.metrics.PublishMetrics;
import dev.cdccache.connector.oversize.OversizedEvents;
import dev.cdccache.connector.publish.ChangeEventSerializer;
import dev.cdccache.connector.publish.KafkaChangePublisher;
import dev.cdccache.connector.publish.TransactionCoalescer;
import dev.cdccache.connector.startup.DatabaseCheck;
import dev.cdccache.connector.startup.DebeziumOverrideCheck;
import dev.cdccache.connector.startup.KeyColumnCheck;
import dev.cdccache.connector.startup.KafkaClusterCheck;
import dev.cdccache.connector.startup.ReplicaCheck;
import dev.cdccache.connector.startup.StartupCheckException;
import dev.cdccache.connector.startup.TopicProvisioner;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Wires the connector from {@link ConnectorProperties}. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ConnectorProperties.class)
class ConnectorConfiguration {

    private static final Logger log = LoggerFactory.getLogger(ConnectorConfiguration.class);

    @Bean
    DebeziumSettings debeziumSettings(ConnectorProperties properties) {
        log.info("CDC connector settings: {}", properties); // masked: see ConnectorProperties#toString
        // before anything connects, and for the Kafka Connect export as for the engine
        DebeziumOverrideCheck.verify(properties.getDebezium());
        return new DebeziumSettings(properties);
    }

    @Bean(destroyMethod = "close")
    KafkaClients kafkaClients(ConnectorProperties properties) {
        return new KafkaClients(properties.getKafka(), properties.getName());
    }

    @Bean
    @ConditionalOnProperty(prefix = ConnectorProperties.PREFIX, name = "export-connect-config", havingValue = "true")
    ApplicationRunner connectConfigExport(DebeziumSettings settings, ConnectorProperties properties) {
        return args -> {
            if (properties.getHeartbeat().getPrimary().isConfigured()) {
                // Debezium's heartbeat.action.query runs on the server it reads, never on a primary
                throw new StartupCheckException("The Kafka Connect export cannot write the heartbeat on "
                        + ConnectorProperties.PREFIX + ".heartbeat.primary: on Kafka Connect the heartbeat row is"
                        + " written by Debezium's heartbeat.action.query on the server it reads, which here is a"
                        + " replica, where the heartbeat would be ahead of changes still replicating.",
                        "Run the embedded connector against the replica, or export a connector that reads the primary.");
            }
            if (properties.getLargeTransactions().isConfigured()) {
                // the table-wide eviction is written by the embedded connector's publisher; Connect's worker publishes
                // every row event Debezium produces, so the setting would silently do nothing there
                throw new StartupCheckException("The Kafka Connect export cannot coalesce large transactions: "
                        + ConnectorProperties.PREFIX + ".large-transactions.* is done by the embedded connector's"
                        + " publisher, and on Kafka Connect every row event of a large transaction is published.",
                        "Remove " + ConnectorProperties.PREFIX + ".large-transactions.evict-table-after-rows and "
                        + ConnectorProperties.PREFIX + ".large-transactions.tables from the settings you export, or"
                        + " run the embedded connector to coalesce large transactions.");
            }
            KeyColumnCheck keyColumns = KeyColumnCheck.of(properties, settings.capturedTables());
            if (keyColumns.hasRewrites()) {
                // the key columns are known only to the database: a mask in the export is checked there too
                try (Connection connection = DatabaseCheck.connect(properties.getDatabase())) {
                    keyColumns.verify(connection);
                }
            }
            System.out.println(new ConnectConfigExporter(settings).toJson());
        };
    }

    /** Everything that streams; absent when only exporting the configuration. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(prefix = ConnectorProperties.PREFIX, name = "export-connect-config", havingValue = "false",
            matchIfMissing = true)
    static class Streaming {

        private static final Duration KAFKA_TIMEOUT = Duration.ofSeconds(15);

        @Bean
        PublishMetrics publishMetrics(MeterRegistry registry, ObjectProvider<ChangeEventEngine> engine) {
            return new PublishMetrics(registry, () -> engine.getObject().state().code());
        }

        @Bean
        KafkaChangePublisher kafkaChangePublisher(KafkaClients clients, PublishMetrics metrics, ConnectorProperties properties,
                DebeziumSettings settings, MeterRegistry registry, ContinuityState continuityState) {
            return new KafkaChangePublisher(clients::producer, new ChangeEventSerializer(properties.getName(), registry), metrics,
                    properties.getTopicPrefix(), Clock.systemUTC(), settings.heartbeatTable()
                            .map(t -> new HeartbeatRecords(t.topic(properties.getTopicPrefix()), properties.getName(),
                                    continuityState::epochOrNull))
                            .orElseGet(HeartbeatRecords::none),
                    new OversizedEvents(KafkaClients.maxRequestSize(properties.getKafka()), registry),
                    new TransactionCoalescer(properties.getLargeTransactions().defaultThreshold(),
                            properties.getLargeTransactions().tableThresholds()));
        }

        @Bean
        ContinuityState continuityState(MeterRegistry registry) {
            return new ContinuityState(new EpochMetrics(registry)::epochStarted);
        }

        @Bean
        ContinuityHealthIndicator continuityHealthIndicator(ContinuityState state, ConnectorLease lease,
                HeartbeatWriter heartbeatWriter) {
            return new ContinuityHealthIndicator(state, lease::describe, heartbeatWriter::heldBecause);
        }

        @Bean
        StoredOffsets storedOffsets(ConnectorProperties properties, DebeziumSettings settings) {
            return new StoredOffsets(properties.getOffsets().getStore(), settings.engineProperties(), properties.getName(),
                    properties.getTopicPrefix());
        }

        @Bean
        ConnectorLease connectorLease(ConnectorProperties properties, DebeziumSettings settings, StoredOffsets offsets,
                ContinuityState continuityState, ApplicationEventPublisher events) {
            return new ConnectorLease(properties.getDatabase(), properties.getName(), settings.serverId(),
                    settings.heartbeatTable(), () -> offsets.read().origin().map(OffsetsOrigin::instance),
                    lost -> {
                        continuityState.engineFailed(lost);
                        events.publishEvent(new EngineFailedEvent(settings, new IllegalStateException(lost)));
                    }, Clock.systemUTC());
        }

        @Bean
        ChangeEventEngine changeEventEngine(ConnectorProperties properties, DebeziumSettings settings, KafkaClients clients,
                KafkaChangePublisher publisher, ApplicationEventPublisher events, ContinuityState continuityState,
                StoredOffsets offsets, ConnectorLease lease) {
            DatabaseCheck databaseCheck = new DatabaseCheck(properties.getDatabase(), settings.dataTables(), settings.heartbeatTable(),
                    Optional.of(KeyColumnCheck.of(properties, settings.capturedTables())),
                    Optional.of(new ReplicaCheck(properties)));
            KafkaClusterCheck kafkaCheck = new KafkaClusterCheck(clients.admin(), properties.getKafka().getBootstrapServers(), KAFKA_TIMEOUT);
            TopicProvisioner topics = new TopicProvisioner(clients.admin(), properties.getTopicPartitions(),
                    (short) properties.getTopicReplicationFactor(), KAFKA_TIMEOUT);
            return new ChangeEventEngine(settings, properties.getTopicPrefix(), databaseCheck, kafkaCheck, topics, publisher,
                    error -> events.publishEvent(new EngineFailedEvent(settings, error)),
                    new ContinuityCheck(properties, settings.heartbeatRow(), offsets, continuityState, lease::instance,
                            Clock.systemUTC()), lease);
        }

        @Bean
        HeartbeatWriter heartbeatWriter(ConnectorProperties properties, DebeziumSettings settings, MeterRegistry registry,
                ContinuityState continuityState) {
            // a disabled heartbeat (interval 0) never writes: the row below is only a placeholder then
            // on a replica: its primary, where the row is committed in order with the changes still replicating
            return new HeartbeatWriter(properties.heartbeatDatabase(), properties.heartbeatDatabaseSettings(),
                    settings.heartbeatRow().orElseGet(() -> new HeartbeatRow(
                            CapturedTable.parse(properties.getHeartbeat().getTable()),
                            properties.getName(), settings.dataTables())),
                    continuityState::epochOrNull, properties.getHeartbeat().getInterval(), registry);
        }

        /**
         * A row change the binlog holds as a statement, or an event that may have changed rows but cannot be read,
         * replaces the epoch, and the heartbeat row is written with it at once, on the thread that reads the binlog:
         * before the engine can store an offset past the event. If that write fails the engine fails too, so a
         * restart reads the event again. Where the heartbeat row itself would reach the binlog in such a form (the
         * server compresses events; the writer's session logs statements), writing it would only start another epoch
         * each time: heartbeats are held back instead until the server's setting changes, and no client can prove
         * its cache fresh meanwhile.
         */
        @Bean(destroyMethod = "uninstall")
        StatementEventDetector statementEventDetector(ContinuityState continuityState, HeartbeatWriter heartbeatWriter,
                ConnectorProperties properties, DebeziumSettings settings, MeterRegistry registry) {
            Counter statements = Counter.builder("cdc.connector.binlog.statements")
                    .description("Row changes the binlog held as SQL statements (a writer not in binlog_format=ROW);"
                            + " each replaces the epoch")
                    .register(registry);
            Counter unreadable = Counter.builder("cdc.connector.binlog.unreadable.events")
                    .description("Events the binlog held that may have changed rows but that the connector cannot read"
                            + " (MariaDB's log_bin_compress=ON); each replaces the epoch")
                    .register(registry);
            Counter xaCommits = Counter.builder("cdc.connector.binlog.xa.commits")
                    .description("Commits of prepared XA transactions, whose rows were published at XA PREPARE; each"
                            + " replaces the epoch")
                    .register(registry);
            Counter schemaChanges = Counter.builder("cdc.connector.binlog.schema.changes")
                    .description("Schema changes that named a captured table (ALTER, RENAME, DROP TABLE, DROP DATABASE)"
                            + " and may have rewritten its rows without row events; each replaces the epoch")
                    .register(registry);
            Counter incidents = Counter.builder("cdc.connector.binlog.incidents")
                    .description("Incident events in the binlog: the server could not log some changes; each replaces"
                            + " the epoch")
                    .register(registry);
            SchemaChangeScope captured = new SchemaChangeScope(settings.dataTables());
            Gauge.builder("cdc.connector.heartbeat.held", heartbeatWriter, w -> w.heldBecause().isPresent() ? 1 : 0)
                    .description("1 while heartbeat rows are held back because the server would log them as SQL"
                            + " statements; clients cannot prove their caches fresh meanwhile")
                    .register(registry);
            boolean heartbeats = !properties.getHeartbeat().getInterval().isZero() && !properties.getHeartbeat().getInterval().isNegative();
            HeartbeatRow row = heartbeatWriter.row();
            java.util.regex.Pattern heartbeatUpsert = java.util.regex.Pattern.compile("^\\s*INSERT\\s+INTO\\s+`?"
                    + java.util.regex.Pattern.quote(row.table().database()) + "`?\\s*\\.\\s*`?"
                    + java.util.regex.Pattern.quote(row.table().table()) + "`?[\\s(]",
                    java.util.regex.Pattern.CASE_INSENSITIVE);
            return StatementEventDetector.install(change -> {
                if (change.kind() == UnreadableChange.Kind.STATEMENT && heartbeatUpsert.matcher(change.detail()).find()) {
                    // a heartbeat row logged as a statement changes no cached row; from this connector's own writer,
                    // every further one would be too, until it reconnects in ROW format
                    if (heartbeats && change.detail().contains("'" + row.connectorId() + "'")) {
                        heartbeatWriter.heardAsStatement();
                    }
                    return;
                }
                if (change.kind() == UnreadableChange.Kind.SCHEMA_CHANGE && !captured.concernsCaptured(change.detail())) {
                    return;
                }
                (switch (change.kind()) {
                    case STATEMENT -> statements;
                    case UNREADABLE_EVENT -> unreadable;
                    case XA_COMMIT -> xaCommits;
                    case SCHEMA_CHANGE -> schemaChanges;
                    case INCIDENT -> incidents;
                }).increment();
                // The new epoch must reach the binlog in a heartbeat row before the engine stores a position past the
                // event: a restart would resume the old one otherwise. Where no row can be published, stop before that
                // position is stored; a restart reads the event again once the server's setting is fixed.
                if (heartbeats) {
                    heartbeatWriter.heldBecause().ifPresent(why -> stopAt(continuityState, "heartbeat rows are held back: "
                            + why, "Set binlog_format=ROW globally (SET GLOBAL binlog_format='ROW' and in the server's"
                                    + " configuration) and start the connector again."));
                }
                if (change.kind() == UnreadableChange.Kind.UNREADABLE_EVENT && compressesEvents(properties.getDatabase())) {
                    // the heartbeat row would be compressed too: one more unreadable event, one more epoch, no end
                    stopAt(continuityState, "log_bin_compress is ON on " + properties.getDatabase().getHost() + ":"
                            + properties.getDatabase().getPort() + ": MariaDB compresses binlog events, which the"
                            + " connector cannot read, heartbeat rows included.",
                            "As an administrator run SET GLOBAL log_bin_compress = OFF; and set log_bin_compress=OFF"
                                    + " under [mariadb] in the server's configuration file, then start the connector"
                                    + " again: it reads the event again and starts a new epoch for it.");
                }
                if (continuityState.renewFor(change, Clock.systemUTC()) != null && heartbeats) {
                    heartbeatWriter.writeOrFail();
                }
            });
        }

        /**
         * Fails the event handler on the binlog thread (the engine stops before it stores a position past the event)
         * and makes continuity health say why.
         */
        private static void stopAt(ContinuityState continuityState, String why, String action) {
            String explanation = "Stopped at an event that may have changed rows, because " + why + " What to do: "
                    + action;
            continuityState.engineFailed(explanation);
            throw new IllegalStateException(explanation);
        }

        /**
         * Whether the captured server (whose binlog is read, a replica included) compresses binlog events; true if
         * that cannot be read either, so that the caller stops rather than risk one epoch after another.
         */
        private static boolean compressesEvents(ConnectorProperties.Database database) {
            try (java.sql.Connection connection = DatabaseCheck.connect(database);
                    java.sql.Statement statement = connection.createStatement();
                    java.sql.ResultSet rs = statement.executeQuery("SHOW GLOBAL VARIABLES LIKE 'log_bin_compress'")) {
                String value = rs.next() ? rs.getString(2) : "OFF"; // MySQL has no such setting
                return "ON".equalsIgnoreCase(value) || "1".equals(value);
            } catch (java.sql.SQLException | RuntimeException e) {
                return true;
            }
        }

        @Bean
        EngineHealthIndicator engineHealthIndicator(ChangeEventEngine engine, PublishMetrics metrics) {
            return new EngineHealthIndicator(engine, metrics);
        }

        @Bean
        DatabaseHealthIndicator databaseHealthIndicator(ConnectorProperties properties) {
            return new DatabaseHealthIndicator(properties.getDatabase());
        }

        @Bean
        KafkaHealthIndicator kafkaHealthIndicator(KafkaClients clients, ConnectorProperties properties) {
            return new KafkaHealthIndicator(clients, properties.getKafka().getBootstrapServers());
        }
    }
}
