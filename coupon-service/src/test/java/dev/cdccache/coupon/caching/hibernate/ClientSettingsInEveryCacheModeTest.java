package dev.cdccache.coupon.caching.hibernate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.hibernate.HibernateCacheSettings;
import dev.cdccache.client.settings.EverySetting;
import dev.cdccache.client.settings.Setting.Scope;
import dev.cdccache.client.spring.CdcInvalidationAutoConfiguration;
import dev.cdccache.client.spring.CdcInvalidationProperties;
import dev.cdccache.coupon.caching.CacheModeEnvironmentPostProcessor;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

/**
 * Every {@code cdc.invalidation.*} setting of the client's catalogue reaches the client in every cache mode that
 * uses one: {@code local} (the starter's client) and {@code hibernate} (the second-level cache's client). The
 * settings come from the catalogue, so one added there and not passed on by a mode fails here. Before, the
 * {@code hibernate} mode copied six settings by hand and dropped the rest (Kafka security, Kafka properties,
 * heartbeats, require-topics...): a SASL deployment would not have authenticated.
 */
class ClientSettingsInEveryCacheModeTest {

    private static final Path STORE = Path.of(System.getProperty("java.home"), "lib", "security", "cacerts");

    /** The service's environment as in production, with its cache mode's post-processing. */
    private static ApplicationContextRunner service(String mode, Set<Scope> scopes) {
        String[] properties = EverySetting.examples(scopes, STORE).entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).toArray(String[]::new);
        return new ApplicationContextRunner()
                .withInitializer(context -> new CacheModeEnvironmentPostProcessor()
                        .postProcessEnvironment(context.getEnvironment(), new SpringApplication()))
                .withPropertyValues("coupon.cache.mode=" + mode).withPropertyValues(properties);
    }

    @Test
    void everySettingReachesTheClientOfTheLocalMode() {
        Set<Scope> scopes = EnumSet.of(Scope.CLIENT, Scope.CACHE, Scope.SOURCE);
        service("local", scopes).withConfiguration(AutoConfigurations.of(CdcInvalidationAutoConfiguration.class))
                // Not started: the example stores and brokers exist nowhere; what is checked is the configuration.
                .withBean("cdcInvalidationLifecycle", Object.class, Object::new)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(EverySetting.notApplied(context.getBean(InvalidationClient.class).config(), scopes,
                            STORE)).isEmpty();
                });
    }

    @Test
    void everyClientSettingReachesTheClientOfTheHibernateMode() {
        Set<Scope> scopes = EnumSet.of(Scope.CLIENT);
        service("hibernate", scopes).withUserConfiguration(Binding.class).run(context -> {
            assertThat(context).hasNotFailed();
            Map<String, Object> hibernate = HibernateCacheConfiguration.hibernateSettings(
                    context.getBean(CdcInvalidationProperties.class), context.getEnvironment());
            // What the region factory reads from Hibernate's configuration values.
            HibernateCacheSettings read = new HibernateCacheSettings(hibernate);
            assertThat(EverySetting.notApplied(read.clientConfig().build(), scopes, STORE)).isEmpty();
        });
    }

    /** The hibernate mode's binding of cdc.invalidation.*, as HibernateCacheConfiguration declares it. */
    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(CdcInvalidationProperties.class)
    static class Binding {
    }
}
