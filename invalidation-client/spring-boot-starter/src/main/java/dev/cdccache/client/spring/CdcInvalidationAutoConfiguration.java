package dev.cdccache.client.spring;

import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.position.ReplicaFence;
import dev.cdccache.client.settings.ClientSettings;
import dev.cdccache.client.spring.health.CdcInvalidationHealthIndicator;
import dev.cdccache.client.spring.health.ClientProblemSource;
import dev.cdccache.client.spring.persistence.PersistenceContextTracking;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.cache.CacheManager;
import org.springframework.cache.interceptor.SimpleKey;
import org.springframework.cache.interceptor.CacheOperationSource;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Role;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Fallback;

/**
 * Auto-configuration of the CDC invalidation client: an {@link InvalidationClient} built from
 * {@code cdc.invalidation.*} (bound as {@link CdcInvalidationProperties}, read by the core's {@link ClientSettings}
 * like in every other front end), a {@link CdcCacheManager} exposing its caches to {@code @Cacheable}, a lifecycle
 * that starts and stops it, and a health indicator when Spring Boot's health support is present. Every bean
 * backs off when the application defines its own.
 *
 * <p>If the application defines its own {@link CacheManager}, that one stays the default for
 * {@code @Cacheable}: the {@code cdcCacheManager} is then registered as a {@link Fallback} bean, usable with
 * {@code @Cacheable(cacheManager = "cdcCacheManager")}, by injecting {@link CdcCacheManager}, or combined in a
 * {@link org.springframework.cache.support.CompositeCacheManager}.
 */
@AutoConfiguration(beforeName = "org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration")
@ConditionalOnClass(InvalidationClient.class)
@ConditionalOnBooleanProperty(name = "cdc.invalidation.enabled", matchIfMissing = true)
@EnableConfigurationProperties(CdcInvalidationProperties.class)
public class CdcInvalidationAutoConfiguration {

    public CdcInvalidationAutoConfiguration() {
        SpringBootRequirement.check(); // on Boot 3 the starter would half-work silently; fail clearly instead
    }

    @Bean
    @ConditionalOnMissingBean
    public InvalidationClient invalidationClient(CdcInvalidationProperties properties,
            ObjectProvider<MeterRegistry> meterRegistry,
            ObjectProvider<InvalidationClientConfigCustomizer> customizers) {
        InvalidationClientConfig.Builder builder = ClientSettings.read(properties.flatSettings(),
                // What @Cacheable builds for a method with several parameters, so that composite keys match.
                cache -> cache.compositeKeyFactory(components -> new SimpleKey(components.toArray())))
                .meterRegistry(meterRegistry.getIfUnique());
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        return new InvalidationClient(builder.build());
    }

    @Bean
    @ConditionalOnMissingBean(name = "cdcInvalidationLifecycle")
    public InvalidationClientLifecycle cdcInvalidationLifecycle(InvalidationClient client) {
        return new InvalidationClientLifecycle(client, client.config().awaitReady());
    }

    /**
     * Fails start-up when a caching annotation on one of the client's caches builds keys that can never equal the
     * keys change events evict (e.g. an {@code Integer} parameter over a {@code BIGINT} id column).
     */
    @Bean
    @ConditionalOnMissingBean(name = "cdcCacheKeyTypeCheck")
    static SmartInitializingSingleton cdcCacheKeyTypeCheck(ListableBeanFactory beanFactory,
            ObjectProvider<CacheOperationSource> operationSources, ObjectProvider<InvalidationClient> client) {
        // Static, with the client looked up only when the check runs, so that declaring it creates nothing early.
        return new CacheKeyTypeCheck(beanFactory, operationSources, client);
    }

