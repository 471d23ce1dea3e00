package dev.cdccache.client.hibernate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdccache.client.InvalidConfigurationException;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.StalenessPolicy;
import dev.cdccache.client.settings.ClientSettings;
import dev.cdccache.client.settings.EverySetting;
import dev.cdccache.client.settings.Setting.Scope;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Settings read from Hibernate's configuration values: defaults, parsing, and errors naming the setting. */
class HibernateCacheSettingsTest {

    private static final Path JDK_TRUSTSTORE = Path.of(System.getProperty("java.home"), "lib", "security", "cacerts");

    /**
     * Every client-wide setting of the core's catalogue, each at its example value, reaches the second-level
     * cache's client: the list comes from the catalogue, so a setting added there that this module does not pass
     * on fails here. The starter's switch ({@code enabled}) is accepted and has no effect here.
     */
    @Test
    void everyClientSettingOfTheCatalogueReachesTheClient() {
        Set<Scope> scopes = EnumSet.of(Scope.CLIENT, Scope.FRONT_END);
        Map<String, Object> values = new HashMap<>(EverySetting.examples(scopes, JDK_TRUSTSTORE));
        values.put("hibernate.cache.use_second_level_cache", "true");
        HibernateCacheSettings settings = new HibernateCacheSettings(values);
        assertThat(EverySetting.notApplied(settings.client, scopes, JDK_TRUSTSTORE)).isEmpty();
        assertThat(EverySetting.notApplied(settings.clientConfig().build(), scopes, JDK_TRUSTSTORE)).isEmpty();
    }

    @Test
    void defaultsNeedOnlyTheBootstrapServersAndAreTheClientsOwn() {
        HibernateCacheSettings settings = new HibernateCacheSettings(Map.of(
                "cdc.invalidation.bootstrap-servers", "kafka:9092"));
        InvalidationClientConfig defaults = InvalidationClientConfig.builder().bootstrapServers("kafka:9092").build();
        assertThat(settings.client.topicPrefix()).isEqualTo(defaults.topicPrefix()).isEqualTo("cdc");
        assertThat(settings.client.maxStaleness()).isEqualTo(defaults.maxStaleness());
        assertThat(settings.client.clientId()).isEqualTo(defaults.clientId());
        assertThat(settings.client.awaitReady()).isEqualTo(Duration.ofSeconds(10));
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
        assertThat(settings.client.maxStaleness()).isEqualTo(Duration.ofMillis(1500));
        assertThat(settings.client.stalenessPolicy()).isEqualTo(StalenessPolicy.SERVE_STALE);
        assertThat(settings.client.kafkaProperties()).containsEntry("security.protocol", "SSL");
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
        assertThatThrownBy(() -> new HibernateCacheSettings(Map.of("cdc.invalidation.bootstrap-servers", "k:1",
                "cdc.invalidation.max-staleness", "100ms")))
                .as("a rule of the configuration, named in full")
                .hasMessageStartingWith("cdc.invalidation.position-check-interval: must be shorter than max-staleness");
    }

    @Test
    void aMisspelledSettingFailsStartUpNamingItAndTheSettingItMeant() {
        assertThatThrownBy(() -> new HibernateCacheSettings(Map.of("cdc.invalidation.bootstrap-servers", "k:1",
                "cdc.invalidation.max-stalenes", "1s")))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("cdc.invalidation.max-stalenes: is not a setting of the invalidation client; "
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
    void theStartersCacheDefinitionsAreLeftToItAndEveryOtherClientSettingIsRead() {
        // A service hands over all of its cdc.invalidation.* settings; its caches are the starter's, not the roles.
        HibernateCacheSettings settings = new HibernateCacheSettings(Map.of("cdc.invalidation.bootstrap-servers", "k:1",
                "cdc.invalidation.caches.coupons.table", "shop.coupon",
                "cdc.invalidation.enabled", "false",
                "cdc.invalidation.require-topics", "false",
                "cdc.invalidation.kafka.properties.fetch.max.wait.ms", "100"));
        assertThat(settings.client.kafkaProperties()).containsEntry("fetch.max.wait.ms", "100");
        assertThat(settings.client.requireTopics()).isFalse();
        assertThat(settings.clientConfig().build().caches()).isEmpty();
        assertThat(ClientSettings.find("caches.coupons.table")).isPresent();
    }
}
