package dev.cdccache.connector.startup;

import static dev.cdccache.connector.config.ConnectorProperties.Flavor.MARIADB;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.cdccache.connector.config.ConnectorProperties;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code cdc.connector.debezium.*} accepts tuning and refuses, naming the setting and the reason, what breaks the contract. */
class DebeziumOverrideCheckTest {

    private static StartupCheckException refused(String property, String value) {
        StartupCheckException failure = catchThrowableOfType(StartupCheckException.class,
                () -> DebeziumOverrideCheck.verify(Map.of(property, value), MARIADB));
        assertThat(failure).as("%s=%s must be refused", property, value).isNotNull();
        assertThat(failure.getMessage()).contains("cdc.connector.debezium." + property);
        assertThat(failure.fix()).contains("Remove them");
        return failure;
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "skipped.operations|t|every operation, TRUNCATE included",
            "tombstones.on.delete|false|every delete with a tombstone",
            "include.schema.changes|true|schema history topic",
            "decimal.handling.mode|precise|keys clients derive",
            "event.processing.failure.handling.mode|warn|drops an event",
            "event.processing.failure.handling.mode|skip|drops an event",
            "event.deserialization.failure.handling.mode|ignore|drops an event",
            "inconsistent.schema.handling.mode|skip|drops an event"})
    void settingsTheEventContractFixesAreRefused(String property, String value, String reason) {
        assertThat(refused(property, value).getMessage()).contains(reason);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"table.include.list", "table.exclude.list", "database.include.list", "database.exclude.list"})
    void captureFiltersAreRefusedInFavourOfTheTablesSetting(String property) {
        assertThat(refused(property, "shop\\..*").getMessage()).contains("set cdc.connector.tables instead")
                .contains("heartbeats vouch for it");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"column.include.list", "column.exclude.list"})
    void columnFiltersAreRefusedInFavourOfTheColumnsSettings(String property) {
        assertThat(refused(property, "shop.coupon.title").getMessage()).contains("cdc.connector.columns.");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"converters", "converters.boolean.type", "transforms", "transforms.route.type",
            "predicates.isTombstone.type", "post.processors"})
    void convertersAndTransformsThatRewriteRecordsAreRefused(String property) {
        assertThat(refused(property, "x").getMessage()).contains("rewrites, renames or drops records");
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "exactly.once.support|requested|requires exactly-once delivery with one transaction per poll",
            "transaction.boundary|interval|requires exactly-once delivery with one transaction per poll",
            "transaction.boundary.interval.ms|60000|requires exactly-once delivery with one transaction per poll",
            "producer.override.transactional.id|x|could turn off the transactions",
            "producer.override.enable.idempotence|false|could turn off the transactions"})
    void settingsThatWouldLetHeartbeatsOvertakeChangesOnKafkaConnectAreRefused(String property, String value,
            String reason) {
        assertThat(refused(property, value).getMessage()).contains(reason);
    }

    /** Topic, key and value format, and what the connector derives from its own typed settings. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "topic.prefix|set cdc.connector.topic-prefix instead",
            "topic.naming.strategy|<topic-prefix>.<database>.<table>",
            "message.key.columns|changes the record key",
            "value.converter|JSON without schemas",
            "binary.handling.mode|keys clients derive",
            "poll.interval.ms|cdc.connector.poll-interval",
            "snapshot.mode|cdc.connector.snapshot-mode",
            "heartbeat.interval.ms|cdc.connector.heartbeat.interval",
            "database.hostname|cdc.connector.database.*",
            "schema.history.internal.kafka.topic|cdc.connector.name"})
    void settingsThatMoveOrRekeyRecordsOrThatTheConnectorDerivesAreRefused(String property, String reason) {
        assertThat(refused(property, "1").getMessage()).contains(reason);
    }

    @Test
    void aSettingNotOnTheAllowListIsRefusedEvenIfNobodyThoughtOfIt() {
        assertThat(refused("some.future.setting", "on").getMessage())
                .contains("not a setting that only tunes speed, timeouts, retries or snapshots");
    }

    @Test
    void everyRefusedSettingIsNamedInOneMessage() {
        Map<String, String> overrides = new LinkedHashMap<>();
        overrides.put("skipped.operations", "t");
        overrides.put("snapshot.fetch.size", "1000");
        overrides.put("table.include.list", "x");
        StartupCheckException failure = catchThrowableOfType(StartupCheckException.class, () -> DebeziumOverrideCheck.verify(overrides, MARIADB));

        assertThat(failure.getMessage()).contains("cdc.connector.debezium.skipped.operations")
                .contains("cdc.connector.debezium.table.include.list").doesNotContain("snapshot.fetch.size");
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource({"snapshot.fetch.size,1", "snapshot.max.threads,1", "snapshot.locking.mode,minimal", "errors.max.retries,1",
            "errors.retry.delay.max.ms,1", "connect.timeout.ms,1", "max.queue.size.in.bytes,1", "custom.metric.tags,k=v",
            "database.ssl.mode,verify-full", "database.ssl.truststore,/etc/ssl/truststore.jks", "driver.connectTimeout,1",
            "schema.history.internal.kafka.recovery.attempts,1"})
    void tuningSettingsStayAllowed(String property, String value) {
        assertThatCode(() -> DebeziumOverrideCheck.verify(Map.of(property, value), MARIADB)).doesNotThrowAnyException();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"column.mask.with.8.chars", "column.mask.hash.SHA-256.with.salt.pepper",
            "column.mask.hash.v2.SHA-256.with.salt.pepper", "column.truncate.to.20.chars"})
    void columnRewritesPassThisCheckAndAreLeftToTheKeyColumnCheck(String property) {
        assertThat(DebeziumOverrideCheck.isColumnTransform(property)).isTrue();
        assertThatCode(() -> DebeziumOverrideCheck.verify(Map.of(property, "shop.coupon.title"), MARIADB)).doesNotThrowAnyException();
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource({"max.queue.size.in.bytes,64MB,long value is expected", "snapshot.locking.mode,1,minimal",
            "connect.timeout.ms,30s,integer is expected", "database.ssl.mode,on,verify-full"})
    void aValueDebeziumWouldRefuseWhenItsTaskStartsIsRefusedAtStartUp(String property, String value, String said) {
        StartupCheckException failure = catchThrowableOfType(StartupCheckException.class,
                () -> DebeziumOverrideCheck.verify(Map.of(property, value), MARIADB));

        assertThat(failure).as("%s=%s must be refused at start-up", property, value).isNotNull();
        assertThat(failure.getMessage()).contains("cdc.connector.debezium." + property + "=" + value).contains(said);
        assertThat(failure.fix()).startsWith("Correct them");
    }

    @Test
    void valuesAreCheckedAgainstTheFlavorTheConnectorReads() {
        // MySQL's TLS modes are not MariaDB's: each flavor accepts its own and refuses the other's
        assertThatCode(() -> DebeziumOverrideCheck.verify(Map.of("database.ssl.mode", "required"),
                ConnectorProperties.Flavor.MYSQL)).doesNotThrowAnyException();
        assertThat(catchThrowableOfType(StartupCheckException.class, () -> DebeziumOverrideCheck.verify(
                Map.of("database.ssl.mode", "required"), ConnectorProperties.Flavor.MARIADB)).getMessage())
                .contains("cdc.connector.debezium.database.ssl.mode=required");
        assertThat(catchThrowableOfType(StartupCheckException.class, () -> DebeziumOverrideCheck.verify(
                Map.of("database.ssl.mode", "verify-full"), ConnectorProperties.Flavor.MYSQL)).getMessage())
                .contains("cdc.connector.debezium.database.ssl.mode=verify-full");
    }

    @Test
    void everyRefusedValueIsNamedInOneMessage() {
        StartupCheckException failure = catchThrowableOfType(StartupCheckException.class, () -> DebeziumOverrideCheck.verify(
                Map.of("max.queue.size.in.bytes", "64MB", "connect.timeout.ms", "30s", "snapshot.fetch.size", "1000"), MARIADB));

        assertThat(failure.getMessage()).contains("max.queue.size.in.bytes=64MB").contains("connect.timeout.ms=30s")
                .doesNotContain("snapshot.fetch.size");
    }

    @Test
    void wellFormedTuningValuesPass() {
        assertThatCode(() -> DebeziumOverrideCheck.verify(Map.of("max.queue.size.in.bytes", "67108864",
                "connect.timeout.ms", "30000", "snapshot.fetch.size", "1000"), MARIADB)).doesNotThrowAnyException();
    }
}
