package dev.cdccache.client.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.KeyType;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.core.io.support.SpringFactoriesLoader;

/**
 * Binding of {@code cdc.invalidation.*} is strict. A misspelled key used to bind nothing and leave the
 * default in force silently (a misspelled {@code topic-prefix} reads topics nobody writes; a misspelled
 * {@code max-staleness} keeps 5 s); now start-up fails naming the key and the closest valid one.
 */
class StrictSettingsTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CdcInvalidationAutoConfiguration.class))
            .withPropertyValues(
                    "cdc.invalidation.bootstrap-servers=127.0.0.1:1",
                    "cdc.invalidation.await-ready=0s",
                    "cdc.invalidation.caches.coupons.table=coupon_db.coupon",
                    "cdc.invalidation.caches.coupons.key-columns=id");

    @Test
    void aMisspelledTopLevelSettingFailsStartUpNamingItAndTheClosestValidOne() {
        assertStartUpFails("cdc.invalidation.max-stalenes=30s",
                "Unknown setting 'cdc.invalidation.max-stalenes'", "Did you mean 'cdc.invalidation.max-staleness'?");
        assertStartUpFails("cdc.invalidation.topic-prefx=prod",
                "Unknown setting 'cdc.invalidation.topic-prefx'", "Did you mean 'cdc.invalidation.topic-prefix'?");
    }

    @Test
    void aMisspelledSettingInsideACacheEntryFailsStartUpNamingItAndTheClosestValidOne() {
        assertStartUpFails("cdc.invalidation.caches.coupons.key-column=code",
                "Unknown setting 'cdc.invalidation.caches.coupons.key-column'",
                "Did you mean 'cdc.invalidation.caches.coupons.key-columns'?");
        assertStartUpFails("cdc.invalidation.caches.coupons.sources[0].tabel=coupon_db.coupon",
                "Unknown setting 'cdc.invalidation.caches.coupons.sources[0].tabel'",
                "Did you mean 'cdc.invalidation.caches.coupons.sources[0].table'?");
    }

    @Test
    void aMisspelledNestedGroupSettingFailsStartUp() {
        assertStartUpFails("cdc.invalidation.heartbeat.topc=cdc.meta",
                "Unknown setting 'cdc.invalidation.heartbeat.topc'", "Did you mean 'cdc.invalidation.heartbeat.topic'?");
    }

    @Test
    void aKeyFarFromEveryValidOneListsTheValidSettingsInstead() {
        FailureAnalysis analysis = failedStartUp("cdc.invalidation.caches.coupons.colour=blue");
        assertThat(analysis.getDescription()).contains("Unknown setting 'cdc.invalidation.caches.coupons.colour'")
                .contains("Valid settings under 'cdc.invalidation.caches.coupons' are:").contains("key-columns")
                .contains("key-type").doesNotContain("Did you mean");
    }

    @Test
    void kafkaPropertiesAndRelaxedNamesStillBind() {
        runner.withPropertyValues("cdc.invalidation.kafka.properties.security.protocol=PLAINTEXT",
                "cdc.invalidation.maxStaleness=7s", "cdc.invalidation.caches.coupons.keyType=long")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    InvalidationClientConfig config = context.getBean(InvalidationClient.class).config();
                    assertThat(config.kafkaProperties()).containsEntry("security.protocol", "PLAINTEXT");
                    assertThat(config.maxStaleness()).hasSeconds(7);
                    assertThat(config.caches().get(0).keyType()).isEqualTo(KeyType.LONG);
                });
    }

    private void assertStartUpFails(String setting, String... expected) {
        FailureAnalysis analysis = failedStartUp(setting);
        assertThat(analysis.getDescription()).contains(expected);
        assertThat(analysis.getAction()).contains("Rename '" + setting.substring(0, setting.indexOf('=')) + "'");
    }

    /** The analysis Spring Boot prints: the first registered analyzer (in order) that answers. */
    private FailureAnalysis failedStartUp(String setting) {
        FailureAnalysis[] result = new FailureAnalysis[1];
        runner.withPropertyValues(setting).run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            assertThat(CdcInvalidationAutoConfigurationTest.findCause(failure,
                    UnboundConfigurationPropertiesException.class)).isNotNull();
            // Analyzers needing the bean factory are skipped: none of them handles unbound properties.
            List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation()
                    .load(FailureAnalyzer.class, null, SpringFactoriesLoader.FailureHandler.handleMessage((m, e) -> { }));
            assertThat(analyzers).anyMatch(a -> a.getClass().getSimpleName().equals(
                    "UnboundConfigurationPropertyFailureAnalyzer")); // Boot's generic one is there, and ours wins
            AnnotationAwareOrderComparator.sort(analyzers);
            result[0] = analyzers.stream().map(analyzer -> analyzer.analyze(failure)).filter(Objects::nonNull)
                    .findFirst().orElseThrow();
        });
        return result[0];
    }
}
