package dev.cdccache.client.spring.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.github.benmanes.caffeine.cache.Caffeine;
import dev.cdccache.client.StalenessPolicy;
import dev.cdccache.client.cache.CaffeineInvalidatingCache;
import dev.cdccache.client.cache.ConsistencySampler;
import dev.cdccache.client.cache.ReadGate;
import dev.cdccache.client.spring.health.ClientProblem.Severity;
import dev.cdccache.client.staleness.StalenessGuard;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ForkJoinPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Health reports a cache the consistency sampler found serving stale values, and nothing for a correct one. */
class ConsistencyProblemsTest {

    private final ConsistencySampler sampler = new ConsistencySampler(new ConsistencySampler.Settings(1, 100,
            Duration.ofMillis(100), Duration.ofMinutes(5), Objects::deepEquals), System::currentTimeMillis,
            ConsistencySampler.Listener.NONE);

    /** What health reports from the sampler's counts, as the client hands them over. */
    private java.util.List<ClientProblem> problems() {
        java.util.Map<String, Long> stale = new java.util.TreeMap<>();
        for (String cache : sampler.caches()) {
            if (sampler.counts(cache).staleInWindow() > 0) {
                stale.put(cache, sampler.counts(cache).staleInWindow());
            }
        }
        return ConsistencyProblems.problems(stale, Duration.ofMillis(100), Duration.ofMinutes(5));
    }

    @AfterEach
    void close() {
        sampler.close();
    }

    private CaffeineInvalidatingCache<Long, String> cache(String name) {
        StalenessGuard guard = new StalenessGuard(System::currentTimeMillis, Duration.ofSeconds(5),
                StalenessPolicy.SERVE_STALE, true);
        CaffeineInvalidatingCache<Long, String> cache = new CaffeineInvalidatingCache<>(name, Caffeine.newBuilder(),
                guard, true, 0, ForkJoinPool.commonPool(), CaffeineInvalidatingCache.LoadListener.NONE, ReadGate.OPEN,
                sampler);
        cache.startAccepting();
        return cache;
    }

    @Test
    void aStaleSampleRaisesAConsistencyStaleProblemNamingTheCache() {
        CaffeineInvalidatingCache<Long, String> coupons = cache("coupons");
        CaffeineInvalidatingCache<Long, String> tickets = cache("tickets");
        coupons.put(1L, "old");
        tickets.put(1L, "same");

        coupons.get(1L, key -> "new");
        tickets.get(1L, key -> "same");

        await().atMost(Duration.ofSeconds(5)).until(() -> sampler.counts("coupons").stale() == 1
                && sampler.counts("tickets").consistent() == 1);
        assertThat(problems()).singleElement().satisfies(problem -> {
            assertThat(problem.severity()).isEqualTo(Severity.TRANSIENT);
            assertThat(problem.code()).isEqualTo("consistency-stale");
            assertThat(problem.message()).contains("'coupons'");
        });
    }

    @Test
    void noProblemWhileEverySampleIsConsistent() {
        CaffeineInvalidatingCache<Long, String> tickets = cache("tickets");
        tickets.put(1L, "same");

        tickets.get(1L, key -> "same");

        await().atMost(Duration.ofSeconds(5)).until(() -> sampler.counts("tickets").consistent() == 1);
        assertThat(problems()).isEmpty();
    }
}
