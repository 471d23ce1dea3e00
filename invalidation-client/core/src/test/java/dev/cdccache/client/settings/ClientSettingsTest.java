package dev.cdccache.client.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdccache.client.Evict;
import dev.cdccache.client.InvalidConfigurationException;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.StalenessPolicy;
import dev.cdccache.client.settings.Setting.Scope;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one reader of flat {@code cdc.invalidation.*} settings, and the catalogue it reads by. */
class ClientSettingsTest {

    private static final String P = ClientSettings.PREFIX;

    @Test
    void everySettingOfTheCatalogueReachesTheConfiguration(@TempDir Path dir) throws IOException {
        Path store = Files.createFile(dir.resolve("store.p12"));
        Set<Scope> scopes = EnumSet.allOf(Scope.class);
        InvalidationClientConfig config = ClientSettings.read(EverySetting.examples(scopes, store)).build();
        assertThat(EverySetting.notApplied(config, scopes, store)).isEmpty();
    }

    @Test
    void everyExampleDiffersFromItsDefaultSoThatArrivingMeansSomething() {
        for (Setting<?> setting : ClientSettings.all()) {
            String text = setting.defaultText();
            if (text != null && !setting.family()) {
                assertThat(setting.parse(setting.example())).as(setting.key()).isNotEqualTo(tryParse(setting, text));
            }
        }
    }

    @Test
    void keysAreUniqueAndFoundAgain() {
        Set<String> keys = new HashSet<>();
        for (Setting<?> setting : ClientSettings.all()) {
            assertThat(keys.add(setting.scope() + ":" + setting.key())).as(setting.key()).isTrue();
        }
        assertThat(ClientSettings.find("max-staleness")).contains(ClientSettings.MAX_STALENESS);
        assertThat(ClientSettings.find("caches.coupons.sources[2].key-columns")).contains(ClientSettings.KEY_COLUMNS);
        assertThat(ClientSettings.find("kafka.properties.client.rack")).contains(ClientSettings.KAFKA_PROPERTIES);
        assertThat(ClientSettings.find("caches.[a.b].spec")).contains(ClientSettings.SPEC);
        assertThat(ClientSettings.find("maxStaleness")).as("relaxed names").contains(ClientSettings.MAX_STALENESS);
        assertThat(ClientSettings.find("heartbeat")).isEmpty();
    }

    @Test
    void defaultsAreTheConfigurationBuildersAndDependentOnesAreStatedInWords() {
        assertThat(ClientSettings.MAX_STALENESS.defaultText()).isEqualTo("5s");
        assertThat(ClientSettings.TOPIC_PREFIX.defaultText()).isEqualTo("cdc");
        assertThat(ClientSettings.MAX_MESSAGE_SIZE.defaultText()).isEqualTo("1MB");
        assertThat(ClientSettings.POLL_TIMEOUT.defaultText()).isEqualTo("100ms");
        assertThat(ClientSettings.ON_STALENESS.defaultText()).isEqualTo("bypass-cache");
        assertThat(ClientSettings.SPEC.defaultText()).isEqualTo("maximumSize=10000");
        assertThat(ClientSettings.EVICT.defaultText()).isEqualTo("keys");
        assertThat(ClientSettings.HEALTH_PROBLEM_STATUS.defaultText()).isEqualTo("DOWN");
        assertThat(ClientSettings.STALENESS_CHECK_SLACK.defaultText()).isEqualTo("a quarter of max-staleness");
        assertThat(ClientSettings.BOOTSTRAP_SERVERS.defaultText()).isNull();
        assertThat(ClientSettings.KAFKA_SECURITY_SASL_USERNAME.defaultText()).isNull();
    }

    @Test
    void valuesOfTheirTypeAreTakenAsTheyAreAndTextAsInSpringBoot() {
        InvalidationClientConfig config = ClientSettings.read(Map.of(P + "bootstrap-servers", "k:1",
                P + "max-staleness", Duration.ofMillis(1500), P + "poll-timeout", "50",
                P + "on-staleness", StalenessPolicy.SERVE_STALE, P + "max-message-size", 2048L,
                P + "caches.c.table", "db.t", P + "caches.c.key-columns[1]", "b", P + "caches.c.key-columns[0]", "a",
                P + "caches.d.table", "db.u", P + "caches.d.key-columns", List.of("x", "y"))).build();
        assertThat(config.maxStaleness()).isEqualTo(Duration.ofMillis(1500));
        assertThat(config.pollTimeout()).as("no unit: milliseconds").isEqualTo(Duration.ofMillis(50));
        assertThat(config.stalenessPolicy()).isEqualTo(StalenessPolicy.SERVE_STALE);
        assertThat(config.maxMessageBytes()).isEqualTo(2048);
        assertThat(config.caches()).extracting(c -> c.sources().get(0).keyColumns())
                .containsExactlyInAnyOrder(List.of("a", "b"), List.of("x", "y"));
    }

