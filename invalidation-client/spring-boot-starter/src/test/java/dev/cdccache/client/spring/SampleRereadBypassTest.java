package dev.cdccache.client.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.StalenessPolicy;
import dev.cdccache.client.cache.ConsistencySampler;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A sampled re-invocation bypasses every cache, not only the sampled method's own: a method whose body reads through
 * another cached method (here a second cache of the same client, opted out of sampling) must not be re-read from that
 * cache nor fill it, or a view built from a stale nested entry would compare equal and count consistent.
 */
class SampleRereadBypassTest {

    private static final Duration MAX_STALENESS = Duration.ofMillis(300);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CdcInvalidationAutoConfiguration.class))
            .withUserConfiguration(App.class)
            .withPropertyValues("cdc.invalidation.bootstrap-servers=unused:1", "cdc.invalidation.await-ready=5s",
                    "cdc.invalidation.sampling.one-in=1");

    @Test
    void aViewBuiltFromAStaleNestedCacheEntryIsNotCountedConsistent() {
        runner.run(context -> {
            Views views = context.getBean(Views.class);
            Names names = context.getBean(Names.class);
            names.database().put(1L, "old");
            assertThat(views.view(1L)).isEqualTo("view of old"); // both caches filled
            names.database().put(1L, "new"); // no invalidation reaches either cache

            assertThat(views.view(1L)).isEqualTo("view of old"); // hit of "views", sampled

            ConsistencySampler.Counts counts = context.getBean(InvalidationClient.class).consistencySampler()
                    .orElseThrow().counts("views");
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (counts.consistent() + counts.stale() + counts.inconclusive() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(counts.consistent()).as("the database says 'view of new'").isZero();
            assertThat(counts.stale()).isEqualTo(1);
        });
    }

    @Test
    void theReInvocationStoresNothingInTheCachesItsMethodReadsThrough() {
        runner.run(context -> {
            Views views = context.getBean(Views.class);
            Names names = context.getBean(Names.class);
            names.database().put(2L, "name");
            views.view(2L);
            context.getBean(CdcCacheManager.class).invalidatingCache("names").invalidate(2L);

            views.view(2L); // hit of "views", sampled: the re-invocation calls names.name(2) through its proxy
            Thread.sleep(MAX_STALENESS.toMillis() * 3);

            assertThat(context.getBean(CdcCacheManager.class).invalidatingCache("names").lookup(2L))
                    .as("stored by the sampler's re-invocation").isNull();
        });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableCaching
    static class App {

        @Bean
        InvalidationClient invalidationClient() {
            return MockKafka.readyClient(InvalidationClientConfig.builder().bootstrapServers("unused:1")
                    .maxStaleness(MAX_STALENESS)
                    .stalenessPolicy(StalenessPolicy.SERVE_STALE)
                    .samplingOneIn(1)
                    .samplingMaxPerSecond(100)
                    .cache(CacheDefinition.builder("views").table("db.item").keyColumns("id").build())
                    .cache(CacheDefinition.builder("names").table("db.item").keyColumns("id").sampled(false).build())
                    .build());
        }

        @Bean
        Names names() {
            return new Names();
        }

        @Bean
        Views views(Names names) {
            return new Views(names);
        }
    }

    static class Names {
        private final Map<Long, String> database = new ConcurrentHashMap<>();

        /** Through a method: the bean is a class-based proxy, whose own fields are not the target's. */
        public Map<Long, String> database() {
            return database;
        }

        @Cacheable("names")
        public String name(Long id) {
            return database.get(id);
        }
    }

    static class Views {
        private final Names names;

        Views(Names names) {
            this.names = names;
        }

        @Cacheable("views")
        public String view(Long id) {
            return "view of " + names.name(id);
        }
    }
}
