package dev.cdccache.connector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.infra.process.JavaProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@code java -jar cdc-connector-exec.jar --cdc.connector.export-connect-config=true} prints the Connect JSON and exits 0. */
class ConnectConfigExportIT {

    /** Starts the exec jar's export against hosts that do not exist (nothing connects), with {@code args} added. */
    private static JavaProcess export(Path output, String... args) {
        JavaProcess.Builder builder = JavaProcess.builder("connector-export").jar(ExecJar.path()).logFile(output)
                .jvmArg("-XX:TieredStopAtLevel=1")
                .arg("--cdc.connector.export-connect-config=true")
                .arg("--cdc.connector.database.host=db.internal")
                .arg("--cdc.connector.database.user=cdc")
                .arg("--cdc.connector.database.password=s3cret")
                .arg("--cdc.connector.kafka.bootstrap-servers=kafka.internal:9092");
        for (String arg : args) {
            builder.arg(arg);
        }
        return builder.start();
    }

    @Test
    void runnableJarPrintsTheKafkaConnectConnectorAndExits(@TempDir Path dir) throws Exception {
        JavaProcess process = export(dir.resolve("export.json"), "--cdc.connector.name=coupons",
                "--cdc.connector.tables=coupon_db.coupon,coupon_db.coupon_attribute");

        assertThat(process.waitFor(Duration.ofSeconds(60))).isZero();
        String output = Files.readString(process.logFile());
        assertThat(output).doesNotContain("s3cret");
        JsonNode json = JsonMapper.builder().build().readTree(output);
        assertThat(json.path("name").asString()).isEqualTo("coupons");
        assertThat(json.path("config").path("connector.class").asString()).isEqualTo("io.debezium.connector.mariadb.MariaDbConnector");
        assertThat(json.path("config").path("table.include.list").asString())
                .isEqualTo("coupon_db\\.coupon,coupon_db\\.coupon_attribute,cdc_meta\\.heartbeat");
        assertThat(json.path("config").path("database.password").asString()).isEqualTo("${env:CDC_CONNECTOR_DATABASE_PASSWORD}");
        assertThat(json.path("config").path("topic.creation.default.cleanup.policy").asString()).isEqualTo("delete");
    }

    @Test
    void theExportRefusesADebeziumOverrideThatBreaksTheContract(@TempDir Path dir) throws Exception {
        JavaProcess process = export(dir.resolve("export.log"), "--cdc.connector.tables=coupon_db.coupon",
                "--cdc.connector.debezium.transforms=unwrap",
                "--cdc.connector.debezium.transforms.unwrap.type=io.debezium.transforms.ExtractNewRecordState");

        assertThat(process.waitFor(Duration.ofSeconds(60))).isEqualTo(1);
        String output = Files.readString(process.logFile());
        assertThat(output).contains("cdc.connector.debezium.transforms (it rewrites, renames or drops records")
                .contains("cdc.connector.debezium.transforms.unwrap.type").doesNotContain("\"connector.class\"");
    }
}
