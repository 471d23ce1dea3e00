package dev.cdccache.coupon.caching;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdccache.coupon.generator.GenerationPlan;
import dev.cdccache.coupon.testing.ApiClient.Response;
import dev.cdccache.coupon.testing.CdcTwoInstances;
import dev.cdccache.coupon.testing.ServiceInstance;
import dev.cdccache.coupon.testing.TestData;
import dev.cdccache.infra.LocalStack;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Cache mode {@code hibernate} end to end: two instances whose JPA entities live in Hibernate's second-level
 * cache (the CDC region factory), the real connector, plain-SQL changes; and the bulk lookup's statements
 * counted on the application's DataSource.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HibernateCacheModeIT {

    private static final LocalStack STACK = LocalStack.shared();
    private static final Duration INVALIDATION_TIMEOUT = Duration.ofSeconds(30);
    private CdcTwoInstances platform;
    private ServiceInstance first;

    @BeforeAll
    void start() throws Exception {
        platform = CdcTwoInstances.start(STACK, "l2", "hibernate");
        first = platform.first();
    }

    @AfterAll
    void stop() {
        if (platform != null) {
            platform.close();
        }
    }

    private void sql(String... statements) {
        platform.sql(statements);
    }

    private void awaitOnBoth(String path, Consumer<Response> expectation) {
        platform.awaitOnBoth(path, expectation);
    }

    /** Reads {@code path} on both instances until a read costs no statement: it is then served from the cache. */
    private void cacheOnBoth(String path) {
        cacheOnBoth(path, 0);
    }

    /** The same for an endpoint that reads {@code live} statements on every call (a place's progress counts). */
    private void cacheOnBoth(String path, int live) {
        for (ServiceInstance instance : platform.both()) {
            await().atMost(INVALIDATION_TIMEOUT).until(() -> {
                long before = instance.statements();
                assertThat(instance.api().get(path).status()).isEqualTo(200);
                return instance.statements() - before == live;
            });
        }
    }

    private static List<Long> couponIds(Response placeProgresses) {
        return placeProgresses.json().valueStream().map(c -> c.path("coupon").path("id").asLong()).toList();
    }

    @Test
    void anUpdateOfTheCouponOrOfOneOfItsAttributesIsServedByBothInstances() {
        cacheOnBoth("/coupons/5");

        sql("UPDATE coupon SET name = 'renamed by plain SQL' WHERE id = 5");
        awaitOnBoth("/coupons/5", r -> assertThat(r.json().path("name").asString()).isEqualTo("renamed by plain SQL"));

        cacheOnBoth("/coupons/5");
        sql("UPDATE coupon_attribute SET attribute_value = 'changed-outside' WHERE coupon_id = 5 AND attribute_key = 'channel'");
        awaitOnBoth("/coupons/5", r -> assertThat(r.json().path("attributes").valueStream()
                .filter(a -> a.path("key").asString().equals("channel")).findFirst().orElseThrow()
                .path("value").asString()).isEqualTo("changed-outside"));
    }

    @Test
    void aDeletedCouponBecomes404OnBothInstancesAndLeavesItsPlaceList() {
        long place = 1 + (6 - 1) % GenerationPlan.SMALL.places();
        cacheOnBoth("/coupons/6");
        cacheOnBoth("/places/" + place + "/coupon-progresses", 1);

        sql("DELETE FROM coupon_attribute WHERE coupon_id = 6",
                "DELETE FROM coupon_progress WHERE coupon_id = 6",
                "DELETE FROM coupon WHERE id = 6");
        awaitOnBoth("/coupons/6", r -> assertThat(r.status()).isEqualTo(404));
        awaitOnBoth("/places/" + place + "/coupon-progresses", r -> assertThat(couponIds(r)).doesNotContain(6L));
    }

    @Test
    void aMissingIdThatIsLaterInsertedBecomesVisible() {
        awaitOnBoth("/coupons/900001", r -> assertThat(r.status()).isEqualTo(404));

        new TestData(STACK, platform.database()).coupon(900001, "LATE-900001", 3, 10);
        awaitOnBoth("/coupons/900001", r -> {
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.json().path("attributes")).hasSize(2);
        });
        awaitOnBoth("/coupons/by-code/LATE-900001", r -> assertThat(r.status()).isEqualTo(200));
    }

    @Test
    void aCouponMovedToAnotherPlaceChangesBothPlacesLists() {
        long coupon = 27;
        cacheOnBoth("/places/7/coupon-progresses", 1);
        cacheOnBoth("/places/8/coupon-progresses", 1);
        assertThat(couponIds(first.api().get("/places/7/coupon-progresses"))).contains(coupon);

        sql("UPDATE coupon SET place_id = 8 WHERE id = " + coupon);
        awaitOnBoth("/places/7/coupon-progresses", r -> assertThat(couponIds(r)).doesNotContain(coupon));
        awaitOnBoth("/places/8/coupon-progresses", r -> assertThat(couponIds(r)).contains(coupon));
        awaitOnBoth("/coupons/" + coupon, r -> assertThat(r.json().path("placeId").asLong()).isEqualTo(8));
    }

    @Test
    void aCodeChangeMakesTheOldCode404AndTheNewCodeFound() {
        cacheOnBoth("/coupons/by-code/CPN00000010");

        sql("UPDATE coupon SET code = 'RENAMED-10' WHERE id = 10");
        awaitOnBoth("/coupons/by-code/CPN00000010", r -> assertThat(r.status()).isEqualTo(404));
        awaitOnBoth("/coupons/by-code/RENAMED-10", r -> {
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.json().path("id").asLong()).isEqualTo(10);
        });
    }

    /**
     * The bulk lookup ({@code GET /coupons?ids=}) through multi-load: no statement when every coupon is cached;
     * otherwise one for the missing coupons and one for their attributes (two tables, each read once), whatever the
     * number of misses.
     */
    @Test
    void bulkLookupRunsOneQueryPerTableForTheMissesAndNoneWhenAllHit() {
        ServiceInstance instance = first;
        long before = instance.statements();
        Response cold = instance.api().get("/coupons?ids=201,202,203,204,205");
        assertThat(instance.statements() - before).as("five misses: coupons and attributes, one query each")
                .isEqualTo(2);
        assertThat(cold.json()).hasSize(5);

        before = instance.statements();
        Response mixed = instance.api().get("/coupons?ids=210,201,209,202,208,203");
        assertThat(instance.statements() - before).as("three hits, three misses: one query per table").isEqualTo(2);
        assertThat(mixed.json().valueStream().map(c -> c.path("id").asLong()).toList())
                .containsExactly(210L, 201L, 209L, 202L, 208L, 203L);

        before = instance.statements();
        Response warm = instance.api().get("/coupons?ids=201,202,203,204,205,208,209,210");
        assertThat(instance.statements() - before).as("all hit").isZero();
        assertThat(warm.json()).hasSize(8);
    }
}