    /**
     * Consistency sampling of non-{@code sync} {@code @Cacheable} methods: a sampled hit is re-read by calling the
     * method again on its target bean, off the request thread (see {@link CacheableSamplingAdvisor}). Only while
     * sampling is on, so that with it off no cached method gains an interceptor.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.cache.interceptor.BeanFactoryCacheOperationSourceAdvisor")
    @Conditional(SamplingOnCondition.class)
    static class CacheableSamplingConfiguration {

        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE) // seen by @EnableCaching's auto-proxy creator, which takes only these
        static CacheableSamplingAdvisor cdcCacheableSamplingAdvisor(ListableBeanFactory beanFactory) {
            return new CacheableSamplingAdvisor(beanFactory);
        }
    }

    /** Whether {@code cdc.invalidation.sampling.one-in} is above 0. */
    static final class SamplingOnCondition extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            int oneIn = Binder.get(context.getEnvironment()).bind("cdc.invalidation.sampling.one-in", Integer.class)
                    .orElse(0);
            return oneIn > 0 ? ConditionOutcome.match("sampling.one-in is " + oneIn)
                    : ConditionOutcome.noMatch("sampling.one-in is 0 (off)");
        }
    }

    /** The application has no CacheManager: ours is the one {@code @Cacheable} uses. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingBean(CacheManager.class)
    static class DefaultCacheManagerConfiguration {

        @Bean
        public CdcCacheManager cdcCacheManager(InvalidationClient client) {
            return new CdcCacheManager(client);
        }
    }

    /** The application has its own CacheManager: it stays the default; ours is available by name or type. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBean(CacheManager.class)
    @ConditionalOnMissingBean(CdcCacheManager.class)
    static class SecondaryCacheManagerConfiguration {

        @Bean
        @Fallback
        public CdcCacheManager cdcCacheManager(InvalidationClient client) {
            return new CdcCacheManager(client);
        }
    }

    /**
     * Spring-managed transactions get a {@code CacheTransaction}: loads inside them are stamped for their snapshot
     * and cached only after their commit.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.transaction.ConfigurableTransactionManager")
    static class TransactionConfiguration {

        @Bean
        static CacheTransactionListenerRegistrar cdcCacheTransactionListenerRegistrar() {
            return new CacheTransactionListenerRegistrar();
        }
    }

    /**
     * Hibernate sessions behind JPA {@code EntityManagerFactory} beans are reported to the caches: a persistence
     * context answers a load with an entity it read earlier, so loads on its thread are stamped as of its opening.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.springframework.orm.jpa.AbstractEntityManagerFactoryBean",
            "org.hibernate.SessionEventListener"})
    static class PersistenceContextConfiguration {

        @Bean
        static PersistenceContextTracking cdcPersistenceContextTracking() {
            return new PersistenceContextTracking();
        }
    }

    /**
     * Warns when JPA's open-in-view is on and a persistence context's openings are not reported to the caches (a JPA
     * provider other than Hibernate, or a factory with its own session listener). That context spans the whole web
     * request, so a cached method's load can be answered with an entity read earlier in the request, before a change
     * whose invalidation the client applied since.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.orm.jpa.support.OpenEntityManagerInViewInterceptor")
    static class OpenInViewConfiguration {

        @Bean
        static SmartInitializingSingleton cdcOpenInViewWarning(ListableBeanFactory beanFactory) {
            return () -> OpenInViewWarning.warnIfOn(beanFactory);
        }
    }

    /** DataSources that read a replica: their reads are cached only once the replica is shown caught up. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.jdbc.datasource.DelegatingDataSource")
    static class ReplicaConfiguration {

        @Bean
        static ReplicaDataSources cdcReplicaDataSources(org.springframework.core.env.Environment environment,
                ObjectProvider<InvalidationClient> client) {
            // Bound here rather than injected: a post-processor must not make the properties bean early.
            CdcInvalidationProperties.Replica replica = org.springframework.boot.context.properties.bind.Binder
                    .get(environment).bind("cdc.invalidation.replica", CdcInvalidationProperties.Replica.class)
                    .orElse(new CdcInvalidationProperties.Replica(null, null));
            return new ReplicaDataSources(replica.dataSources() == null ? List.of() : replica.dataSources(),
                    replica.waitTimeout() == null ? ReplicaFence.DEFAULT_WAIT_TIMEOUT : replica.waitTimeout(), client);
        }
    }

    /**
     * Read-your-writes: every Spring-managed read-write transaction raises this instance's read floor to its commit
     * position once committed (see {@link ReadYourWritesListener}).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.springframework.transaction.ConfigurableTransactionManager",
            "org.springframework.jdbc.datasource.ConnectionHolder"})
    @ConditionalOnBooleanProperty(name = "cdc.invalidation.read-your-writes.enabled")
    static class ReadYourWritesConfiguration {

        @Bean
        static ReadYourWritesRegistrar cdcReadYourWritesRegistrar(ObjectProvider<InvalidationClient> client) {
            return new ReadYourWritesRegistrar(new ReadYourWritesListener(client::getIfAvailable));
        }
    }

    /** The Cdc-Position header: a request floor from the request, the request's writes in the response. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "jakarta.servlet.Filter")
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnBooleanProperty(name = "cdc.invalidation.read-your-writes.position-header")
    static class PositionHeaderConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "cdcPositionHeaderFilter")
        PositionHeaderFilter cdcPositionHeaderFilter(ObjectProvider<InvalidationClient> client) {
            return new PositionHeaderFilter(client::getIfAvailable);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.AbstractHealthIndicator")
    static class HealthConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "cdcInvalidationHealthIndicator")
        public CdcInvalidationHealthIndicator cdcInvalidationHealthIndicator(InvalidationClient client,
                ObjectProvider<ClientProblemSource> problemSources) {
            return new CdcInvalidationHealthIndicator(client, problemSources.orderedStream().toList());
        }
    }
}
