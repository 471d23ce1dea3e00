package dev.cdccache.coupon.caching;

import dev.cdccache.coupon.catalog.Coupon;
import dev.cdccache.coupon.catalog.CouponCatalog;
import dev.cdccache.coupon.catalog.CouponMetadataRepository;
import dev.cdccache.coupon.catalog.Place;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.springframework.data.redis.connection.RedisStringCommands.SetOption;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.types.Expiration;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * Cache mode {@code redis}: the usual remote cache. Values are JSON in a Redis shared by all instances
 * and expire after {@code coupon.cache.redis.ttl}; nothing evicts them on a change, so a reader may see
 * a value up to the TTL old. Same keys and composition as the local mode (coupon by id, code to id,
 * place to coupon ids, place by id), and the same bulk behaviour: hits by one {@code MGET}, all misses
 * by one database query, written back in one pipeline. Missing rows are not cached.
 */
class RedisCouponCatalog implements CouponCatalog {

    private static final TypeReference<List<Long>> ID_LIST = new TypeReference<>() { };

    private final CouponMetadataRepository repository;
    private final StringRedisTemplate redis;
    private final JsonMapper json;
    private final Duration ttl;
    private final String prefix;
    private final CacheLookupMetrics couponMetrics;
    private final CacheLookupMetrics codeMetrics;
    private final CacheLookupMetrics placeCouponMetrics;
    private final CacheLookupMetrics placeMetrics;

    RedisCouponCatalog(CouponMetadataRepository repository, StringRedisTemplate redis, JsonMapper json,
            CouponCacheProperties.Redis settings, MeterRegistry meters) {
        this.repository = repository;
        this.redis = redis;
        this.json = json;
        this.ttl = settings.ttl();
        this.prefix = settings.keyPrefix();
        this.couponMetrics = new CacheLookupMetrics(meters, CacheNames.COUPONS);
        this.codeMetrics = new CacheLookupMetrics(meters, CacheNames.COUPON_IDS_BY_CODE);
        this.placeCouponMetrics = new CacheLookupMetrics(meters, CacheNames.PLACE_COUPON_IDS);
        this.placeMetrics = new CacheLookupMetrics(meters, CacheNames.PLACES);
    }

    @Override
    public Optional<Coupon> findCoupon(long id) {
        return cached(couponKey(id), Coupon.class, couponMetrics, () -> repository.findCouponById(id));
    }

    @Override
    public List<Coupon> findCoupons(List<Long> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        List<String> keys = ids.stream().map(this::couponKey).toList();
        List<String> values = redis.opsForValue().multiGet(keys);
        Map<Long, Coupon> found = new HashMap<>();
        List<Long> missing = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            String value = values == null ? null : values.get(i);
            if (value == null) {
                missing.add(ids.get(i));
            } else {
                found.put(ids.get(i), json.readValue(value, Coupon.class));
            }
        }
        couponMetrics.hits(found.size());
        couponMetrics.misses(missing.size());
        if (!missing.isEmpty()) {
            Map<Long, Coupon> loaded = repository.findCouponsByIds(missing);
            found.putAll(loaded);
            writeAll(loaded);
        }
        List<Coupon> result = new ArrayList<>(ids.size());
        for (Long id : ids) {
            Coupon coupon = found.get(id);
            if (coupon != null) {
                result.add(coupon);
            }
        }
        return result;
    }

    @Override
    public Optional<Coupon> findCouponByCode(String code) {
        // Codes compare case-insensitively in the database (its collation), as in the local mode: one entry per
        // code, whatever case it was asked in.
        Optional<Long> id = cached(prefix + "code:" + code.toLowerCase(Locale.ROOT), Long.class, codeMetrics,
                () -> repository.findCouponIdByCode(code));
        // The code entry and the coupon entry expire independently; never answer with a coupon that
        // no longer carries the code asked for.
        return id.flatMap(this::findCoupon).filter(coupon -> coupon.code().equalsIgnoreCase(code))
                .or(() -> id.isPresent() ? repository.findCouponByCode(code) : Optional.empty());
    }

    @Override
    public Optional<Place> findPlace(long id) {
        return cached(prefix + "place:" + id, Place.class, placeMetrics, () -> repository.findPlaceById(id));
    }

    @Override
    public List<Coupon> findPlaceCoupons(long placeId) {
        String key = prefix + "place-coupons:" + placeId;
        String value = redis.opsForValue().get(key);
        List<Long> ids;
        if (value != null) {
            placeCouponMetrics.hits(1);
            ids = json.readValue(value, ID_LIST);
        } else {
            placeCouponMetrics.misses(1);
            ids = repository.findCouponIdsByPlace(placeId);
            redis.opsForValue().set(key, json.writeValueAsString(ids), ttl);
        }
        return findCoupons(ids).stream().filter(coupon -> coupon.placeId() == placeId).toList();
    }

    private <T> Optional<T> cached(String key, Class<T> type, CacheLookupMetrics metrics, Supplier<Optional<T>> loader) {
        String value = redis.opsForValue().get(key);
        if (value != null) {
            metrics.hits(1);
            return Optional.of(json.readValue(value, type));
        }
        metrics.misses(1);
        Optional<T> loaded = loader.get();
        loaded.ifPresent(v -> redis.opsForValue().set(key, json.writeValueAsString(v), ttl));
        return loaded;
    }

    private void writeAll(Map<Long, Coupon> coupons) {
        if (coupons.isEmpty()) {
            return;
        }
        Expiration expiration = Expiration.from(ttl);
        redis.executePipelined((RedisCallback<Object>) connection -> {
            coupons.forEach((id, coupon) -> connection.stringCommands().set(
                    couponKey(id).getBytes(StandardCharsets.UTF_8),
                    json.writeValueAsBytes(coupon), expiration, SetOption.upsert()));
            return null;
        });
    }

    private String couponKey(long id) {
        return prefix + "coupon:" + id;
    }
}
