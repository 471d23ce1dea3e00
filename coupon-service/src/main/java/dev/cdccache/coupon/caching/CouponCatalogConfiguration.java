package dev.cdccache.coupon.caching;

import dev.cdccache.client.spring.CdcCacheManager;
import dev.cdccache.coupon.caching.hibernate.HibernateCouponCatalog;
import dev.cdccache.coupon.catalog.CouponCatalog;
import org.hibernate.SessionFactory;
import dev.cdccache.coupon.catalog.CouponMetadataRepository;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.data.redis.health.DataRedisHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import tools.jackson.databind.json.JsonMapper;

/** Chooses the {@link CouponCatalog} of the configured {@code coupon.cache.mode}. */
@Configuration(proxyBeanMethods = false)
public class CouponCatalogConfiguration {

    @Bean
    CouponCatalog couponCatalog(CouponCacheProperties properties, CouponMetadataRepository repository,
            ObjectProvider<StringRedisTemplate> redis, ObjectProvider<CdcCacheManager> localCaches, JsonMapper json,
            MeterRegistry meters, ObjectProvider<SessionFactory> hibernate) {
        return switch (properties.mode()) {
            case NONE -> new DatabaseCouponCatalog(repository);
            case REDIS -> new RedisCouponCatalog(repository, redis.getObject(), json, properties.redis(), meters);
            case LOCAL -> new LocalCouponCatalog(repository, localCaches.getIfAvailable(() -> {
                throw new IllegalStateException("coupon.cache.mode=local needs the invalidation client:"
                        + " remove cdc.invalidation.enabled=false or choose coupon.cache.mode none or redis");
            }));
            case HIBERNATE -> new HibernateCouponCatalog(hibernate.getObject());
        };
    }

    /**
     * Redis health only where Redis is used: Boot's own Redis indicator is switched off in
     * application.yml, since the Redis client is on the class path in every mode.
     */
    @Bean
    @ConditionalOnProperty(name = "coupon.cache.mode", havingValue = "redis")
    HealthIndicator redisCacheHealthIndicator(RedisConnectionFactory connections) {
        return new DataRedisHealthIndicator(connections);
    }
}
