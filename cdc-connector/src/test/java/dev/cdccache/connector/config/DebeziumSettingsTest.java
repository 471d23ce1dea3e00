package dev.cdccache.connector.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdccache.contract.KafkaSecurity;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DebeziumSettingsTest {

    private static ConnectorProperties properties() {
        ConnectorProperties p = new ConnectorProperties();
        p.setName("coupons");
        p.getDatabase().setHost("db.internal");
        p.getDatabase().setPort(3307);
        p.getDatabase().setUser("cdc");
        p.getDatabase().setPassword("s3cret");
        p.setTables(List.of("coupon_db.coupon", "coupon_db.coupon_attribute"));
        p.setTopicPrefix("cdc");
        p.getKafka().setBootstrapServers("kafka:9092");
        return p;
    }

    @Test
    void topicOfATableIsPrefixDatabaseTable() {
        assertThat(CapturedTable.parse("coupon_db.coupon").topic("cdc")).isEqualTo("cdc.coupon_db.coupon");
        assertThat(new DebeziumSettings(properties()).changeTopics())
                .containsExactly("cdc.coupon_db.coupon", "cdc.coupon_db.coupon_attribute", "cdc.cdc_meta.heartbeat");
    }

    @Test
    void tableNamesMustHaveExactlyADatabaseAndATable() {
        assertThatThrownBy(() -> CapturedTable.parse("coupon")).hasMessageContaining("database.table");
        assertThatThrownBy(() -> CapturedTable.parse("a.b.c")).hasMessageContaining("database.table");
    }

    @Test
    void includeListMatchesExactlyTheNamedTablesAndTheHeartbeatTable() {
        Map<String, String> c = new DebeziumSettings(properties()).connectorProperties();
        assertThat(c.get("table.include.list"))
                .isEqualTo("coupon_db\\.coupon,coupon_db\\.coupon_attribute,cdc_meta\\.heartbeat");
        assertThat(c.get("database.include.list")).isEqualTo("coupon_db,cdc_meta");
        assertThat("coupon_db.coupon").matches(c.get("table.include.list").split(",")[0]);
        assertThat("coupon_dbXcoupon").doesNotMatch(c.get("table.include.list").split(",")[0]);
    }

    @Test
    void eventContractSettingsAreFixed() {
        Map<String, String> c = new DebeziumSettings(properties()).connectorProperties();
        assertThat(c).containsEntry("connector.class", "io.debezium.connector.mariadb.MariaDbConnector")
                .containsEntry("topic.prefix", "cdc")
                .containsEntry("tombstones.on.delete", "true")
                .containsEntry("skipped.operations", "none")
                .containsEntry("decimal.handling.mode", "string")
                .containsEntry("snapshot.mode", "no_data")
                .containsEntry("include.schema.changes", "false")
                .containsEntry("schema.history.internal", "io.debezium.storage.kafka.history.KafkaSchemaHistory")
                .containsEntry("schema.history.internal.kafka.topic", "coupons.schema-history")
                .containsEntry("heartbeat.interval.ms", "1000")
                .doesNotContainKey("heartbeat.action.query") // written by HeartbeatWriter on a timer
                .containsEntry("connect.keep.alive.interval.ms", "2000")
                .containsEntry("max.batch.size", "1024")
                .containsEntry("max.queue.size", "2048");
    }

    @Test
    void connectExportRunsTheHeartbeatStatementAsDebeziumsActionQuery() {
        @SuppressWarnings("unchecked")
        Map<String, String> config = (Map<String, String>) new DebeziumSettings(properties()).connectConfig().get("config");
        assertThat(config.get("heartbeat.action.query")).matches("INSERT INTO cdc_meta\\.heartbeat \\(id, ts, epoch, tables\\)"
                + " VALUES \\('coupons', UTC_TIMESTAMP\\(6\\), 'connect-[0-9a-f-]{36}', 'coupon_db\\.coupon,coupon_db\\.coupon_attribute'\\)"
                + " ON DUPLICATE KEY UPDATE ts = VALUES\\(ts\\), epoch = VALUES\\(epoch\\), tables = VALUES\\(tables\\)");
    }

    @Test
    void embeddedEngineWakesOncePerSecondWhenIdleByDefault() {
        // the project's queue hands a change over as soon as it is queued: the interval only paces an idle engine
        assertThat(new DebeziumSettings(properties()).engineProperties()).containsEntry("poll.interval.ms", "1000");
    }

    @Test
    void connectExportKeepsAFiveMillisecondPollIntervalWhateverTheEngineUses() {
        // on Connect, Debezium's own queue adds up to poll.interval.ms to every change
        ConnectorProperties p = properties();
        p.setPollInterval(Duration.ofSeconds(2));
        @SuppressWarnings("unchecked")
        Map<String, String> config = (Map<String, String>) new DebeziumSettings(p).connectConfig().get("config");
        assertThat(config).containsEntry("poll.interval.ms", "5");
        assertThat(new DebeziumSettings(p).engineProperties()).containsEntry("poll.interval.ms", "2000");
    }

    @Test
    void connectExportRequiresExactlyOnceDeliveryWithOneTransactionPerPoll() {
        @SuppressWarnings("unchecked")
        Map<String, String> config = (Map<String, String>) new DebeziumSettings(properties()).connectConfig().get("config");
        assertThat(config).containsEntry("exactly.once.support", "required")
                .containsEntry("transaction.boundary", "poll");
    }

    @Test
    void embeddedEngineGetsNoKafkaConnectDeliverySettings() {
        assertThat(new DebeziumSettings(properties()).engineProperties())
                .doesNotContainKeys("exactly.once.support", "transaction.boundary");
    }

    @Test
    void connectExportAddsTheConnectorHeaderToEveryRecordWithInsertHeader() {
        @SuppressWarnings("unchecked")
        Map<String, String> config = (Map<String, String>) new DebeziumSettings(properties()).connectConfig().get("config");
        assertThat(config).containsEntry("transforms", "connectorHeader")
                .containsEntry("transforms.connectorHeader.type", "org.apache.kafka.connect.transforms.InsertHeader")
                .containsEntry("transforms.connectorHeader.header", "cdc-connector")
                .containsEntry("transforms.connectorHeader.value.literal", "coupons");
    }

    @Test
    void mysqlFlavorUsesTheMySqlConnector() {
        ConnectorProperties p = properties();
        p.getDatabase().setFlavor(ConnectorProperties.Flavor.MYSQL);
        assertThat(new DebeziumSettings(p).connectorClass()).isEqualTo("io.debezium.connector.mysql.MySqlConnector");
    }

    @Test
    void offsetsGoToAKafkaTopicNamedAfterTheConnectorByDefault() {
        Properties e = new DebeziumSettings(properties()).engineProperties();
        assertThat(e).containsEntry("name", "coupons")
                .containsEntry("offset.storage", "dev.cdccache.connector.engine.KafkaTopicOffsetStore")
                .containsEntry("offset.storage.topic", "coupons.offsets")
                .containsEntry("bootstrap.servers", "kafka:9092")
                .containsEntry("offset.flush.interval.ms", "1000");
    }

    @Test
    void fileOffsetStoreIsSelectable() {
        ConnectorProperties p = properties();
        p.getOffsets().setStore(ConnectorProperties.OffsetStore.FILE);
        p.getOffsets().setFile(Path.of("/var/lib/cdc/offsets.dat"));
        assertThat(new DebeziumSettings(p).engineProperties())
                .containsEntry("offset.storage", "dev.cdccache.connector.engine.FileOffsetStore")
                .containsEntry("offset.storage.file.filename", "/var/lib/cdc/offsets.dat");
    }

    @Test
    void disabledHeartbeatLeavesTheHeartbeatTableOut() {
        ConnectorProperties p = properties();
        p.getHeartbeat().setInterval(Duration.ZERO);
        DebeziumSettings settings = new DebeziumSettings(p);
        assertThat(settings.changeTopics()).doesNotContain("cdc.cdc_meta.heartbeat");
        assertThat(settings.connectorProperties()).doesNotContainKey("heartbeat.action.query");
    }

    @Test
    void serverIdIsStableForAName() {
        assertThat(new DebeziumSettings(properties()).serverId()).isEqualTo(new DebeziumSettings(properties()).serverId());
        ConnectorProperties p = properties();
        p.getDatabase().setServerId(4242L);
        assertThat(new DebeziumSettings(p).serverId()).isEqualTo(4242L);
    }

    @Test
    void derivedServerIdsOfNamesWithTheSameHashCodeDifferAndStayAboveTheServersIds() {
        assertThat("Aa".hashCode()).isEqualTo("BB".hashCode());
        assertThat(DebeziumSettings.derivedServerId("Aa")).isNotEqualTo(DebeziumSettings.derivedServerId("BB"));
        Set<Long> ids = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            long id = DebeziumSettings.derivedServerId("connector-" + i);
            assertThat(id).isBetween(100_000L, 0xFFFF_FFFFL);
            ids.add(id);
        }
        assertThat(ids).as("distinct ids of 10,000 names").hasSize(10_000);
    }

    @Test
    void columnListsAreLiteralNames() {
        ConnectorProperties p = properties();
        p.getColumns().setExclude(List.of("coupon_db.coupon.owner_email"));
        p.getColumns().setMask(List.of("coupon_db.coupon.code"));
        assertThat(new DebeziumSettings(p).connectorProperties())
                .containsEntry("column.exclude.list", "coupon_db\\.coupon\\.owner_email")
                .containsEntry("column.mask.with.8.chars", "coupon_db\\.coupon\\.code");
    }

    @Test
    void kafkaClientPropertiesReachTheSchemaHistoryClientsAndTheOffsetStore() {
        ConnectorProperties p = properties();
        p.getKafka().getProperties().put("security.protocol", "SSL");
        DebeziumSettings settings = new DebeziumSettings(p);
        assertThat(settings.connectorProperties())
                .containsEntry("schema.history.internal.producer.security.protocol", "SSL")
                .containsEntry("schema.history.internal.consumer.security.protocol", "SSL");
        assertThat(settings.engineProperties()).containsEntry("security.protocol", "SSL");
    }

    @Test
    void maskedEnginePropertiesHideThePassword() {
        assertThat(new DebeziumSettings(properties()).maskedEngineProperties())
                .containsEntry("database.password", "******")
                .doesNotContainValue("s3cret");
    }

    @Test
    void columnIncludeListAppliesOnlyToTheTablesItNames() {
        ConnectorProperties p = properties();
        p.getColumns().setInclude(List.of("coupon_db.coupon.id"));
        String include = new DebeziumSettings(p).connectorProperties().get("column.include.list");
        // Debezium applies the list to every table: the others, and the heartbeat table, must keep all columns.
        assertThat(include.split(",")).containsExactly("coupon_db\\.coupon\\.id",
                "coupon_db\\.coupon_attribute\\.[^.]+", "cdc_meta\\.heartbeat\\.[^.]+");
        assertThat("coupon_db.coupon_attribute.value").matches(include.split(",")[1]);
        assertThat("coupon_db.coupon.owner_email").doesNotMatch(include.split(",")[0]);
        assertThat(new DebeziumSettings(properties()).connectorProperties()).doesNotContainKey("column.include.list");
    }

    private static ConnectorProperties scramOverTls() {
        ConnectorProperties p = properties();
        p.getKafka().setSecurity(KafkaSecurity.builder().protocol(KafkaSecurity.Protocol.SASL_SSL)
                .username("cdc-connector").password("sasl-s3cret")
                .truststore(Path.of("/etc/kafka/truststore.p12"), "trust-s3cret", "PKCS12").build());
        return p;
    }

    @Test
    void securitySettingsReachEveryKafkaClientOfTheConnector() {
        ConnectorProperties p = scramOverTls();
        DebeziumSettings settings = new DebeziumSettings(p);
        String jaas = "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"cdc-connector\" "
                + "password=\"sasl-s3cret\";";
        Map<String, String> expected = Map.of("security.protocol", "SASL_SSL", "sasl.mechanism", "SCRAM-SHA-512",
                "sasl.jaas.config", jaas, "ssl.truststore.location", "/etc/kafka/truststore.p12",
                "ssl.truststore.password", "trust-s3cret", "ssl.truststore.type", "PKCS12");
        expected.forEach((key, value) -> {
            // Debezium's schema-history producer and consumer, the offset store (top-level), our producer and admin.
            assertThat(settings.connectorProperties()).containsEntry("schema.history.internal.producer." + key, value)
                    .containsEntry("schema.history.internal.consumer." + key, value);
            assertThat(settings.engineProperties()).containsEntry(key, value);
            assertThat(dev.cdccache.connector.kafka.KafkaClients.producerConfig(p.getKafka(), "test"))
                    .containsEntry(key, value);
        });
        assertThat(settings.maskedEngineProperties()).doesNotContainValue(jaas).doesNotContainValue("trust-s3cret")
                .containsEntry("sasl.jaas.config", "******");
        assertThat(p.toString()).contains("cdc-connector").doesNotContain("sasl-s3cret").doesNotContain("trust-s3cret");
    }

    @Test
    void connectExportReferencesKafkaSecretsInsteadOfPrintingThem() {
        @SuppressWarnings("unchecked")
        Map<String, String> config = (Map<String, String>) new DebeziumSettings(scramOverTls()).connectConfig().get("config");
        assertThat(config.values()).noneMatch(v -> v.contains("sasl-s3cret") || v.contains("trust-s3cret"));
        assertThat(config).containsEntry("schema.history.internal.producer.sasl.jaas.config",
                        "${env:CDC_CONNECTOR_KAFKA_SASL_JAAS_CONFIG}")
                .containsEntry("schema.history.internal.consumer.ssl.truststore.password",
                        "${env:CDC_CONNECTOR_KAFKA_SSL_TRUSTSTORE_PASSWORD}")
                .containsEntry("schema.history.internal.consumer.security.protocol", "SASL_SSL");
    }

    @Test
    void plaintextAddsNoSecuritySettings() {
        assertThat(new DebeziumSettings(properties()).engineProperties().keySet())
                .noneMatch(k -> k.toString().contains("security.protocol") || k.toString().contains("sasl"));
    }
}
