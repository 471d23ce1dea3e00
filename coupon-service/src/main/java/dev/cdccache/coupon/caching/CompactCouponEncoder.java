package dev.cdccache.coupon.caching;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Interner;
import dev.cdccache.coupon.catalog.Coupon;
import dev.cdccache.coupon.catalog.CouponAttribute;
import java.io.ByteArrayOutputStream;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * Encodes coupons read from the database into {@link CompactCoupon}s, once per load, with the application's
 * {@link JsonMapper} (so every value is written exactly as the JSON endpoints of the other modes write it).
 *
 * <p>Values many coupons share are canonical: one {@link JsonFragment} per distinct discount type, decimal, date,
 * status and attribute list, and one {@link CouponAttribute} per distinct key/value pair. The canonical instances
 * are held weakly: a value no cached coupon uses any more is collected, so the tables hold only what the caches
 * hold. Thread-safe.
 */
final class CompactCouponEncoder {

    private final JsonMapper json;
    /** Value to its canonical fragment; a fragment no coupon references any more is dropped with its entry. */
    private final Cache<Object, JsonFragment<?>> fragments = Caffeine.newBuilder().weakValues().build();
    private final Interner<CouponAttribute> attributes = Interner.newWeakInterner();
    private final JsonFragment<?> nullFragment;

    CompactCouponEncoder(JsonMapper json) {
        this.json = json;
        this.nullFragment = new JsonFragment<>(null, json.writeValueAsBytes(null));
    }

    /** The compact form of {@code coupon}. */
    CompactCoupon encode(Coupon coupon) {
        return encode(coupon, coupon.id());
    }

    /**
     * The compact form of {@code coupon}, holding {@code id} (equal to the coupon's id) as its boxed id: pass the
     * instance the coupon is cached under, and the cache's key and the coupon share one box.
     */
    CompactCoupon encode(Coupon coupon, Long id) {
        if (id != coupon.id()) {
            throw new IllegalArgumentException("coupon " + coupon.id() + " encoded under id " + id);
        }
        ByteArrayOutputStream own = new ByteArrayOutputStream(128);
        int[] ends = new int[5];
        ends[0] = append(own, coupon.id());
        ends[1] = append(own, coupon.code());
        ends[2] = append(own, coupon.placeId());
        ends[3] = append(own, coupon.name());
        ends[4] = append(own, coupon.issueLimit());
        append(own, coupon.updatedAt());
        return new CompactCoupon(id, coupon.placeId(), coupon.issueLimit(), shared(coupon.discountType()),
                shared(coupon.discountValue()), shared(coupon.minimumPrice()), shared(coupon.validFrom()),
                shared(coupon.validUntil()), shared(coupon.status()), shared(canonical(coupon.attributes())),
                own.toByteArray(), ends);
    }

    /** The compact forms of {@code coupons}, under the same keys, in the same order. */
    Map<Long, CompactCoupon> encodeAll(Map<Long, Coupon> coupons) {
        return encodeAll(coupons.keySet(), coupons);
    }

    /**
     * The compact forms of those of {@code ids} that {@code coupons} has, in the order of {@code ids}, each keyed by
     * and holding the instance of {@code ids} (see {@link #encode(Coupon, Long)}): a bulk loader passes the keys it
     * was asked for, under which the cache stores the coupons.
     */
    Map<Long, CompactCoupon> encodeAll(Collection<? extends Long> ids, Map<Long, Coupon> coupons) {
        Map<Long, CompactCoupon> encoded = new LinkedHashMap<>();
        for (Long id : ids) {
            Coupon coupon = coupons.get(id);
            if (coupon != null) {
                encoded.put(id, encode(coupon, id));
            }
        }
        return encoded;
    }

    /** Distinct values currently shared (fragments and attribute pairs are counted apart); for tests. */
    long sharedFragments() {
        fragments.cleanUp();
        return fragments.estimatedSize();
    }

    private List<CouponAttribute> canonical(List<CouponAttribute> list) {
        CouponAttribute[] canonical = new CouponAttribute[list.size()];
        for (int i = 0; i < canonical.length; i++) {
            canonical[i] = attributes.intern(list.get(i));
        }
        return List.of(canonical);
    }

    @SuppressWarnings("unchecked")
    private <T> JsonFragment<T> shared(T value) {
        if (value == null) {
            return (JsonFragment<T>) nullFragment;
        }
        return (JsonFragment<T>) fragments.get(value, key -> new JsonFragment<>(key, json.writeValueAsBytes(key)));
    }

    private int append(ByteArrayOutputStream out, Object value) {
        out.writeBytes(json.writeValueAsBytes(value));
        return out.size();
    }
}
