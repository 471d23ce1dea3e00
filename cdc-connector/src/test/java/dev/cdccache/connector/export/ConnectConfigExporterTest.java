package dev.cdccache.connector.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.connector.config.ConnectorProperties;
import dev.cdccache.connector.config.DebeziumSettings;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class ConnectConfigExporterTest {

    private static DebeziumSettings settings() {
        ConnectorProperties p = new ConnectorProperties();
        p.setName("coupons");
        p.getDatabase().setHost("db.internal");
        p.getDatabase().setUser("cdc");
        p.getDatabase().setPassword("s3cret");
        p.setTables(List.of("coupon_db.coupon"));
        p.setTopicPartitions(6);
        p.getKafka().setBootstrapServers("kafka:9092");
        return new DebeziumSettings(p);
    }

    @Test
    void exportIsAPostConnectorsBodyWithTheSameConnectorAndJsonConvertersWithoutSchemas() {
        JsonNode json = JsonMapper.builder().build().readTree(new ConnectConfigExporter(settings()).toJson());
        assertThat(json.get("name").asString()).isEqualTo("coupons");
        JsonNode config = json.get("config");
        assertThat(config.get("connector.class").asString()).isEqualTo("io.debezium.connector.mariadb.MariaDbConnector");
        assertThat(config.get("tasks.max").asString()).isEqualTo("1");
        assertThat(config.get("key.converter").asString()).isEqualTo("org.apache.kafka.connect.json.JsonConverter");
        assertThat(config.get("value.converter.schemas.enable").asString()).isEqualTo("false");
        assertThat(config.get("key.converter.schemas.enable").asString()).isEqualTo("false");
        assertThat(config.get("topic.prefix").asString()).isEqualTo("cdc");
        assertThat(config.get("table.include.list").asString()).isEqualTo("coupon_db\\.coupon,cdc_meta\\.heartbeat");
        assertThat(config.get("topic.creation.default.partitions").asString()).isEqualTo("6");
        assertThat(config.get("skipped.operations").asString()).isEqualTo("none");
        // embedded-only settings do not belong in a Connect connector
        assertThat(config.has("offset.storage")).isFalse();
    }

    @Test
    void exportReferencesThePasswordInsteadOfPrintingIt() {
        String json = new ConnectConfigExporter(settings()).toJson();
        assertThat(json).doesNotContain("s3cret").contains("${env:CDC_CONNECTOR_DATABASE_PASSWORD}");
    }

    @Test
    void exportIsRequestedByTheCommandLineFlag() {
        assertThat(ConnectConfigExporter.requestedBy(new String[] {"--cdc.connector.export-connect-config=true"})).isTrue();
        assertThat(ConnectConfigExporter.requestedBy(new String[] {"--cdc.connector.export-connect-config"})).isTrue();
        assertThat(ConnectConfigExporter.requestedBy(new String[] {"--server.port=0"})).isFalse();
    }
}
