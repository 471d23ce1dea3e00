package dev.cdccache.coupon.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.coupon.testing.ApiClient;
import dev.cdccache.coupon.testing.ApiClient.Response;
import dev.cdccache.coupon.testing.ServiceInstance;
import dev.cdccache.coupon.testing.TestData;
import dev.cdccache.coupon.testing.TestDatabases;
import dev.cdccache.infra.LocalStack;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Every endpoint's bad input gets a 4xx RFC 7807 problem with a message that names the problem, and a
 * rejected write leaves nothing behind. Real HTTP against one instance (cache mode {@code none}) on the
 * real MariaDB.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CouponApiBadInputIT {

    private static final LocalStack STACK = LocalStack.shared();
    private String database;
    private ServiceInstance service;
    private ApiClient api;
    private TestData data;

    @BeforeAll
    void start() {
        database = TestDatabases.create(STACK, "coupon_bad_input");
        Map<String, String> settings = ServiceInstance.databaseSettings(STACK, database);
        settings.put("coupon.cache.mode", "none");
        settings.put("coupon.api.max-bulk-ids", "500");
        service = ServiceInstance.start(settings);
        api = service.api();
        data = new TestData(STACK, database);
        data.place(1);
        data.place(2);
        data.coupon(1, "FIRST-1", 1, 1);
        data.coupon(2, "SECOND-2", 1, 100);
        data.coupon(3, "PAUSED-3", 2, 100, "PAUSED", true);
    }

    @AfterAll
    void stop() {
        if (service != null) {
            service.close();
        }
    }

    private static void assertProblem(Response response, int status, String detailContains) {
        assertThat(response.status()).as(response.toString()).isEqualTo(status);
        assertThat(response.isProblem()).as("problem+json content type: " + response.contentType()).isTrue();
        assertThat(response.json().path("status").asInt()).isEqualTo(status);
        assertThat(response.detail()).as(response.toString()).containsIgnoringCase(detailContains);
    }

    @Nested
    class CouponById {
        @Test
        void nonNumericIdIs400NamingTheParameter() {
            assertProblem(api.get("/coupons/abc"), 400, "'id' must be an integer");
        }

        @Test
        void zeroOrNegativeIdIs400() {
            assertProblem(api.get("/coupons/0"), 400, "id");
            assertProblem(api.get("/coupons/-4"), 400, "id");
        }

        @Test
        void unknownIdIs404() {
            assertProblem(api.get("/coupons/987654"), 404, "no coupon has id 987654");
        }

        @Test
        void knownIdReturnsTheCouponWithItsAttributes() {
            Response response = api.get("/coupons/2");
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.json().path("code").asString()).isEqualTo("SECOND-2");
            assertThat(response.json().path("attributes")).hasSize(2);
        }
    }

    @Nested
    class BulkLookup {
        @Test
        void missingIdsParameterIs400() {
            assertProblem(api.get("/coupons"), 400, "'ids' is required");
            assertProblem(api.get("/coupons?ids="), 400, "'ids' is required");
        }

        @Test
        void nonNumericIdIs400NamingTheToken() {
            assertProblem(api.get("/coupons?ids=1,abc,3"), 400, "'abc'");
        }

        @Test
        void emptyEntryOrNonPositiveIdIs400() {
            assertProblem(api.get("/coupons?ids=1,,3"), 400, "empty entry");
            assertProblem(api.get("/coupons?ids=1,0"), 400, "'0'");
        }

        @Test
        void moreIdsThanTheCapIs400NamingTheCap() {
            String ids = IntStream.rangeClosed(1, 501).mapToObj(Integer::toString).collect(Collectors.joining(","));
            assertProblem(api.get("/coupons?ids=" + ids), 400, "at most 500 ids");
        }

        @Test
        void exactlyTheCapIsAccepted() {
            String ids = IntStream.rangeClosed(1, 500).mapToObj(Integer::toString).collect(Collectors.joining(","));
            assertThat(api.get("/coupons?ids=" + ids).status()).isEqualTo(200);
        }

        @Test
        void unknownIdsAreOmittedAndOrderIsKept() {
            Response response = api.get("/coupons?ids=3,99999,1,2,1");
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.json().valueStream().map(c -> c.path("id").asLong()).toList()).containsExactly(3L, 1L, 2L);
        }
    }

    @Nested
    class ByCode {
        @Test
        void codeWithForbiddenCharactersIs400() {
            assertProblem(api.get("/coupons/by-code/has%20space"), 400, "code");
        }

        @Test
        void tooLongCodeIs400() {
            assertProblem(api.get("/coupons/by-code/" + "X".repeat(65)), 400, "code");
        }

        @Test
        void unknownCodeIs404() {
            assertProblem(api.get("/coupons/by-code/NOPE-1"), 404, "no coupon has code 'NOPE-1'");
        }

        @Test
        void knownCodeReturnsTheCoupon() {
            assertThat(api.get("/coupons/by-code/FIRST-1").json().path("id").asLong()).isEqualTo(1);
        }
    }

    @Nested
    class PlaceCouponProgresses {
        @Test
        void nonNumericPlaceIs400() {
            assertProblem(api.get("/places/abc/coupon-progresses"), 400, "'placeId' must be an integer");
        }

        @Test
        void unknownPlaceIs404() {
            assertProblem(api.get("/places/424242/coupon-progresses"), 404, "no place has id 424242");
        }

        @Test
        void knownPlaceListsItsCouponsWithProgress() {
            Response response = api.get("/places/1/coupon-progresses");
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.json().valueStream().map(c -> c.path("coupon").path("id").asLong()).toList())
                    .containsExactly(1L, 2L);
            assertThat(response.json().get(1).path("remainingCount").asInt()).isEqualTo(100 - (int) data.issuedCount(2));
        }
    }

    @Nested
    class AvailableCoupons {
        @Test
        void missingPlaceOrPriceIs400() {
            assertProblem(api.get("/coupons/available?price=20000"), 400, "placeId");
            assertProblem(api.get("/coupons/available?placeId=1"), 400, "price");
        }

        @Test
        void malformedValuesAre400() {
            assertProblem(api.get("/coupons/available?placeId=x&price=20000"), 400, "'placeId' must be an integer");
            assertProblem(api.get("/coupons/available?placeId=1&price=cheap"), 400, "'price' must be a decimal number");
            assertProblem(api.get("/coupons/available?placeId=1&price=-5"), 400, "price");
            assertProblem(api.get("/coupons/available?placeId=1&price=20000&date=2026-13-45"), 400, "'date' must be a date");
        }

        @Test
        void unknownPlaceIs404() {
            assertProblem(api.get("/coupons/available?placeId=424242&price=20000"), 404, "no place has id 424242");
        }

        @Test
        void onlyActiveCouponsWhoseMinimumPriceIsMetAreListed() {
            assertThat(api.get("/coupons/available?placeId=1&price=5000").json()).isEmpty();
            Response response = api.get("/coupons/available?placeId=1&price=20000&date=" + TestData.today());
            assertThat(response.json().valueStream().map(c -> c.path("coupon").path("id").asLong()).toList())
                    .contains(2L);
            assertThat(api.get("/coupons/available?placeId=2&price=20000").json()).isEmpty(); // paused
        }
    }

    @Nested
    class Issue {
        @Test
        void missingOrMalformedBodyIs400() {
            assertProblem(api.post("/coupons/2/issue", null), 400, "request body");
            assertProblem(api.post("/coupons/2/issue", "{not json"), 400, "not valid JSON");
            assertProblem(api.post("/coupons/2/issue", "{}"), 400, "userId");
            assertProblem(api.post("/coupons/2/issue", "{\"userId\":\"someone\"}"), 400, "not valid JSON");
            assertProblem(api.post("/coupons/2/issue", "{\"userId\":-5}"), 400, "userId");
        }

        @Test
        void nonNumericCouponIs400AndUnknownCouponIs404() {
            assertProblem(api.post("/coupons/abc/issue", "{\"userId\":1}"), 400, "'id' must be an integer");
            assertProblem(api.post("/coupons/987654/issue", "{\"userId\":1}"), 404, "no coupon has id 987654");
        }

        @Test
        void secondIssueToTheSameUserIs409AndCountsOnce() {
            assertThat(api.post("/coupons/2/issue", "{\"userId\":7001}").status()).isEqualTo(201);
            long issued = data.issuedCount(2);
            assertProblem(api.post("/coupons/2/issue", "{\"userId\":7001}"), 409, "already holds coupon 2");
            assertThat(data.issuedCount(2)).as("the rejected issue did not count").isEqualTo(issued);
            assertThat(data.count("user_coupon", "coupon_id = 2 AND user_id = 7001")).isEqualTo(1);
        }

        @Test
        void issueBeyondTheLimitIs409AndWritesNothing() {
            assertThat(api.post("/coupons/1/issue", "{\"userId\":8001}").status()).isEqualTo(201);
            assertProblem(api.post("/coupons/1/issue", "{\"userId\":8002}"), 409, "issue limit");
            assertThat(data.issuedCount(1)).isEqualTo(1);
            assertThat(data.count("user_coupon", "coupon_id = 1")).isEqualTo(1);
        }

        @Test
        void pausedCouponIs409() {
            assertProblem(api.post("/coupons/3/issue", "{\"userId\":9001}"), 409, "PAUSED");
            assertThat(data.count("user_coupon", "coupon_id = 3")).isZero();
        }

        @Test
        void couponInsertedWithoutProgressRowCanBeIssued() {
            data.place(3); // a place of its own, so the other tests' lists do not change
            data.coupon(4, "NO-PROGRESS-4", 3, 10, "ACTIVE", false);
            assertThat(api.post("/coupons/4/issue", "{\"userId\":1}").status()).isEqualTo(201);
            assertThat(data.issuedCount(4)).isEqualTo(1);
        }
    }

    @Nested
    class Admin {
        private Map<String, Object> validBody(String code) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("code", code);
            body.put("placeId", 1);
            body.put("name", "Admin coupon");
            body.put("discountType", "PERCENTAGE");
            body.put("discountValue", "15");
            body.put("minimumPrice", "30000");
            body.put("validFrom", TestData.today().toString());
            body.put("validUntil", TestData.today().plusDays(10).toString());
            body.put("status", "ACTIVE");
            body.put("issueLimit", 50);
            body.put("attributes", List.of(Map.of("key", "channel", "value", "app")));
            return body;
        }

        private Response create(Map<String, Object> body) {
            return api.post("/admin/coupons", ApiClient.toJson(body));
        }

        @Test
        void createdCouponIsReturnedWithLocationAndReadable() {
            Response created = create(validBody("ADMIN-NEW-1"));
            assertThat(created.status()).as(created.toString()).isEqualTo(201);
            long id = created.json().path("id").asLong();
            assertThat(api.get("/coupons/" + id).json().path("code").asString()).isEqualTo("ADMIN-NEW-1");
            assertThat(data.count("coupon_progress", "coupon_id = " + id)).isEqualTo(1);
        }

        @Test
        void missingFieldsAre400ListingEveryField() {
            Response response = api.post("/admin/coupons", "{\"code\":\"X-1\"}");
            assertProblem(response, 400, "placeId");
            assertThat(response.detail()).contains("name", "discountType", "validFrom", "issueLimit", "attributes");
            assertThat(response.json().path("errors").size()).isGreaterThanOrEqualTo(8);
        }

        @Test
        void inconsistentValuesAre400() {
            Map<String, Object> window = validBody("BAD-WINDOW");
            window.put("validFrom", TestData.today().plusDays(20).toString());
            assertProblem(create(window), 400, "validFrom must not be after validUntil");

            Map<String, Object> percentage = validBody("BAD-PERCENT");
            percentage.put("discountValue", "150");
            assertProblem(create(percentage), 400, "at most 100");

            Map<String, Object> duplicateKeys = validBody("BAD-KEYS");
            duplicateKeys.put("attributes", List.of(Map.of("key", "a", "value", "1"), Map.of("key", "a", "value", "2")));
            assertProblem(create(duplicateKeys), 400, "attribute keys must be unique");

            Map<String, Object> badCode = validBody("bad code!");
            assertProblem(create(badCode), 400, "code");

            Map<String, Object> badEnum = validBody("BAD-ENUM");
            badEnum.put("discountType", "FREE_LUNCH");
            assertProblem(create(badEnum), 400, "FREE_LUNCH");

            Map<String, Object> badDate = validBody("BAD-DATE");
            badDate.put("validUntil", "next tuesday");
            assertProblem(create(badDate), 400, "not valid JSON");

            assertThat(data.count("coupon", "code LIKE 'BAD-%'")).isZero();
        }

        @Test
        void unknownPlaceIs422AndWritesNothing() {
            Map<String, Object> body = validBody("NO-PLACE-1");
            body.put("placeId", 424242);
            assertProblem(create(body), 422, "placeId 424242");
            assertThat(data.count("coupon", "code = 'NO-PLACE-1'")).isZero();
        }

        @Test
        void duplicateCodeIs409AndWritesNothing() {
            long attributesBefore = data.count("coupon_attribute", "1 = 1");
            assertProblem(create(validBody("FIRST-1")), 409, "already has code 'FIRST-1'");
            assertThat(data.count("coupon_attribute", "1 = 1")).isEqualTo(attributesBefore);
        }

        @Test
        void updateOfUnknownOrNonNumericIdIsRejected() {
            assertProblem(api.put("/admin/coupons/987654", ApiClient.toJson(validBody("UPD-1"))), 404, "987654");
            assertProblem(api.put("/admin/coupons/abc", ApiClient.toJson(validBody("UPD-1"))), 400, "'id' must be an integer");
            assertProblem(api.put("/admin/coupons/2", "[]"), 400, "not valid JSON");
        }

        @Test
        void updateTakingAnotherCouponsCodeIs409AndLeavesTheCouponUnchanged() {
            Map<String, Object> body = validBody("FIRST-1");
            assertProblem(api.put("/admin/coupons/2", ApiClient.toJson(body)), 409, "FIRST-1");
            Response unchanged = api.get("/coupons/2");
            assertThat(unchanged.json().path("code").asString()).isEqualTo("SECOND-2");
            assertThat(unchanged.json().path("attributes")).hasSize(2);
        }

        @Test
        void updateReplacesMetadataAndAttributes() {
            Response created = create(validBody("TO-UPDATE-1"));
            long id = created.json().path("id").asLong();
            Map<String, Object> body = validBody("UPDATED-1");
            body.put("attributes", List.of(Map.of("key", "stackable", "value", "true"), Map.of("key", "room-type", "value", "suite")));
            Response updated = api.put("/admin/coupons/" + id, ApiClient.toJson(body));
            assertThat(updated.status()).as(updated.toString()).isEqualTo(200);
            assertThat(updated.json().path("code").asString()).isEqualTo("UPDATED-1");
            assertThat(updated.json().path("attributes").valueStream().map(a -> a.path("key").asString()).toList())
                    .containsExactly("stackable", "room-type");
        }
    }

    @Test
    void unknownRouteIs404Problem() {
        Response response = api.get("/nothing-here");
        assertThat(response.status()).isEqualTo(404);
        assertThat(response.isProblem()).isTrue();
    }
}
