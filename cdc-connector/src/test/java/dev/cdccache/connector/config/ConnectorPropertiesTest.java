package dev.cdccache.connector.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.support.SpringFactoriesLoader;

class ConnectorPropertiesTest {

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(ConnectorProperties.class)
    static class Binding {
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withUserConfiguration(Binding.class)
            .withPropertyValues(
                    "cdc.connector.database.host=db.internal",
                    "cdc.connector.database.user=cdc",
                    "cdc.connector.database.password=s3cret",
                    "cdc.connector.tables[0]=coupon_db.coupon",
                    "cdc.connector.kafka.bootstrap-servers=kafka:9092");

    @Test
    void bindsTheDocumentedSettingsWithLatencyTunedDefaults() {
        runner.withPropertyValues("cdc.connector.database.flavor=mysql", "cdc.connector.kafka.properties.security.protocol=SASL_SSL",
                "cdc.connector.heartbeat.interval=2s", "cdc.connector.offsets.store=file")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    ConnectorProperties p = context.getBean(ConnectorProperties.class);
                    assertThat(p.getDatabase().getFlavor()).isEqualTo(ConnectorProperties.Flavor.MYSQL);
                    assertThat(p.getKafka().getProperties()).containsEntry("security.protocol", "SASL_SSL");
                    assertThat(p.getHeartbeat().getInterval()).isEqualTo(Duration.ofSeconds(2));
                    assertThat(p.getOffsets().getStore()).isEqualTo(ConnectorProperties.OffsetStore.FILE);
                    assertThat(p.getPollInterval()).isEqualTo(Duration.ofSeconds(1)); // paces an idle engine only
                    assertThat(p.getTopicPartitions()).isEqualTo(3);
                    assertThat(p.getSnapshotMode()).isEqualTo("no_data");
                });
    }

    @Test
    void withoutAPrimaryTheHeartbeatIsWrittenWhereTheBinlogIsRead() {
        runner.run(context -> {
            ConnectorProperties p = context.getBean(ConnectorProperties.class);
            assertThat(p.getHeartbeat().getPrimary().isConfigured()).isFalse();
            assertThat(p.heartbeatDatabase()).isSameAs(p.getDatabase());
            assertThat(p.heartbeatDatabaseSettings()).isEqualTo("cdc.connector.database");
        });
    }

    @Test
    void aPrimaryTakesTheConnectorsCredentialsUnlessItHasItsOwnAndNeverShowsAPassword() {
        runner.withPropertyValues("cdc.connector.database.flavor=mysql", "cdc.connector.heartbeat.primary.host=db-primary")
                .run(context -> {
                    ConnectorProperties p = context.getBean(ConnectorProperties.class);
                    ConnectorProperties.Database primary = p.heartbeatDatabase();
                    assertThat(primary.getHost()).isEqualTo("db-primary");
                    assertThat(primary.getPort()).isEqualTo(3306);
                    assertThat(primary.getUser()).isEqualTo("cdc");
                    assertThat(primary.getPassword()).isEqualTo("s3cret");
                    assertThat(primary.getFlavor()).isEqualTo(ConnectorProperties.Flavor.MYSQL);
                    assertThat(p.heartbeatDatabaseSettings()).isEqualTo("cdc.connector.heartbeat.primary");
                });
        runner.withPropertyValues("cdc.connector.heartbeat.primary.host=db-primary", "cdc.connector.heartbeat.primary.port=3307",
                "cdc.connector.heartbeat.primary.user=beat", "cdc.connector.heartbeat.primary.password=other-secret")
                .run(context -> {
                    ConnectorProperties p = context.getBean(ConnectorProperties.class);
                    assertThat(p.heartbeatDatabase().getUser()).isEqualTo("beat");
                    assertThat(p.heartbeatDatabase().getPassword()).isEqualTo("other-secret");
                    assertThat(p.heartbeatDatabase().getPort()).isEqualTo(3307);
                    assertThat(p.toString()).contains("db-primary").doesNotContain("other-secret").doesNotContain("s3cret");
                });
    }

    @Test
    void aPrimaryUserWithoutItsPasswordIsRejected() {
        runner.withPropertyValues("cdc.connector.heartbeat.primary.host=db-primary", "cdc.connector.heartbeat.primary.user=beat")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(analysisOf(context.getStartupFailure())).contains("cdc.connector.heartbeat.primary.password");
                });
    }

    @Test
    void primaryCredentialsWithoutAHostAreRejected() {
        runner.withPropertyValues("cdc.connector.heartbeat.primary.user=beat", "cdc.connector.heartbeat.primary.password=x")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(analysisOf(context.getStartupFailure())).contains("cdc.connector.heartbeat.primary.host");
                });
    }

    @Test
    void unknownSettingFailsStartUpNamingTheSetting() {
        runner.withPropertyValues("cdc.connector.topic-partitons=6").run(context -> {
            assertThat(context).hasFailed();
            assertThat(analysisOf(context.getStartupFailure())).contains("cdc.connector.topic-partitons");
        });
    }

    @Test
    void missingRequiredSettingFailsStartUpNamingTheSetting() {
        new ApplicationContextRunner().withUserConfiguration(Binding.class)
                .withPropertyValues("cdc.connector.database.user=cdc", "cdc.connector.database.password=x",
                        "cdc.connector.tables[0]=coupon_db.coupon", "cdc.connector.kafka.bootstrap-servers=kafka:9092")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(analysisOf(context.getStartupFailure())).contains("cdc.connector.database.host");
                });
    }

    @Test
    void tableWithoutDatabaseIsRejectedNamingTheSetting() {
        runner.withPropertyValues("cdc.connector.tables[0]=coupon").run(context -> {
            assertThat(context).hasFailed();
            assertThat(analysisOf(context.getStartupFailure())).contains("cdc.connector.tables[0]").contains("database.table");
        });
    }

    @Test
    void emptyCaptureListIsRejected() {
        new ApplicationContextRunner().withUserConfiguration(Binding.class)
                .withPropertyValues("cdc.connector.database.host=h", "cdc.connector.database.user=cdc",
                        "cdc.connector.database.password=x", "cdc.connector.kafka.bootstrap-servers=kafka:9092")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(analysisOf(context.getStartupFailure())).contains("cdc.connector.tables");
                });
    }

    @Test
    void passwordNeverAppearsInTheSettingsDump() {
        runner.run(context -> assertThat(context.getBean(ConnectorProperties.class).toString())
                .contains("db.internal").doesNotContain("s3cret"));
    }

    /** What Spring Boot prints when start-up fails: the first failure analysis that applies. */
    private static String analysisOf(Throwable failure) {
        SpringFactoriesLoader.ArgumentResolver arguments = SpringFactoriesLoader.ArgumentResolver
                .of(BeanFactory.class, new DefaultListableBeanFactory())
                .and(Environment.class, new StandardEnvironment());
        for (FailureAnalyzer analyzer : SpringFactoriesLoader.forDefaultResourceLocation().load(FailureAnalyzer.class, arguments)) {
            FailureAnalysis analysis = analyzer.analyze(failure);
            if (analysis != null) {
                return analysis.getDescription() + "\n" + analysis.getAction();
            }
        }
        return String.valueOf(failure);
    }

    @Test
    void saslProtocolWithoutCredentialsFailsNamingTheSettings() {
        runner.withPropertyValues("cdc.connector.kafka.security.protocol=SASL_SSL").run(context -> {
            assertThat(context).hasFailed();
            assertThat(analysisOf(context.getStartupFailure())).contains("cdc.connector.kafka.security.sasl.username")
                    .contains("cdc.connector.kafka.security.sasl.password");
        });
    }

    @Test
    void credentialsWithoutSaslProtocolFailInsteadOfBeingIgnored() {
        runner.withPropertyValues("cdc.connector.kafka.security.sasl.username=cdc",
                "cdc.connector.kafka.security.sasl.password=pw").run(context -> {
            assertThat(context).hasFailed();
            assertThat(analysisOf(context.getStartupFailure())).contains("set cdc.connector.kafka.security.protocol");
        });
    }

    @Test
    void plainMechanismWithoutTlsIsRejected() {
        runner.withPropertyValues("cdc.connector.kafka.security.protocol=SASL_PLAINTEXT",
                "cdc.connector.kafka.security.sasl.mechanism=PLAIN", "cdc.connector.kafka.security.sasl.username=cdc",
                "cdc.connector.kafka.security.sasl.password=pw").run(context -> {
            assertThat(context).hasFailed();
            assertThat(analysisOf(context.getStartupFailure())).contains("PLAIN sends the password in clear");
        });
    }

    @Test
    void missingTrustStoreFailsAtStartUp() {
        runner.withPropertyValues("cdc.connector.kafka.security.protocol=SSL",
                "cdc.connector.kafka.security.ssl.truststore-location=/nonexistent/truststore.p12").run(context -> {
            assertThat(context).hasFailed();
            assertThat(analysisOf(context.getStartupFailure())).contains("does not exist or is not readable");
        });
    }

    @Test
    void securityPropertyRepeatedAsRawPropertyIsAmbiguous() {
        runner.withPropertyValues("cdc.connector.kafka.security.protocol=SASL_PLAINTEXT",
                "cdc.connector.kafka.security.sasl.username=cdc", "cdc.connector.kafka.security.sasl.password=pw",
                "cdc.connector.kafka.properties.security.protocol=PLAINTEXT").run(context -> {
            assertThat(context).hasFailed();
            assertThat(analysisOf(context.getStartupFailure())).contains("set both under cdc.connector.kafka.security");
        });
    }

    @Test
    void scramSettingsBindTyped() {
        runner.withPropertyValues("cdc.connector.kafka.security.protocol=sasl_ssl",
                "cdc.connector.kafka.security.sasl.mechanism=scram-sha-256", "cdc.connector.kafka.security.sasl.username=cdc",
                "cdc.connector.kafka.security.sasl.password=pw",
                "cdc.connector.kafka.security.ssl.endpoint-identification-algorithm=").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(ConnectorProperties.class).getKafka().clientProperties())
                    .containsEntry("security.protocol", "SASL_SSL").containsEntry("sasl.mechanism", "SCRAM-SHA-256")
                    .containsEntry("ssl.endpoint.identification.algorithm", "");
        });
    }

    @Test
    void columnOfATableThatIsNotCapturedIsRejected() {
        runner.withPropertyValues("cdc.connector.columns.include[0]=coupon_db.copon.id").run(context -> {
            assertThat(context).hasFailed();
            assertThat(analysisOf(context.getStartupFailure())).contains("database.table.column of a table in cdc.connector.tables");
        });
    }

    @Test
    void largeTransactionsAreCoalescedAfterTenThousandRowsUnlessATableSaysOtherwise() {
        runner.run(context -> {
            ConnectorProperties.LargeTransactions large = context.getBean(ConnectorProperties.class).getLargeTransactions();
            assertThat(large.defaultThreshold()).isEqualTo(10_000);
            assertThat(large.isConfigured()).as("nothing set: the Kafka Connect export is not refused").isFalse();
        });
        runner.withPropertyValues("cdc.connector.tables[1]=coupon_db.place",
                "cdc.connector.large-transactions.evict-table-after-rows=0",
                "cdc.connector.large-transactions.tables.coupon_db.coupon=500",
                "cdc.connector.large-transactions.tables[Coupon_DB.Place]=7")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    ConnectorProperties.LargeTransactions large =
                            context.getBean(ConnectorProperties.class).getLargeTransactions();
                    assertThat(large.defaultThreshold()).isZero();
                    assertThat(large.tableThresholds()).containsEntry("coupon_db.coupon", 500)
                            .containsEntry("coupon_db.place", 7).hasSize(2);
                    assertThat(large.isConfigured()).as("a table coalesces").isTrue();
                });
        runner.withPropertyValues("cdc.connector.large-transactions.evict-table-after-rows=0")
                .run(context -> assertThat(context.getBean(ConnectorProperties.class).getLargeTransactions()
                        .isConfigured()).as("0 is what Kafka Connect does anyway").isFalse());
    }

    @Test
    void aLargeTransactionThresholdMustBeANumberOfRowsOfACapturedTable() {
        runner.withPropertyValues("cdc.connector.large-transactions.evict-table-after-rows=-1")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("largeTransactions.evictTableAfterRows")
                        .hasMessageContaining("must be 0 (never) or a number of rows"));
        runner.withPropertyValues("cdc.connector.large-transactions.evict-table-after-rows=many")
                .run(context -> assertThat(context).hasFailed());
        runner.withPropertyValues("cdc.connector.large-transactions.tables.coupon_db.copon=5")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("every key of cdc.connector.large-transactions.tables must be a table of"
                                + " cdc.connector.tables"));
        runner.withPropertyValues("cdc.connector.large-transactions.tables.coupon_db.coupon=-3")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("must be 0 (never) or a number of rows"));
    }
}
