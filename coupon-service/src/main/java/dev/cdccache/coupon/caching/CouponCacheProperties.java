package dev.cdccache.coupon.caching;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the read-path cache ({@code coupon.cache.*}). Sizes of the local caches are the
 * invalidation client's ({@code cdc.invalidation.caches.<name>.spec}).
 *
 * @param mode  which cache the read path uses; {@code local} by default
 * @param redis settings used only in {@code redis} mode
 */
@ConfigurationProperties("coupon.cache")
public record CouponCacheProperties(CacheMode mode, Redis redis) {

    public CouponCacheProperties {
        mode = mode == null ? CacheMode.LOCAL : mode;
        redis = redis == null ? new Redis(null, null) : redis;
    }

    /**
     * @param ttl       how long an entry lives in Redis; also the longest a reader may see a stale value
     * @param keyPrefix prefix of every key, so that several deployments (or tests) can share one Redis
     */
    public record Redis(Duration ttl, String keyPrefix) {
        public Redis {
            ttl = ttl == null ? Duration.ofSeconds(60) : ttl;
            keyPrefix = keyPrefix == null || keyPrefix.isBlank() ? "coupon:" : keyPrefix;
            if (ttl.isNegative() || ttl.isZero()) {
                throw new IllegalArgumentException("coupon.cache.redis.ttl must be positive, was " + ttl);
            }
        }
    }
}
