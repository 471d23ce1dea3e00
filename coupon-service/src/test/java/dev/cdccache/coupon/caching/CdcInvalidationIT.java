package dev.cdccache.coupon.caching;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdccache.coupon.generator.GenerationPlan;
import dev.cdccache.coupon.testing.ApiClient.Response;
import dev.cdccache.coupon.testing.CdcTwoInstances;
import dev.cdccache.coupon.testing.CouponBodies;
import dev.cdccache.coupon.testing.ServiceInstance;
import dev.cdccache.coupon.testing.TestData;
import dev.cdccache.infra.LocalStack;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;

/**
 * The platform end to end: a change made with plain SQL, outside the service, reaches the local caches
 * of two running instances through the real connector (binlog to Kafka) and the invalidation client,
 * and both then serve the new state. Also proves the bulk lookup's cost by counting statements.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CdcInvalidationIT {

    private static final LocalStack STACK = LocalStack.shared();
    private CdcTwoInstances platform;
    private ServiceInstance first;
    private ServiceInstance second;

    @BeforeAll
    void start() throws Exception {
        platform = CdcTwoInstances.start(STACK, "cdc", "local");
        first = platform.first();
        second = platform.second();
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

    private void getOnBoth(String path, int expectedStatus) {
        for (ServiceInstance instance : List.of(first, second)) {
            assertThat(instance.api().get(path).status()).as(path).isEqualTo(expectedStatus);
        }
    }

    /**
     * Before counting statements: other tests write through the admin and issue APIs, and until an instance has
     * proven its own last write applied, its hits bypass the cache (read-your-writes) and show as statements.
     */
    private void awaitOwnWritesAppliedOnBoth() {
        first.awaitOwnWritesApplied();
        second.awaitOwnWritesApplied();
    }

    private static List<Long> couponIds(Response placeProgresses) {
        return placeProgresses.json().valueStream().map(c -> c.path("coupon").path("id").asLong()).toList();
    }

    @Test
    void anUpdateOfTheCouponOrOfOneOfItsAttributesIsServedByBothInstances() {
        getOnBoth("/coupons/5", 200);
        getOnBoth("/coupons/5", 200); // now cached on both

        sql("UPDATE coupon SET name = 'renamed by plain SQL', discount_value = 4321.00 WHERE id = 5");
        awaitOnBoth("/coupons/5", r -> {
            assertThat(r.json().path("name").asString()).isEqualTo("renamed by plain SQL");
            assertThat(r.json().path("discountValue").decimalValue()).isEqualByComparingTo("4321.00");
        });

        sql("UPDATE coupon_attribute SET attribute_value = 'changed-outside' WHERE coupon_id = 5 AND attribute_key = 'channel'");
        awaitOnBoth("/coupons/5", r -> assertThat(r.json().path("attributes").valueStream()
                .filter(a -> a.path("key").asString().equals("channel")).findFirst().orElseThrow()
                .path("value").asString()).isEqualTo("changed-outside"));
    }

    @Test
    void aDeletedCouponBecomes404OnBothInstancesAndLeavesItsPlaceList() {
        long place = 1 + (6 - 1) % GenerationPlan.SMALL.places();
        getOnBoth("/coupons/6", 200);
        getOnBoth("/places/" + place + "/coupon-progresses", 200);

        sql("DELETE FROM coupon_attribute WHERE coupon_id = 6",
                "DELETE FROM coupon_progress WHERE coupon_id = 6",
                "DELETE FROM coupon WHERE id = 6");
        awaitOnBoth("/coupons/6", r -> assertThat(r.status()).isEqualTo(404));
        awaitOnBoth("/places/" + place + "/coupon-progresses", r -> assertThat(couponIds(r)).doesNotContain(6L));
    }

    @Test
    void aMissingIdThatIsLaterInsertedBecomesVisible() {
        awaitOwnWritesAppliedOnBoth();
        getOnBoth("/coupons/900001", 404);
        long before = first.statements();
        assertThat(first.api().get("/coupons/900001").status()).isEqualTo(404);
        assertThat(first.statements() - before).as("the absence is cached").isZero();

        new TestData(STACK, platform.database()).coupon(900001, "LATE-900001", 3, 10);
        awaitOnBoth("/coupons/900001", r -> {
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.json().path("attributes")).hasSize(2);
        });
        awaitOnBoth("/coupons/by-code/LATE-900001", r -> assertThat(r.status()).isEqualTo(200));
    }

    @Test
    void aNotFoundCachedForOneCaseOfACodeIsEvictedByTheInsertOfTheOtherCase() {
        awaitOwnWritesAppliedOnBoth();
        // The code column's collation ignores case: the database answers 'case-900002' with 'CASE-900002'.
        getOnBoth("/coupons/by-code/case-900002", 404);
        long before = first.statements();
        assertThat(first.api().get("/coupons/by-code/case-900002").status()).isEqualTo(404);
        assertThat(first.statements() - before).as("the absence is cached").isZero();

        new TestData(STACK, platform.database()).coupon(900002, "CASE-900002", 3, 10);
        awaitOnBoth("/coupons/by-code/case-900002", r -> {
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.json().path("code").asString()).isEqualTo("CASE-900002");
        });
        // Once the coupon's attribute rows (inserted after it) have been applied too, another spelling is served
        // from the same entries without a statement.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            long start = first.statements();
            assertThat(first.api().get("/coupons/by-code/Case-900002").status()).isEqualTo(200);
            assertThat(first.statements() - start).as("another spelling hits the same entries").isZero();
        });
    }

    @Test
    void aCouponMovedToAnotherPlaceChangesBothPlacesLists() {
        long coupon = 27; // place 7 with 20 places
        getOnBoth("/places/7/coupon-progresses", 200);
        getOnBoth("/places/8/coupon-progresses", 200);
        assertThat(couponIds(first.api().get("/places/7/coupon-progresses"))).contains(coupon);

        sql("UPDATE coupon SET place_id = 8 WHERE id = " + coupon);
        awaitOnBoth("/places/7/coupon-progresses", r -> assertThat(couponIds(r)).doesNotContain(coupon));
        awaitOnBoth("/places/8/coupon-progresses", r -> assertThat(couponIds(r)).contains(coupon));
        awaitOnBoth("/coupons/" + coupon, r -> assertThat(r.json().path("placeId").asLong()).isEqualTo(8));
    }

    @Test
    void aCodeChangeMakesTheOldCode404AndTheNewCodeFound() {
        getOnBoth("/coupons/by-code/CPN00000010", 200);
        getOnBoth("/coupons/by-code/RENAMED-10", 404);

        sql("UPDATE coupon SET code = 'RENAMED-10' WHERE id = 10");
        awaitOnBoth("/coupons/by-code/CPN00000010", r -> assertThat(r.status()).isEqualTo(404));
        awaitOnBoth("/coupons/by-code/RENAMED-10", r -> {
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.json().path("id").asLong()).isEqualTo(10);
        });
    }

    @Test
    void anAdminChangeThroughOneInstanceIsServedByTheOther() {
        JsonNode coupon = second.api().get("/coupons/12").json();
        String status = coupon.path("status").asString();
        assertThat(status).isIn("ACTIVE", "PAUSED", "ENDED");
        assertThat(new TestData(STACK, platform.database()).count("coupon", "id = 12 AND status = '" + status + "'"))
                .as("the served status is the row's").isEqualTo(1);
        String body = CouponBodies.renamed(coupon, "changed through the admin API",
                List.of(Map.of("key", "channel", "value", "web")));
        assertThat(first.api().put("/admin/coupons/12", body).status()).isEqualTo(200);

        awaitOnBoth("/coupons/12", r -> {
            assertThat(r.json().path("name").asString()).isEqualTo("changed through the admin API");
            assertThat(r.json().path("status").asString()).isEqualTo(status);
            assertThat(r.json().path("attributes")).hasSize(1);
        });
    }

    @Test
    void bulkLookupRunsOneQueryForTheMissesAndNoneWhenAllHit() {
        awaitOwnWritesAppliedOnBoth();
        ServiceInstance instance = first;
        long before = instance.statements();
        Response cold = instance.api().get("/coupons?ids=201,202,203,204,205");
        assertThat(instance.statements() - before).as("five misses, one query").isEqualTo(1);
        assertThat(cold.json()).hasSize(5);

        before = instance.statements();
        Response mixed = instance.api().get("/coupons?ids=210,201,209,202,208,203,999999");
        assertThat(instance.statements() - before).as("three hits, four misses: one query").isEqualTo(1);
        assertThat(mixed.json().valueStream().map(c -> c.path("id").asLong()).toList())
                .containsExactly(210L, 201L, 209L, 202L, 208L, 203L);

        before = instance.statements();
        Response warm = instance.api().get("/coupons?ids=201,202,203,204,205,208,209,210,999999");
        assertThat(instance.statements() - before).as("all hit (999999 cached as absent)").isZero();
        assertThat(warm.json()).hasSize(8);
    }

    private static int issuedCount(Response placeProgresses, long coupon) {
        return placeProgresses.json().valueStream().filter(c -> c.path("coupon").path("id").asLong() == coupon)
                .findFirst().orElseThrow(() -> new AssertionError("coupon " + coupon + " not in " + placeProgresses))
                .path("issuedCount").asInt();
    }

    @Test
    void aProgressCountChangedByPlainSqlIsServedFreshByBothInstancesAfterTheyServedItFromTheirCaches() {
        awaitOwnWritesAppliedOnBoth();
        long coupon = 33; // place 13 with 20 places
        String path = "/places/13/coupon-progresses";
        getOnBoth(path, 200);
        for (ServiceInstance instance : List.of(first, second)) {
            long before = instance.statements();
            assertThat(instance.api().get(path).status()).isEqualTo(200);
            assertThat(instance.statements() - before).as("place, coupon list, coupons and counts all cached").isZero();
        }
        int issued = issuedCount(first.api().get(path), coupon);

        sql("UPDATE coupon_progress SET issued_count = issued_count + 7 WHERE coupon_id = " + coupon);
        awaitOnBoth(path, r -> assertThat(issuedCount(r, coupon)).isEqualTo(issued + 7));
    }

    @Test
    void anIssueThroughOneInstanceIsCountedByTheOther() {
        long coupon = 54; // place 14 with 20 places
        String path = "/places/14/coupon-progresses";
        // issuable today whatever the generator drew for it
        sql("UPDATE coupon SET status = 'ACTIVE', valid_from = '" + TestData.today().minusDays(1) + "', valid_until = '"
                + TestData.today().plusDays(30) + "', issue_limit = 100000 WHERE id = " + coupon);
        awaitOnBoth("/coupons/" + coupon, r -> assertThat(r.json().path("issueLimit").asInt()).isEqualTo(100000));
        getOnBoth(path, 200);
        getOnBoth(path, 200); // now cached on both
        int issued = issuedCount(second.api().get(path), coupon);

        assertThat(first.api().post("/coupons/" + coupon + "/issue", "{\"userId\": 540001}").status()).isEqualTo(201);
        awaitOnBoth(path, r -> assertThat(issuedCount(r, coupon)).isEqualTo(issued + 1));
    }
}
