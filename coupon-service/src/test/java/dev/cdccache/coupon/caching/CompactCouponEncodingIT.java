package dev.cdccache.coupon.caching;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.spring.CdcCacheManager;
import dev.cdccache.coupon.catalog.Coupon;
import dev.cdccache.coupon.catalog.CouponMetadataRepository;
import dev.cdccache.coupon.generator.GenerationPlan;
import dev.cdccache.coupon.testing.ApiClient.Response;
import dev.cdccache.coupon.testing.CdcTwoInstances;
import dev.cdccache.coupon.testing.ServiceInstance;
import dev.cdccache.coupon.testing.TestData;
import dev.cdccache.infra.LocalStack;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.json.JsonMapper;

/**
 * Mode {@code local} serves coupons as bytes encoded when they were loaded; these must be exactly what the JSON
 * endpoints wrote before (and still write in the other modes) for the same rows. Real rows in the real MariaDB: the
 * small data set plus rows chosen to be awkward (unicode and characters JSON escapes, the smallest and largest
 * decimals of the columns, dates at the ends of their range, datetimes with and without fractions, no attributes).
 * Compared twice: the two encodings of every row by the service's own {@code JsonMapper}, and the HTTP responses of
 * an instance in mode {@code local} (with the real connector and Kafka, so the second round is served from its
 * caches) against an instance in mode {@code none} on the same database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CompactCouponEncodingIT {

    private static final LocalStack STACK = LocalStack.shared();
    /** Ids of the awkward rows, above the small data set's. */
    private static final List<Long> AWKWARD = List.of(900_001L, 900_002L, 900_003L, 900_004L);
    private static final long AWKWARD_PLACE = 900_001;

    private CdcTwoInstances platform;
    private ServiceInstance local;
    private ServiceInstance none;

    @BeforeAll
    void start() throws Exception {
        platform = CdcTwoInstances.start(STACK, "encoding", "local", List.of(), CompactCouponEncodingIT::awkwardRows);
        local = platform.first();
        Map<String, String> settings = ServiceInstance.databaseSettings(STACK, platform.database());
        settings.put("coupon.cache.mode", "none");
        settings.put("coupon.database", platform.database());
        none = ServiceInstance.start(settings);
    }

    @AfterAll
    void stop() {
        if (none != null) {
            none.close();
        }
        if (platform != null) {
            platform.close();
        }
    }

    private static void awkwardRows(DataSource admin) {
        String today = TestData.today().toString();
        try (Connection connection = admin.getConnection(); Statement sql = connection.createStatement()) {
            sql.execute("INSERT INTO place (id, name, region, category) VALUES (" + AWKWARD_PLACE
                    + ", 'Awkward place', 'Seoul', 'HOTEL')");
            sql.execute("INSERT INTO coupon (id, code, place_id, name, discount_type, discount_value, minimum_price,"
                    + " valid_from, valid_until, status, issue_limit, updated_at) VALUES"
                    + " (900001, 'awk-1_lower', 900001, '한글 쿠폰 🎉 \"quoted\" back\\\\slash\\ttab é', 'FIXED_AMOUNT',"
                    + "  0.01, 0.00, '" + today + "', '9999-12-31', 'ACTIVE', 2147483647, '2026-01-02 03:04:05.000000'),"
                    + " (900002, 'AWK-2', 900001, 'max decimals', 'FIXED_AMOUNT', 9999999999.99, 9999999999.99,"
                    + "  '1000-01-01', '" + today + "', 'ACTIVE', 0, '2026-01-02 03:04:05.120000'),"
                    + " (900003, 'AWK-3', 900001, 'percentage, no attributes', 'PERCENTAGE', 100.00, 10.50,"
                    + "  '" + today + "', '" + today + "', 'ACTIVE', 5, '2026-01-02 03:04:00.000001'),"
                    + " (900004, 'AWK-4', 900001, CONCAT('paused ', CHAR(1), ' control'), 'PERCENTAGE', 5.00, 1000.00,"
                    + "  '2026-01-01', '2026-12-31', 'PAUSED', 7, '1970-01-01 00:00:00.999999')");
            sql.execute("INSERT INTO coupon_attribute (coupon_id, attribute_key, attribute_value) VALUES"
                    + " (900001, 'channel', 'app'), (900001, '설명', '주말 \"특가\" \\\\ 🎉'),"
                    + " (900002, 'channel', 'app'), (900004, 'channel', 'web'), (900004, 'membership', 'vip')");
            sql.execute("INSERT INTO coupon_progress (coupon_id, issued_count, used_count) VALUES"
                    + " (900001, 3, 1), (900002, 0, 0), (900003, 4, 4), (900004, 1, 0)");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<Long> allIds() {
        List<Long> ids = new ArrayList<>(LongStream.rangeClosed(1, GenerationPlan.SMALL.coupons()).boxed().toList());
        ids.addAll(AWKWARD);
        return ids;
    }

    @Test
    void everyRowEncodesToTheBytesJacksonWritesForIt() throws Exception {
        CouponMetadataRepository repository = local.bean(CouponMetadataRepository.class);
        JsonMapper json = local.bean(JsonMapper.class);
        CompactCouponEncoder encoder = new CompactCouponEncoder(json);
        Map<Long, Coupon> rows = repository.findCouponsByIds(allIds());
        assertThat(rows).hasSize(allIds().size());
        for (Coupon coupon : rows.values()) {
            ByteArrayOutputStream compact = new ByteArrayOutputStream();
            encoder.encode(coupon).writeJson(compact);
            assertThat(compact.toString(StandardCharsets.UTF_8)).as("coupon " + coupon.id())
                    .isEqualTo(new String(json.writeValueAsBytes(coupon), StandardCharsets.UTF_8));
        }
    }

    @Test
    void theCouponsCacheHoldsTheCompactFormWhichAnEvictionRemoves() {
        assertThat(local.api().get("/coupons/900003").status()).isEqualTo(200);
        InvalidatingCache<Long, Object> coupons = local.bean(CdcCacheManager.class).invalidatingCache(CacheNames.COUPONS);
        assertThat(coupons.getIfPresent(900_003L)).isInstanceOf(CompactCoupon.class);

        platform.sql("UPDATE coupon SET name = 'renamed' WHERE id = 900003");
        platform.awaitOnBoth("/coupons/900003", r -> assertThat(r.json().path("name").asString()).isEqualTo("renamed"));
        assertThat(((CompactCoupon) coupons.getIfPresent(900_003L)).toString()).contains("\"name\":\"renamed\"");
        assertThat(local.api().get("/coupons/900003").text()).isEqualTo(none.api().get("/coupons/900003").text());
    }

    @Test
    void everyReadEndpointAnswersInModeLocalWithTheBytesOfModeNoneOnMissesAndOnHits() {
        List<String> paths = new ArrayList<>();
        AWKWARD.forEach(id -> paths.add("/coupons/" + id));
        paths.add("/coupons/1");
        paths.add("/coupons/by-code/AWK-2");
        paths.add("/coupons/by-code/awk-1_LOWER");
        paths.add("/coupons/by-code/CPN00000042");
        List<Long> ids = allIds();
        paths.add("/coupons?ids=" + ids.subList(ids.size() - 500, ids.size()).stream().map(String::valueOf)
                .collect(Collectors.joining(",")));
        paths.add("/coupons?ids=900004,900001,7,900001,123456789");
        paths.add("/places/" + AWKWARD_PLACE + "/coupon-progresses");
        paths.add("/places/3/coupon-progresses");
        paths.add("/coupons/available?placeId=" + AWKWARD_PLACE + "&price=20000&date=" + TestData.today());
        paths.add("/coupons/available?placeId=4&price=50000.5&date=" + TestData.today());

        for (int round = 1; round <= 2; round++) {
            long statementsBefore = local.statements();
            for (String path : paths) {
                Response expected = none.api().get(path);
                Response actual = local.api().get(path);
                assertThat(expected.status()).as(path).isEqualTo(200);
                assertThat(actual.status()).as(path).isEqualTo(200);
                assertThat(actual.contentType()).as(path).isEqualTo(expected.contentType());
                assertThat(actual.text()).as("round " + round + ": " + path).isEqualTo(expected.text());
            }
            if (round == 1) {
                // Written by the pre-encoded converter, which knows the length before it writes; Jackson's converter
                // streams a body this large chunked.
                String bulk = paths.stream().filter(p -> p.startsWith("/coupons?ids=")).findFirst().orElseThrow();
                Response written = local.api().get(bulk);
                assertThat(written.header("Content-Length")).as("local: " + bulk)
                        .isEqualTo(String.valueOf(written.text().getBytes(StandardCharsets.UTF_8).length));
                assertThat(none.api().get(bulk).header("Content-Length")).as("none: " + bulk).isNull();
            }
            if (round == 2) {
                assertThat(local.statements() - statementsBefore)
                        .as("the second round is served from the caches (the available lists read no counts)")
                        .isZero();
            }
        }
    }
}
