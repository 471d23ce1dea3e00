package dev.cdccache.coupon.caching;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import dev.cdccache.coupon.catalog.Coupon;
import dev.cdccache.coupon.catalog.CouponAttribute;
import dev.cdccache.coupon.catalog.CouponStatus;
import dev.cdccache.coupon.catalog.DiscountType;
import dev.cdccache.coupon.place.AvailableCoupon;
import dev.cdccache.coupon.place.CouponWithProgress;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * The compact coupon of mode local against Jackson's encoding of the plain coupon, on values the database can hold
 * and on ones it cannot (nulls); {@code CompactCouponEncodingIT} does the same on real rows and real responses.
 */
class CompactCouponTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final CompactCouponEncoder encoder = new CompactCouponEncoder(JSON);

    private static Coupon coupon(long id, String code, String name, String discountValue, String minimumPrice,
            LocalDateTime updatedAt, List<CouponAttribute> attributes) {
        return new Coupon(id, code, 7, name, DiscountType.FIXED_AMOUNT, new BigDecimal(discountValue),
                new BigDecimal(minimumPrice), LocalDate.of(2026, 1, 10), LocalDate.of(2026, 12, 31),
                CouponStatus.ACTIVE, 250, updatedAt, attributes);
    }

    private static List<Coupon> awkwardCoupons() {
        List<CouponAttribute> attributes = List.of(new CouponAttribute("channel", "app"),
                new CouponAttribute("설명", "주말 \"특가\" \\ 🎉"));
        return List.of(
                coupon(1, "CPN00000001", "1500 off at place 7", "1500.00", "10000.00",
                        LocalDateTime.of(2026, 11, 22, 9, 0, 0, 123_456_000), attributes),
                coupon(2, "lower-case_2", "한글 쿠폰 🎉 \"quoted\" back\\slash\ttab\nnewline\u0001", "0.01", "0.00",
                        LocalDateTime.of(2026, 1, 2, 3, 4, 5), List.of()),
                coupon(3, "Q\"uote\\d", "é", "9999999999.99", "1E+3",
                        LocalDateTime.of(2026, 1, 2, 3, 4, 0, 120_000_000), attributes),
                coupon(Long.MAX_VALUE, "MAX", "", "100", "0", LocalDateTime.of(1970, 1, 1, 0, 0), attributes),
                new Coupon(5, "NULLS", 7, null, null, null, null, null, null, null, 0, null, List.of()));
    }

    private static byte[] bytes(CompactCoupon coupon) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        coupon.writeJson(out);
        return out.toByteArray();
    }

    private static String utf8(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @Test
    void writesTheBytesJacksonWritesForTheSameCouponIncludingNullsDecimalsDatesAndUnicode() throws IOException {
        for (Coupon coupon : awkwardCoupons()) {
            CompactCoupon compact = encoder.encode(coupon);
            byte[] expected = JSON.writeValueAsBytes(coupon);
            assertThat(utf8(bytes(compact))).isEqualTo(utf8(expected));
            assertThat(compact.jsonLength()).isEqualTo(expected.length);
            byte[] copied = new byte[expected.length + 3];
            compact.copyJson(copied, 3);
            assertThat(utf8(copied).substring(3)).isEqualTo(utf8(expected));
        }
    }

    @Test
    void aListIsTheSameJsonArrayAsJacksonsEmptyOrNot() throws IOException {
        List<Coupon> plain = awkwardCoupons();
        List<CompactCoupon> compact = plain.stream().map(encoder::encode).toList();
        for (int size : new int[] {0, 1, plain.size()}) {
            CompactCoupons list = new CompactCoupons(compact.subList(0, size));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            list.writeJson(out);
            String expected = utf8(JSON.writeValueAsBytes(plain.subList(0, size)));
            assertThat(utf8(out.toByteArray())).isEqualTo(expected);
            byte[] copied = new byte[list.jsonLength()];
            list.copyJson(copied, 0);
            assertThat(utf8(copied)).isEqualTo(expected);
        }
    }

    @Test
    void insideAnotherValueJacksonCopiesTheEncodedBytesWhetherWritingBytesOrCharacters() {
        List<Object> plain = new ArrayList<>();
        List<Object> compact = new ArrayList<>();
        // Enough entries to cross the generator's buffer boundary, where it asks for a copy instead of an append.
        for (int i = 0; i < 40; i++) {
            for (Coupon coupon : awkwardCoupons()) {
                plain.add(new CouponWithProgress(coupon, i, 1, 2));
                plain.add(new AvailableCoupon(coupon, new BigDecimal("1500.00"), i));
                compact.add(new CouponWithProgress(encoder.encode(coupon), i, 1, 2));
                compact.add(new AvailableCoupon(encoder.encode(coupon), new BigDecimal("1500.00"), i));
            }
        }
        assertThat(utf8(JSON.writeValueAsBytes(compact))).isEqualTo(utf8(JSON.writeValueAsBytes(plain)));
        assertThat(JSON.writeValueAsString(compact)).isEqualTo(JSON.writeValueAsString(plain));
    }

    @Test
    void theCodeIsReadBackFromItsEncodedForm() {
        for (Coupon coupon : awkwardCoupons()) {
            assertThat(encoder.encode(coupon).code()).isEqualTo(coupon.code());
        }
    }

    @Test
    void theRulesSeeTheSameValuesAsOnThePlainCoupon() {
        Coupon plain = awkwardCoupons().get(0);
        CompactCoupon compact = encoder.encode(plain);
        LocalDate inside = LocalDate.of(2026, 6, 1);
        assertThat(compact.isUsableFor(inside, new BigDecimal("10000"))).isEqualTo(plain.isUsableFor(inside, new BigDecimal("10000")));
        assertThat(compact.isUsableFor(inside, new BigDecimal("9999.99"))).isFalse();
        assertThat(compact.isIssuableOn(LocalDate.of(2027, 1, 1))).isFalse();
        assertThat(compact.discountOn(new BigDecimal("20000"))).isEqualTo(plain.discountOn(new BigDecimal("20000")));
        assertThat(List.of(compact.id(), compact.placeId(), (long) compact.issueLimit()))
                .containsExactly(plain.id(), plain.placeId(), (long) plain.issueLimit());
        assertThat(compact.status()).isEqualTo(plain.status());
    }

    @Test
    void couponsWithEqualValuesShareOneInstanceOfEachAttributeListPairDateAndDecimal() {
        CompactCoupon first = encoder.encode(coupon(1, "A", "a", "1500.00", "10000.00", LocalDateTime.of(2026, 1, 1, 0, 0),
                List.of(new CouponAttribute(new String("channel"), "app"), new CouponAttribute("stackable", "true"))));
        CompactCoupon second = encoder.encode(coupon(2, "B", "b", new String("1500.00"), "10000.00",
                LocalDateTime.of(2026, 1, 1, 0, 0),
                List.of(new CouponAttribute("channel", new String("app")), new CouponAttribute("stackable", "true"))));
        CompactCoupon third = encoder.encode(coupon(3, "C", "c", "1500.00", "10000.00", LocalDateTime.of(2026, 1, 1, 0, 0),
                List.of(new CouponAttribute("channel", "app"), new CouponAttribute("stackable", "false"))));

        assertThat(second.attributes()).isSameAs(first.attributes());
        assertThat(third.attributes()).isNotSameAs(first.attributes());
        assertThat(third.attributes().get(0)).isSameAs(first.attributes().get(0));
        assertThat(second.discountValue()).isSameAs(first.discountValue());
        assertThat(second.minimumPrice()).isSameAs(first.minimumPrice());
        assertThat(second.validFrom()).isSameAs(first.validFrom());
        assertThat(second.validUntil()).isSameAs(first.validUntil());
    }

    @Test
    void aCouponHoldsTheInstanceOfItsIdItWasEncodedUnderWhichTheProgressCountsAreKeyedBy() {
        Long key = Long.valueOf(100_000L); // outside Long's cache of small values: a box of its own
        Coupon plain = coupon(100_000L, "A", "a", "1500.00", "10000.00", LocalDateTime.of(2026, 1, 1, 0, 0), List.of());
        assertThat(encoder.encode(plain, key).boxedId()).isSameAs(key);
        assertThat(encoder.encode(plain, key).id()).isEqualTo(100_000L);
        assertThat(plain.boxedId()).isEqualTo(key);

        Long first = Long.valueOf(200_000L);
        Long second = Long.valueOf(300_000L);
        Map<Long, Coupon> read = new LinkedHashMap<>(); // keyed by boxes of its own, as the repository's map is
        read.put(Long.valueOf(300_000L), coupon(300_000L, "C", "c", "1.00", "0.00", LocalDateTime.of(2026, 1, 1, 0, 0), List.of()));
        read.put(Long.valueOf(200_000L), coupon(200_000L, "B", "b", "1.00", "0.00", LocalDateTime.of(2026, 1, 1, 0, 0), List.of()));
        Map<Long, CompactCoupon> encoded = encoder.encodeAll(List.of(first, Long.valueOf(400_000L), second), read);
        assertThat(encoded.keySet()).containsExactly(first, second); // the asked-for order, the unknown id left out
        assertThat(encoded.keySet().iterator().next()).isSameAs(first);
        assertThat(encoded.get(first).boxedId()).isSameAs(first);
        assertThat(encoded.get(second).boxedId()).isSameAs(second);
        assertThat(encoded.get(second).code()).isEqualTo("C");
    }

    @Test
    void aCouponIsNotEncodedUnderAnotherId() {
        Coupon plain = coupon(1, "A", "a", "1500.00", "10000.00", LocalDateTime.of(2026, 1, 1, 0, 0), List.of());
        assertThatIllegalArgumentException().isThrownBy(() -> encoder.encode(plain, 2L));
    }

    @Test
    void aSharedValueNoCachedCouponUsesAnyMoreIsCollected() {
        Map<Long, Coupon> coupons = new LinkedHashMap<>();
        for (long id = 1; id <= 100; id++) {
            coupons.put(id, coupon(id, "C" + id, "n", id + ".00", "0.00", LocalDateTime.of(2026, 1, 1, 0, 0), List.of()));
        }
        Map<Long, CompactCoupon> cached = encoder.encodeAll(coupons);
        assertThat(encoder.sharedFragments()).isGreaterThanOrEqualTo(100);
        cached.clear();
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            System.gc();
            assertThat(encoder.sharedFragments()).isLessThan(20);
        });
    }
}
