package dev.cdccache.coupon.caching;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdccache.coupon.generator.CouponDataGenerator;
import dev.cdccache.coupon.generator.GenerationPlan;
import dev.cdccache.coupon.testing.ApiClient.Response;
import dev.cdccache.coupon.testing.ServiceInstance;
import dev.cdccache.coupon.testing.TestData;
import dev.cdccache.coupon.testing.TestDatabases;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.redis.RedisServer;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Cache mode {@code redis} serves the same API from a real Redis shared by two instances: hits cost
 * no statement, a bulk lookup loads all its misses with one, and a change made outside the service
 * shows once the TTL has expired (nothing evicts it earlier: the usual remote-cache trade-off).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisCacheModeIT {

    private static final LocalStack STACK = LocalStack.shared();
    private String database;
    private ServiceInstance first;
    private ServiceInstance second;

    @BeforeAll
    void start() throws Exception {
        database = TestDatabases.create(STACK, "coupon_redis");
        RedisServer redis = STACK.redis();
        Map<String, String> settings = ServiceInstance.databaseSettings(STACK, database);
        settings.put("coupon.cache.mode", "redis");
        settings.put("coupon.cache.redis.ttl", "2s");
        settings.put("coupon.cache.redis.key-prefix", "it-" + UUID.randomUUID() + ":");
        settings.put("spring.data.redis.host", redis.host());
        settings.put("spring.data.redis.port", Integer.toString(redis.port()));
        first = ServiceInstance.start(settings);
        second = ServiceInstance.start(settings);
        new CouponDataGenerator(first.dataSource()).generate(GenerationPlan.SMALL, false, TestData.today());
    }

    @AfterAll
    void stop() {
        for (ServiceInstance instance : new ServiceInstance[] {first, second}) {
            if (instance != null) {
                instance.close();
            }
        }
    }

    @Test
    void aCouponCachedByOneInstanceIsAHitForTheOther() {
        Response loaded = first.api().get("/coupons/11");
        assertThat(loaded.status()).isEqualTo(200);
        assertThat(loaded.json().path("attributes")).hasSize(5);

        long before = second.statements();
        Response hit = second.api().get("/coupons/11");
        assertThat(second.statements() - before).as("served from Redis").isZero();
        assertThat(hit.json()).isEqualTo(loaded.json());
    }

    @Test
    void bulkLookupLoadsAllMissesWithOneStatementAndNoneWhenAllHit() {
        long before = first.statements();
        assertThat(first.api().get("/coupons?ids=101,102,103,104,105").json()).hasSize(5);
        assertThat(first.statements() - before).as("five misses").isEqualTo(1);

        before = first.statements();
        Response mixed = first.api().get("/coupons?ids=110,101,109,102,108,103,9999");
        assertThat(first.statements() - before).as("three hits, four misses").isEqualTo(1);
        assertThat(mixed.json().valueStream().map(c -> c.path("id").asLong()).toList())
                .containsExactly(110L, 101L, 109L, 102L, 108L, 103L);

        before = first.statements();
        first.api().get("/coupons?ids=101,102,103,108,109,110");
        assertThat(first.statements() - before).as("all hit").isZero();
    }

    @Test
    void aCodeInAnotherCaseIsAHitOnTheSameEntryAsTheDatabaseCollationMakesItTheSameCoupon() {
        assertThat(first.api().get("/coupons/by-code/CPN00000077").json().path("id").asLong()).isEqualTo(77);
        long before = second.statements();
        Response otherCase = second.api().get("/coupons/by-code/cpn00000077");
        assertThat(otherCase.json().path("id").asLong()).isEqualTo(77);
        assertThat(second.statements() - before).as("served from Redis").isZero();
    }

    @Test
    void everyReadEndpointAnswersLikeTheOtherModes() {
        assertThat(first.api().get("/coupons/by-code/CPN00000042").json().path("id").asLong()).isEqualTo(42);
        assertThat(first.api().get("/coupons/by-code/CPN99999999").status()).isEqualTo(404);
        Response progresses = first.api().get("/places/3/coupon-progresses");
        assertThat(progresses.status()).isEqualTo(200);
        assertThat(progresses.json().valueStream().map(c -> c.path("coupon").path("placeId").asLong()))
                .isNotEmpty().allMatch(placeId -> placeId == 3);
        assertThat(first.api().get("/coupons/available?placeId=3&price=200000").status()).isEqualTo(200);
        assertThat(first.api().get("/places/9999/coupon-progresses").status()).isEqualTo(404);
    }

    @Test
    void anOutsideChangeShowsOnlyAfterTheTtl() {
        assertThat(first.api().get("/coupons/7").json().path("name").asString()).doesNotStartWith("renamed");
        TestDatabases.sql(STACK, database, "UPDATE coupon SET name = 'renamed outside' WHERE id = 7");
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
                assertThat(second.api().get("/coupons/7").json().path("name").asString()).isEqualTo("renamed outside"));
    }

    @Test
    void healthIncludesRedis() {
        Response health = first.api().get("/actuator/health");
        assertThat(health.status()).isEqualTo(200);
        assertThat(health.json().path("components").has("redisCacheHealthIndicator")
                || health.json().path("components").has("redisCache")).as(health.text()).isTrue();
    }
}
