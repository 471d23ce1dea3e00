package dev.cdccache.coupon.progress;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.coupon.testing.ApiClient;
import dev.cdccache.coupon.testing.ServiceInstance;
import dev.cdccache.coupon.testing.TestData;
import dev.cdccache.coupon.testing.TestDatabases;
import dev.cdccache.infra.LocalStack;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Issuing under concurrency never exceeds the limit: many threads, two instances, one real database.
 * Every issue the service acknowledged has exactly one user coupon, and the count matches.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConcurrentIssueIT {

    private static final LocalStack STACK = LocalStack.shared();
    private static final int THREADS = 16;
    private ServiceInstance first;
    private ServiceInstance second;
    private TestData data;

    @BeforeAll
    void start() {
        String database = TestDatabases.create(STACK, "coupon_issue");
        Map<String, String> settings = ServiceInstance.databaseSettings(STACK, database);
        settings.put("coupon.cache.mode", "none");
        first = ServiceInstance.start(settings);
        second = ServiceInstance.start(settings);
        data = new TestData(STACK, database);
        data.place(1);
        data.coupon(1, "FLASH-1", 1, 50);
        data.coupon(2, "ONE-USER-2", 1, 1000);
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
    void manyUsersRacingForALimitedCouponGetExactlyTheLimit() throws Exception {
        int users = 200;
        List<Integer> statuses = race(users, user -> "{\"userId\":" + (10_000 + user) + "}", 1);

        assertThat(statuses).filteredOn(status -> status == 201).hasSize(50);
        assertThat(statuses).filteredOn(status -> status == 409).hasSize(users - 50);
        assertThat(data.issuedCount(1)).isEqualTo(50);
        assertThat(data.count("user_coupon", "coupon_id = 1")).isEqualTo(50);
    }

    @Test
    void oneUserRacingWithItselfGetsTheCouponOnce() throws Exception {
        List<Integer> statuses = race(40, attempt -> "{\"userId\":777}", 2);

        assertThat(statuses).filteredOn(status -> status == 201).hasSize(1);
        assertThat(statuses).filteredOn(status -> status == 409).hasSize(39);
        assertThat(data.issuedCount(2)).isEqualTo(1);
        assertThat(data.count("user_coupon", "coupon_id = 2 AND user_id = 777")).isEqualTo(1);
    }

    /** {@code requests} issues of {@code couponId}, alternating between the instances, from {@value #THREADS} threads. */
    private List<Integer> race(int requests, java.util.function.IntFunction<String> body, long couponId) throws Exception {
        ApiClient[] clients = {first.api(), second.api()};
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Callable<Integer>> calls = new ArrayList<>();
            for (int i = 0; i < requests; i++) {
                int n = i;
                calls.add(() -> clients[n % 2].post("/coupons/" + couponId + "/issue", body.apply(n)).status());
            }
            List<Integer> statuses = new ArrayList<>();
            for (Future<Integer> result : pool.invokeAll(calls)) {
                statuses.add(result.get());
            }
            return statuses;
        } finally {
            pool.shutdownNow();
        }
    }
}
