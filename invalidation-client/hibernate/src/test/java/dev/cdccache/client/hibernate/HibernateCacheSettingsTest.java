package dev.cdccache.client.hibernate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdccache.client.InvalidConfigurationException;
import dev.cdccache.client.StalenessPolicy;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Settings read from Hibernate's configuration values: defaults, parsing, and errors naming the setting. */
class HibernateCacheSettingsTest {

    @Test
    void defaultsNeedOnlyTheBootstrapServers() {
        HibernateCacheSettings settings = new HibernateCacheSettings(Map.of(
                "cdc.invalidation.bootstrap-servers", "kafka:9092"));
        assertThat(settings.topicPrefix).isEqualTo("cdc");
        assertThat(settings.maxStaleness).isEqualTo(Duration.ofSeconds(5));
        assertThat(settings.onStaleness).isEqualTo(StalenessPolicy.BYPASS_CACHE);
        assertThat(settings.specOf("any")).isEqualTo("maximumSize=10000");
        assertThat(settings.clientConfig().build().bootstrapServers()).isEqualTo("kafka:9092");
    }

    @Test
    void valuesAreParsedAndRegionsGetTheirOwnSpec() {
        HibernateCacheSettings settings = new HibernateCacheSettings(Map.of(
                "cdc.invalidation.bootstrap-servers", "kafka:9092",
                "cdc.invalidation.max-staleness", "1500ms",
                "cdc.invalidation.on-staleness", "serve-stale",
                "cdc.invalidation.kafka.properties.security.protocol", "SSL",
                "cdc.invalidation.hibernate.regions.dev.example.Coupon.spec", "maximumSize=5"));
        assertThat(settings.maxStaleness).isEqualTo(Duration.ofMillis(1500));
        assertThat(settings.onStaleness).isEqualTo(StalenessPolicy.SERVE_STALE);
        assertThat(settings.kafkaProperties).containsEntry("security.protocol", "SSL");
        assertThat(settings.specOf("dev.example.Coupon")).isEqualTo("maximumSize=5");
    }

    @Test
    void badValuesFailNamingTheSetting() {
        assertThatThrownBy(() -> new HibernateCacheSettings(Map.of()))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageStartingWith("cdc.invalidation.bootstrap-servers: is required");
        assertThatThrownBy(() -> new HibernateCacheSettings(Map.of("cdc.invalidation.bootstrap-servers", "k:1",
                "cdc.invalidation.max-staleness", "soon")))
                .hasMessageStartingWith("cdc.invalidation.max-staleness: must be a duration");
        assertThatThrownBy(() -> new HibernateCacheSettings(Map.of("cdc.invalidation.bootstrap-servers", "k:1",
                "cdc.invalidation.on-staleness", "ignore")))
                .hasMessageContaining("must be one of bypass-cache, serve-stale");
    }

    @Test
    void aMisspelledSettingFailsStartUpNamingItAndTheSettingItMeant() {
        assertThatThrownBy(() -> new HibernateCacheSettings(Map.of("cdc.invalidation.bootstrap-servers", "k:1",
                "cdc.invalidation.max-stalenes", "1s")))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("cdc.invalidation.max-stalenes: is not a setting of the CDC second-level cache; "
                        + "did you mean cdc.invalidation.max-staleness?");
        assertThatThrownBy(() -> new HibernateCacheSettings(Map.of("cdc.invalidation.bootstrap-servers", "k:1",
                "cdc.invalidation.topic-prefx", "shop")))
                .hasMessageContaining("did you mean cdc.invalidation.topic-prefix?");
        // This module's own namespace: anything unknown fails, near miss or not.
        assertThatThrownBy(() -> new HibernateCacheSettings(Map.of("cdc.invalidation.bootstrap-servers", "k:1",
                "cdc.invalidation.hibernate.region-size", "5")))
                .hasMessageStartingWith("cdc.invalidation.hibernate.region-size: is not a setting")
                .hasMessageContaining("cdc.invalidation.hibernate.regions.<region>.spec");
        assertThatThrownBy(() -> new HibernateCacheSettings(Map.of("cdc.invalidation.bootstrap-servers", "k:1",
                "cdc.invalidation.hibernate.regions.dev.example.Coupon.spce", "maximumSize=5")))
                .hasMessageContaining("<region name>.spec");
    }

    @Test
    void settingsOfTheSpringStarterUnderTheSamePrefixAreLeftToIt() {
        // Hibernate also sees system properties: -Dcdc.invalidation.caches.x.table=... is the starter's.
        HibernateCacheSettings settings = new HibernateCacheSettings(Map.of("cdc.invalidation.bootstrap-servers", "k:1",
                "cdc.invalidation.caches.coupons.table", "shop.coupon",
                "cdc.invalidation.require-topics", "true",
                "cdc.invalidation.kafka.properties.fetch.max.wait.ms", "100"));
        assertThat(settings.kafkaProperties).containsEntry("fetch.max.wait.ms", "100");
    }
}
