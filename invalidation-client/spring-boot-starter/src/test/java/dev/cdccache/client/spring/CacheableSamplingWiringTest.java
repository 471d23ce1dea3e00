package dev.cdccache.client.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.StalenessPolicy;
import dev.cdccache.client.cache.ConsistencySampler;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The wiring of consistency sampling for plain {@code @Cacheable}, without a database (the values live in a map the
 * test changes behind the cache's back): the advisor exists only while sampling is on, the context starts with it
 * next to {@code @EnableCaching}, and a drawn hit is re-read by calling the method on the sampler's thread. Against
 * MariaDB, with transactions: {@code CacheableConsistencySamplingIT}.
 */
class CacheableSamplingWiringTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CdcInvalidationAutoConfiguration.class))
            .withUserConfiguration(App.class)
            .withPropertyValues("cdc.invalidation.bootstrap-servers=unused:1", "cdc.invalidation.await-ready=5s");

    @Test
    void withSamplingOnADrawnHitOfAPlainCacheableMethodCallsTheMethodAgainOnTheSamplersThread() {
        runner.withPropertyValues("cdc.invalidation.sampling.one-in=1").run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(CacheableSamplingAdvisor.class);
            Names names = context.getBean(Names.class);
            names.rows().put(1L, "old");
            assertThat(names.find(1L)).isEqualTo("old");
            names.rows().put(1L, "new"); // no invalidation

            assertThat(names.find(1L)).isEqualTo("old");

            ConsistencySampler.Counts counts = context.getBean(InvalidationClient.class).consistencySampler()
                    .orElseThrow().counts("names");
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (counts.stale() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(counts.stale()).isEqualTo(1);
            assertThat(names.threads()).containsExactly("main", "cdc-consistency-sampler", "cdc-consistency-sampler");
        });
    }

    @Test
    void withSamplingOffThereIsNoAdvisor() {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(CacheableSamplingAdvisor.class));
    }

    @Configuration(proxyBeanMethods = false)
    @EnableCaching
    static class App {

        @Bean
        InvalidationClient invalidationClient(org.springframework.core.env.Environment environment) {
            return MockKafka.readyClient(InvalidationClientConfig.builder().bootstrapServers("unused:1")
                    .maxStaleness(Duration.ofMillis(300))
                    .stalenessPolicy(StalenessPolicy.SERVE_STALE)
                    .samplingOneIn(environment.getProperty("cdc.invalidation.sampling.one-in", Integer.class, 0))
                    .cache(CacheDefinition.builder("names").table("db.name").keyColumns("id").build())
                    .build());
        }

        @Bean
        Names names() {
            return new Names();
        }
    }

    static class Names {
        final Map<Long, String> rows = new ConcurrentHashMap<>();
        final List<String> threads = new CopyOnWriteArrayList<>();

        // Read through methods: the bean is a subclass proxy, whose own fields are empty.
        public Map<Long, String> rows() {
            return rows;
        }

        public List<String> threads() {
            return threads;
        }

        @Cacheable("names")
        public String find(Long id) {
            threads.add(Thread.currentThread().getName());
            return rows.get(id);
        }
    }
}