    @Test
    void keysUnderOtherPrefixesAndNullValuesAreLeftAlone() {
        Map<String, Object> values = new LinkedHashMap<>();
        values.put(P + "bootstrap-servers", "k:1");
        values.put("hibernate.cache.use_second_level_cache", "true");
        values.put("cdc.connector.name", "other");
        values.put(P + "client-id", null);
        assertThat(ClientSettings.read(values).build().clientId()).isEqualTo("cdc-invalidation");
    }

    @Test
    void anUnknownKeyFailsNamingItAndTheSettingItMeant() {
        assertRejected(P + "max-stalenes", "did you mean cdc.invalidation.max-staleness?");
        assertRejected(P + "heartbeat.topc", "did you mean cdc.invalidation.heartbeat.topic?");
        assertRejected(P + "caches.coupons.key-column", "did you mean cdc.invalidation.caches.coupons.key-columns?");
        assertRejected(P + "caches.coupons.sources[0].tabel",
                "did you mean cdc.invalidation.caches.coupons.sources[0].table?");
        assertRejected(P + "kafka.security.sasl.passwd", "did you mean cdc.invalidation.kafka.security.sasl.password?");
        assertRejected(P + "caches.coupons.colour", "valid under cdc.invalidation.caches.coupons. are table, key-columns");
    }

    @Test
    void aValueNotOfItsTypeFailsNamingTheKeyAndTheForm() {
        assertThatThrownBy(() -> ClientSettings.read(Map.of(P + "max-staleness", "soon")))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("cdc.invalidation.max-staleness: must be a duration such as 500ms, 5s or PT5S, was 'soon'");
        assertThatThrownBy(() -> ClientSettings.read(Map.of(P + "caches.c.evict", "some")))
                .hasMessage("cdc.invalidation.caches.c.evict: must be one of keys, all, was 'some'");
        assertThatThrownBy(() -> ClientSettings.read(Map.of(P + "max-message-size", "3GB")))
                .hasMessageStartingWith("cdc.invalidation.max-message-size: must be at most 2GB");
    }

    @Test
    void evictAllWithKeyColumnsIsRejectedByTheOneRuleWhateverTheForm() {
        assertThatThrownBy(() -> ClientSettings.read(Map.of(P + "bootstrap-servers", "k:1", P + "caches.c.table", "db.t",
                P + "caches.c.evict", "all", P + "caches.c.key-columns", "id")).build())
                .isInstanceOfSatisfying(InvalidConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo("caches.c.key-columns"));
        assertThatThrownBy(() -> ClientSettings.read(Map.of(P + "bootstrap-servers", "k:1",
                P + "caches.c.sources[0].table", "db.t", P + "caches.c.sources[0].evict", "all",
                P + "caches.c.sources[0].key-columns", "id")).build())
                .isInstanceOfSatisfying(InvalidConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo("caches.c.sources[0].key-columns"));
        InvalidationClientConfig config = ClientSettings.read(Map.of(P + "bootstrap-servers", "k:1",
                P + "caches.c.table", "db.t", P + "caches.c.evict", "all", P + "caches.c.topic", "re.routed")).build();
        assertThat(config.caches().get(0).sources().get(0).evict()).isEqualTo(Evict.ALL);
        assertThat(config.caches().get(0).sources().get(0).topic("cdc")).isEqualTo("re.routed");
    }

    private static void assertRejected(String key, String problem) {
        assertThatThrownBy(() -> ClientSettings.read(Map.of(key, "x")))
                .isInstanceOfSatisfying(InvalidConfigurationException.class, e -> {
                    assertThat(e.setting()).isEqualTo(key);
                    assertThat(e.problem()).contains(problem);
                });
    }

    private static Object tryParse(Setting<?> setting, String text) {
        try {
            return setting.parse(text);
        } catch (IllegalArgumentException e) {
            return text; // a default stated in words
        }
    }
}
