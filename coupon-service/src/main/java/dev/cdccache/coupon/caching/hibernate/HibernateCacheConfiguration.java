package dev.cdccache.coupon.caching.hibernate;

import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.hibernate.CdcRegionFactory;
import dev.cdccache.client.spring.CdcInvalidationProperties;
import dev.cdccache.client.spring.health.CdcInvalidationHealthIndicator;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.hibernate.SessionFactory;
import org.hibernate.boot.MetadataSources;
import org.hibernate.boot.registry.StandardServiceRegistry;
import org.hibernate.boot.registry.StandardServiceRegistryBuilder;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Cache mode {@code hibernate}: a Hibernate session factory over the application's DataSource (so statements
 * are counted like in every mode) whose second-level cache is {@link CdcRegionFactory}. The client's settings are
 * all of the service's {@code cdc.invalidation.*}, bound as in the local mode and handed to the region factory as a
 * whole (Kafka security included); nothing is configured per entity. Built only in this mode, so the other modes
 * run without Hibernate.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "coupon.cache.mode", havingValue = "hibernate")
@EnableConfigurationProperties(CdcInvalidationProperties.class)
public class HibernateCacheConfiguration {

    static final List<Class<?>> ENTITIES = List.of(CouponEntity.class, PlaceEntity.class);

    @Bean(destroyMethod = "close")
    SessionFactory couponSessionFactory(DataSource dataSource, CdcInvalidationProperties invalidation,
            Environment environment, MeterRegistry meters) {
        Map<String, Object> settings = hibernateSettings(invalidation, environment);
        settings.put("hibernate.connection.datasource", dataSource);
        settings.put("hibernate.cache.region.factory_class", CdcRegionFactory.class.getName());
        settings.put("hibernate.cache.use_second_level_cache", "true");
        settings.put("hibernate.hbm2ddl.auto", "none");
        // the request's session (RequestSessionFilter) is the current session
        settings.put("hibernate.current_session_context_class", "managed");
        settings.put("cdc.invalidation.hibernate.meter-registry", meters);
        StandardServiceRegistry registry = new StandardServiceRegistryBuilder().applySettings(settings).build();
        try {
            MetadataSources sources = new MetadataSources(registry);
            ENTITIES.forEach(sources::addAnnotatedClass);
            return sources.buildMetadata().buildSessionFactory();
        } catch (RuntimeException e) {
            StandardServiceRegistryBuilder.destroy(registry);
            throw e;
        }
    }

    /**
     * The second-level cache's Hibernate settings: every {@code cdc.invalidation.*} setting of the service, handed
     * over as a whole (the same settings the local mode's client reads, so none can be left behind), and the cache's
     * own {@code cdc.invalidation.hibernate.*} ones.
     */
    static Map<String, Object> hibernateSettings(CdcInvalidationProperties invalidation, Environment environment) {
        Map<String, Object> settings = new HashMap<>(invalidation.flatSettings());
        // Told apart from the local mode's client in metrics, unless the service names it.
        settings.putIfAbsent("cdc.invalidation.client-id", "coupon-hibernate");
        settings.put("cdc.invalidation.hibernate.database", environment.getProperty("coupon.database", "coupon_db"));
        // Bounds for the sample data: ~100,000 coupons and their attribute lists, every place and place list.
        settings.put("cdc.invalidation.hibernate.spec", "maximumSize=10000");
        settings.put("cdc.invalidation.hibernate.regions." + CouponEntity.class.getName() + ".spec",
                "maximumSize=100000");
        settings.put("cdc.invalidation.hibernate.regions." + CouponEntity.class.getName() + ".attributes.spec",
                "maximumSize=100000");
        return settings;
    }

    /** One read-only session per request for the catalog (open session in view). */
    @Bean
    FilterRegistrationBean<RequestSessionFilter> requestSessionFilter(SessionFactory couponSessionFactory) {
        return new FilterRegistrationBean<>(new RequestSessionFilter(couponSessionFactory));
    }

    /** Health of the second-level cache's client: UP only while ready and fresh, like the local mode's. */
    @Bean
    CdcInvalidationHealthIndicator cdcInvalidationHealthIndicator(SessionFactory couponSessionFactory) {
        InvalidationClient client = ((CdcRegionFactory) couponSessionFactory.unwrap(SessionFactoryImplementor.class)
                .getCache().getRegionFactory()).client();
        return new CdcInvalidationHealthIndicator(client);
    }
}
