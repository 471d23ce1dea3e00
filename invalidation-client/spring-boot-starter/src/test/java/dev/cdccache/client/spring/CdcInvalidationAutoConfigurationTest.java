package dev.cdccache.client.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.InvalidConfigurationException;
import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.KeyType;
import dev.cdccache.client.settings.ClientSettings;
import dev.cdccache.client.settings.EverySetting;
import dev.cdccache.client.settings.Setting;
import dev.cdccache.client.spring.health.CdcInvalidationHealthIndicator;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.CacheManager;
import org.springframework.cache.concurrent.ConcurrentMapCacheManager;
import org.springframework.cache.interceptor.SimpleKey;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class CdcInvalidationAutoConfigurationTest {

    /** The JDK's own trust store: a readable store file for the trust and key store settings. */
    private static final Path JDK_TRUSTSTORE = Path.of(System.getProperty("java.home"), "lib", "security", "cacerts");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CdcInvalidationAutoConfiguration.class))
            .withPropertyValues(
                    "cdc.invalidation.bootstrap-servers=127.0.0.1:1",
                    "cdc.invalidation.await-ready=0s",
                    "cdc.invalidation.caches.coupons.table=coupon_db.coupon",
                    "cdc.invalidation.caches.coupons.key-columns=id",
                    "cdc.invalidation.caches.coupons.spec=maximumSize=100000",
                    "cdc.invalidation.caches.couponStats.table=coupon_db.coupon",
                    "cdc.invalidation.caches.couponStats.evict=all");

    @Test
    void createsTheClientItsCacheManagerLifecycleAndHealthIndicator() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(InvalidationClient.class);
            assertThat(context).hasSingleBean(CdcCacheManager.class);
            assertThat(context).hasSingleBean(InvalidationClientLifecycle.class);
            assertThat(context).hasSingleBean(CdcInvalidationHealthIndicator.class);
            CacheManager cacheManager = context.getBean(CacheManager.class);
            assertThat(cacheManager).isInstanceOf(CdcCacheManager.class);
            assertThat(cacheManager.getCacheNames()).containsExactly("coupons", "couponStats");
            assertThat(cacheManager.getCache("unknown")).isNull();
            InvalidatingCache<Long, String> coupons = context.getBean(CdcCacheManager.class).invalidatingCache("coupons");
            assertThat(coupons.name()).isEqualTo("coupons");
            assertThat(context.getBean(InvalidationClient.class).config().requireTopics())
                    .as("a topic nobody writes is not fresh by default").isTrue();
        });
    }

    /**
     * Every setting of the core's catalogue, each at its example value, reaches the client's configuration through
     * the starter: binding, the properties record and the core's reader. The list comes from the catalogue, so a
     * setting added there but not bindable here fails this test.
     */
    @Test
    void everySettingOfTheCatalogueReachesTheClient() {
        Set<Setting.Scope> scopes = EnumSet.of(Setting.Scope.CLIENT, Setting.Scope.CACHE, Setting.Scope.SOURCE);
        String[] properties = EverySetting.examples(scopes, JDK_TRUSTSTORE).entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).toArray(String[]::new);
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(CdcInvalidationAutoConfiguration.class))
                // Not started: the example stores and brokers exist nowhere; what is checked is the configuration.
                .withBean("cdcInvalidationLifecycle", Object.class, Object::new)
                .withPropertyValues(properties).run(context -> {
                    assertThat(context).hasNotFailed();
                    InvalidationClientConfig config = context.getBean(InvalidationClient.class).config();
                    assertThat(EverySetting.notApplied(config, scopes, JDK_TRUSTSTORE)).isEmpty();
                    CdcInvalidationHealthIndicator health = context.getBean(CdcInvalidationHealthIndicator.class);
                    assertThat(health.health(false).getStatus()).as("health.stale-status reaches the indicator")
                            .isEqualTo(new Status(ClientSettings.HEALTH_STALE_STATUS.example()));
                });
        // The settings the starter reads itself, outside the client's configuration (see the test below).
        assertThat(ClientSettings.of(Setting.Scope.FRONT_END)).containsExactly(ClientSettings.ENABLED,
                ClientSettings.REPLICA_DATA_SOURCES, ClientSettings.REPLICA_WAIT_TIMEOUT,
                ClientSettings.READ_YOUR_WRITES_ENABLED, ClientSettings.READ_YOUR_WRITES_POSITION_HEADER);
    }

    @Test
    void readYourWritesAttachesToTransactionsOnlyWhenEnabledAndItsHeaderOnlyInServletApplications() {
        runner.run(context -> assertThat(context).doesNotHaveBean(ReadYourWritesRegistrar.class));
        runner.withPropertyValues("cdc.invalidation.read-your-writes.enabled=true",
                "cdc.invalidation.read-your-writes.position-header=true").run(context -> {
                    assertThat(context).hasSingleBean(ReadYourWritesRegistrar.class);
                    assertThat(context).as("not a web application").doesNotHaveBean(PositionHeaderFilter.class);
                });
        new org.springframework.boot.test.context.runner.WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CdcInvalidationAutoConfiguration.class))
                .withPropertyValues("cdc.invalidation.bootstrap-servers=unused:1",
                        "cdc.invalidation.read-your-writes.position-header=true")
                .withBean("cdcInvalidationLifecycle", Object.class, Object::new)
                .run(context -> assertThat(context).hasSingleBean(PositionHeaderFilter.class));
    }

    @Test
    void theReplicaSettingsReachTheFencedDataSources() {
        runner.withBean("replicaDataSource", javax.sql.DataSource.class,
                        () -> new org.springframework.jdbc.datasource.SimpleDriverDataSource())
                .withPropertyValues("cdc.invalidation.replica.data-sources="
                        + ClientSettings.REPLICA_DATA_SOURCES.example(),
                        "cdc.invalidation.replica.wait-timeout=" + ClientSettings.REPLICA_WAIT_TIMEOUT.example())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean("replicaDataSource").getClass().getName()).contains("Fenced");
                    assertThat(context.getBean(ReplicaDataSources.class).waitTimeout())
                            .isEqualTo(java.time.Duration.parse("PT0.02S"));
                });
    }

    @Test
    void compositeKeysAreSpringsSimpleKeyAsCacheableBuildsThem() {
        runner.withPropertyValues("cdc.invalidation.caches.placeCoupons.key-type=composite",
                "cdc.invalidation.caches.placeCoupons.table=coupon_db.coupon",
                "cdc.invalidation.caches.placeCoupons.key-columns=place_id,code").run(context -> {
                    var placeCoupons = context.getBean(InvalidationClient.class).config().caches().get(2);
                    assertThat(placeCoupons.keyType()).isEqualTo(KeyType.COMPOSITE);
                    assertThat(placeCoupons.compositeKeyFactory().apply(java.util.List.of(7L, "A")))
                            .isEqualTo(new SimpleKey(7L, "A"));
                    assertThat(context.getBean(InvalidationClient.class).config().caches().get(1).sources().get(0)
                            .evictAll()).isTrue();
                });
    }

    @Test
    void backsOffWhenDisabled() {
        runner.withPropertyValues("cdc.invalidation.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(InvalidationClient.class);
            assertThat(context).doesNotHaveBean(CdcCacheManager.class);
        });
    }

    @Test
    void theApplicationsOwnClientWins() {
        runner.withUserConfiguration(OwnClient.class).run(context -> {
            assertThat(context).hasSingleBean(InvalidationClient.class);
            assertThat(context.getBean(InvalidationClient.class).cacheNames()).containsExactly("own");
            assertThat(context.getBean(CdcCacheManager.class).getCacheNames()).containsExactly("own");
        });
    }

    @Test
    void theApplicationsOwnCacheManagerStaysTheDefaultAndOursIsAvailableByNameAndType() {
        runner.withUserConfiguration(OwnCacheManager.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(CacheManager.class)).isInstanceOf(ConcurrentMapCacheManager.class);
            assertThat(context.getBean("cdcCacheManager")).isInstanceOf(CdcCacheManager.class);
            assertThat(context.getBean(CdcCacheManager.class).getCacheNames()).contains("coupons");
            assertThat(context.getBean(NeedsCdcCacheManager.class).manager).isNotNull();
        });
    }

    @Test
    void noHealthIndicatorWithoutSpringBootHealth() {
        runner.withClassLoader(new FilteredClassLoader("org.springframework.boot.health")).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(CdcInvalidationHealthIndicator.class);
            assertThat(context).hasSingleBean(InvalidationClient.class);
        });
    }

    @Test
    void usesTheApplicationsMeterRegistry() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.find("cdc.client.ready").gauge()).isNotNull();
            assertThat(registry.find("cache.gets").tag("cache", "coupons").meters()).isNotEmpty();
        });
    }

    @Test
    void anInvalidSettingFailsStartUpNamingTheSetting() {
        runner.withPropertyValues("cdc.invalidation.caches.broken.table=no_database_part",
                "cdc.invalidation.caches.broken.key-columns=id").run(context -> {
                    assertThat(context).hasFailed();
                    Throwable failure = context.getStartupFailure();
                    InvalidConfigurationException cause = findCause(failure, InvalidConfigurationException.class);
                    assertThat(cause.setting()).isEqualTo("caches.broken.table");
                    FailureAnalysis analysis = new InvalidConfigurationFailureAnalyzer().analyze(failure);
                    assertThat(analysis.getDescription()).contains("cdc.invalidation.caches.broken.table")
                            .contains("database.table");
                    assertThat(analysis.getAction()).contains("cdc.invalidation.caches.broken.table");
                });
    }

    @Test
    void aCacheWithoutKeyColumnsThatIsNotEvictAllFailsStartUp() {
        runner.withPropertyValues("cdc.invalidation.caches.broken.table=db.t").run(context -> {
            assertThat(context).hasFailed();
            assertThat(findCause(context.getStartupFailure(), InvalidConfigurationException.class).setting())
                    .isEqualTo("caches.broken.key-columns");
        });
    }

    @Test
    void aBadDurationFailsStartUpNamingTheProperty() {
        runner.withPropertyValues("cdc.invalidation.max-staleness=soon").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("soon");
            assertThat(context.getStartupFailure().toString() + context.getStartupFailure().getCause())
                    .contains("cdc.invalidation");
        });
    }

    @Test
    void missingBootstrapServersFailsStartUp() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CdcInvalidationAutoConfiguration.class))
                .run(context -> assertThat(findCause(context.getStartupFailure(), InvalidConfigurationException.class)
                        .setting()).isEqualTo("bootstrap-servers"));
    }

    @Test
    void healthIsDegradedUntilTheClientCanShowItIsFresh() {
        runner.run(context -> {
            Health health = context.getBean(CdcInvalidationHealthIndicator.class).health(true);
            assertThat(health.getStatus()).isEqualTo(new Status("DEGRADED"));
            assertThat(health.getDetails()).containsEntry("ready", false).containsKey("caches");
        });
        runner.withPropertyValues("cdc.invalidation.health.stale-status=OUT_OF_SERVICE").run(context -> assertThat(
                context.getBean(CdcInvalidationHealthIndicator.class).health(false).getStatus())
                .isEqualTo(Status.OUT_OF_SERVICE));
    }

    @Test
    void healthIsUpOnceTheClientIsReadyAndFresh() {
        runner.withUserConfiguration(FreshClient.class).run(context -> {
            CdcInvalidationHealthIndicator indicator = context.getBean(CdcInvalidationHealthIndicator.class);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
                    .until(() -> Status.UP.equals(indicator.health(true).getStatus()));
            assertThat(indicator.health(true).getDetails()).containsEntry("ready", true).containsEntry("fresh", true);
        });
    }

    @Test
    void theDefaultDegradedStatusDoesNotTakeTheApplicationOutOfService() {
        var aggregator = org.springframework.boot.health.actuate.endpoint.StatusAggregator.getDefault();
        assertThat(aggregator.getAggregateStatus(Status.UP, new Status("DEGRADED"))).isEqualTo(Status.UP);
        assertThat(new org.springframework.boot.health.actuate.endpoint.SimpleStatusAggregator(
                "down", "out-of-service", "degraded", "up").getAggregateStatus(Status.UP, new Status("DEGRADED")))
                .isEqualTo(new Status("DEGRADED"));
    }

    static <T extends Throwable> T findCause(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in " + failure);
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnClient {
        @Bean
        InvalidationClient ownClient() {
            return new InvalidationClient(InvalidationClientConfig.builder().bootstrapServers("127.0.0.1:1")
                    .awaitReady(Duration.ZERO) // a client of the application's own brings its own settings
                    .cache(dev.cdccache.client.CacheDefinition.builder("own").table("db.t").keyColumns("id").build())
                    .build());
        }
    }

    /** A client over an in-memory Kafka that needs no heartbeats: fresh as soon as it is positioned. */
    @Configuration(proxyBeanMethods = false)
    static class FreshClient {
        @Bean
        InvalidationClient freshClient() {
            return MockKafka.readyClient(InvalidationClientConfig.builder().bootstrapServers("unused:1")
                    .heartbeatRequired(false).positionCheckInterval(Duration.ofMillis(20))
                    .cache(dev.cdccache.client.CacheDefinition.builder("c").table("db.t").keyColumns("id").build())
                    .build());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnCacheManager {
        @Bean
        CacheManager cacheManager() {
            return new ConcurrentMapCacheManager("local");
        }

        @Bean
        NeedsCdcCacheManager needsCdcCacheManager(CdcCacheManager manager) {
            return new NeedsCdcCacheManager(manager);
        }
    }

    record NeedsCdcCacheManager(CdcCacheManager manager) {
    }
}
