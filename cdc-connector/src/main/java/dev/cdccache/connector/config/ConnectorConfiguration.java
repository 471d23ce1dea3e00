package dev.cdccache.connector.config;

import dev.cdccache.connector.continuity.ContinuityCheck;
import dev.cdccache.connector.continuity.ContinuityHealthIndicator;
import dev.cdccache.connector.continuity.ContinuityState;
import dev.cdccache.connector.continuity.SchemaChangeScope;
import dev.cdccache.connector.continuity.StatementEventDetector;
import dev.cdccache.connector.continuity.EpochRenewal;
import dev.cdccache.connector.continuity.OffsetsOrigin;
import dev.cdccache.connector.continuity.StoredOffsets;
import dev.cdccache.connector.engine.ChangeEventEngine;
import dev.cdccache.connector.engine.EngineFailedEvent;
import dev.cdccache.connector.export.ConnectConfigExporter;
import dev.cdccache.connector.health.DatabaseHealthIndicator;
import dev.cdccache.connector.heartbeat.HeartbeatRecords;
import dev.cdccache.connector.heartbeat.HeartbeatRow;
import dev.cdccache.connector.heartbeat.FilterWatch;
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
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;
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
        DebeziumOverrideCheck.verify(properties.getDebezium(), properties.getDatabase().getFlavor());
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
            PublishMetrics metrics = new PublishMetrics(registry, () -> engine.getObject().state().code());
            metrics.bindBinlogDisconnects(() -> engine.getObject().binlogDisconnects());
            return metrics;
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
                            properties.getLargeTransactions().tableThresholds()),
                    () -> continuityState.engineFailure().isPresent());
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
                ContinuityState continuityState, StoredOffsets offsets) {
            // before every row: the filters that decide what reaches the binlog still keep every captured table
            FilterWatch filters = new FilterWatch(new DatabaseCheck(properties.getDatabase(), settings.dataTables(),
                    settings.heartbeatTable()), properties.getDatabase(), properties.getHeartbeat().getPrimary()
                            .isConfigured() ? Optional.of(new ReplicaCheck(properties)) : Optional.empty(),
                    properties.heartbeatDatabase(), properties.heartbeatDatabaseSettings());
            Clock clock = Clock.systemUTC();
            HeartbeatWriter.FilterEpochs epochs = new HeartbeatWriter.FilterEpochs() {
                @Override
                public String filterFound(String filter, boolean damage) {
                    offsets.markUnresumable(); // before the new epoch: no renewal of it is recorded
                    return continuityState.renewForFilter(filter, damage, clock);
                }

                @Override
                public void recordHold(boolean damage) {
                    offsets.recordUnresumable(damage); // the next start resumes no epoch of this process
                }

                @Override
                public String filterGone() {
                    return continuityState.renewAfterFilter(clock);
                }
            };
            // a disabled heartbeat (interval 0) never writes: the row below is only a placeholder then
            // on a replica: its primary, where the row is committed in order with the changes still replicating
            return new HeartbeatWriter(properties.heartbeatDatabase(), properties.heartbeatDatabaseSettings(),
                    settings.heartbeatRow().orElseGet(() -> new HeartbeatRow(
                            CapturedTable.parse(properties.getHeartbeat().getTable()),
                            properties.getName(), settings.dataTables())),
                    continuityState::epochOrNull, properties.getHeartbeat().getInterval(), registry, filters, epochs);
        }

        /**
         * Notices what the binlog holds in a form Debezium publishes no row events for, and replaces the epoch for it
         * ({@link EpochRenewal}).
         */
        @Bean(destroyMethod = "uninstall")
        StatementEventDetector statementEventDetector(ContinuityState continuityState, HeartbeatWriter heartbeatWriter,
                ConnectorProperties properties, DebeziumSettings settings, StoredOffsets offsets, MeterRegistry registry) {
            boolean heartbeats = !properties.getHeartbeat().getInterval().isZero()
                    && !properties.getHeartbeat().getInterval().isNegative();
            String storedOffsets = StoredOffsets.howToDelete(properties);
            // a heartbeat row on the replica's primary can lose a renewal in a failover: the offsets keep it too
            Consumer<String> renewedEpochs = properties.getHeartbeat().getPrimary().isConfigured()
                    ? offsets::recordRenewedEpoch : epoch -> { };
            return StatementEventDetector.install(new EpochRenewal(continuityState, heartbeatWriter, heartbeats,
                    new SchemaChangeScope(settings.dataTables()), properties.getDatabase(), storedOffsets, renewedEpochs,
                    registry));
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
