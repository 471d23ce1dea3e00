package dev.cdccache.coupon.caching;

import dev.cdccache.client.spring.CdcCacheManager;
import dev.cdccache.coupon.caching.hibernate.HibernateCouponCatalog;
import dev.cdccache.coupon.catalog.CouponCatalog;
import org.hibernate.SessionFactory;
import dev.cdccache.coupon.catalog.CouponMetadataRepository;
import dev.cdccache.coupon.progress.CouponProgressRepository;
import dev.cdccache.coupon.progress.ProgressCounts;
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
            }), new CompactCouponEncoder(json));
            case HIBERNATE -> new HibernateCouponCatalog(hibernate.getObject());
        };
    }

    /**
     * Progress counts for the read endpoints: cached in mode {@code local}, where the change stream evicts them
     * within the client's staleness bound. The other modes read them live: {@code none} caches nothing,
     * {@code redis} would serve counts up to a TTL old with nothing to evict them, and {@code hibernate} models
     * the usual entity cache of such a service, whose counts are not entities.
     */
    @Bean
    ProgressCounts progressCounts(CouponCacheProperties properties, CouponProgressRepository repository,
            ObjectProvider<CdcCacheManager> localCaches) {
        if (properties.mode() == CacheMode.LOCAL) {
            return new LocalProgressCounts(repository, localCaches.getObject());
        }
        return repository::findByCouponIds;
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
