package dev.cdccache.client.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.StalenessPolicy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Review: a sampled hit of {@code @Cacheable(sync = true)} is re-read through Spring's value loader, which proceeds
 * with the original method invocation on the sampler's thread: no read-only transaction is opened for it (unlike the
 * non-{@code sync} re-invocation, docs/client.md "the re-invocation"), so the method runs in no transaction at all.
 */
class SyncCacheableSamplingTransactionReviewTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CdcInvalidationAutoConfiguration.class))
            .withUserConfiguration(App.class)
            .withPropertyValues("cdc.invalidation.bootstrap-servers=unused:1", "cdc.invalidation.await-ready=5s",
                    "cdc.invalidation.sampling.one-in=1");

    @Test
    void aSampledReReadOfASyncCacheableMethodRunsInAReadOnlyTransaction() {
        runner.run(context -> {
            Items items = context.getBean(Items.class);
            items.find(1L); // miss: cached
            items.find(1L); // hit, sampled
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (items.calls().size() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(items.calls()).hasSize(2);
            assertThat(items.calls().get(1)).as("the sampler's re-read: thread, in a transaction, read-only")
                    .isEqualTo("cdc-consistency-sampler true true");
        });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableCaching
    @EnableTransactionManagement
    static class App {

        @Bean
        InvalidationClient invalidationClient() {
            return MockKafka.readyClient(InvalidationClientConfig.builder().bootstrapServers("unused:1")
                    .maxStaleness(Duration.ofMillis(300)).stalenessPolicy(StalenessPolicy.SERVE_STALE)
                    .samplingOneIn(1).samplingMaxPerSecond(100)
                    .cache(CacheDefinition.builder("items").table("db.item").keyColumns("id").build()).build());
        }

        @Bean
        DataSourceTransactionManager transactionManager() {
            return new DataSourceTransactionManager(ReadYourWritesListenerOrderTest.dataSource(""));
        }

        @Bean
        Items items() {
            return new Items();
        }
    }

    static class Items {
        private final List<String> calls = new CopyOnWriteArrayList<>();

        public List<String> calls() {
            return calls;
        }

        @Cacheable(cacheNames = "items", sync = true)
        public String find(Long id) {
            calls.add(Thread.currentThread().getName() + " "
                    + TransactionSynchronizationManager.isActualTransactionActive() + " "
                    + TransactionSynchronizationManager.isCurrentTransactionReadOnly());
            return "name " + id;
        }
    }
}
