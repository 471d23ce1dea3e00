package dev.cdccache.client.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.cache.CacheTransaction;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.cache.Cache;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * A Spring transaction whose begin the starter did not see (its manager carries no {@link CacheTransactionListener})
 * may read a snapshot older than changes the client applied: nothing loaded inside it is cached.
 */
class UntrackedTransactionTest {

    private final InvalidationClient client = MockKafka.readyClient(InvalidationClientConfig.builder()
            .bootstrapServers("unused:1").positionCheckInterval(Duration.ofMillis(20))
            .cache(CacheDefinition.builder("items").table("db.item").keyColumns("id").build()).build());

    @AfterEach
    void close() {
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.clearSynchronization();
        }
        TransactionSynchronizationManager.setActualTransactionActive(false);
        client.close();
    }

    @Test
    void aMissInsideATransactionTheStarterDidNotSeeBeginCachesNothingUntilItEnds() {
        client.start();
        assertThat(client.awaitReady(Duration.ofSeconds(10))).isTrue();
        Cache cache = new CdcCacheManager(client).getCache("items");
        InvalidatingCache<Long, String> items = client.cache("items");

        // What a transaction manager without the listener leaves behind: an active transaction, no CacheTransaction.
        TransactionSynchronizationManager.initSynchronization();
        TransactionSynchronizationManager.setActualTransactionActive(true);
        assertThat(cache.get(1L)).isNull();
        cache.put(1L, "read in an old snapshot");
        assertThat(cache.get(2L, () -> "also read in it")).isEqualTo("also read in it");
        assertThat(CacheTransaction.current()).isNotNull();

        for (TransactionSynchronization synchronization : TransactionSynchronizationManager.getSynchronizations()) {
            synchronization.afterCompletion(TransactionSynchronization.STATUS_COMMITTED);
        }
        TransactionSynchronizationManager.clearSynchronization();
        TransactionSynchronizationManager.setActualTransactionActive(false);

        assertThat(CacheTransaction.current()).isNull();
        assertThat(items.lookup(1L)).isNull();
        assertThat(items.lookup(2L)).isNull();
        assertThat(cache.get(2L, () -> "outside")).isEqualTo("outside");
        assertThat(items.lookup(2L).value()).isEqualTo("outside");
    }

    @Test
    void aSynchronizedMissAsTheFirstCacheCallInsideATransactionTheStarterDidNotSeeBeginIsNotCached() {
        client.start();
        assertThat(client.awaitReady(Duration.ofSeconds(10))).isTrue();
        Cache cache = new CdcCacheManager(client).getCache("items");
        InvalidatingCache<Long, String> items = client.cache("items");

        TransactionSynchronizationManager.initSynchronization();
        TransactionSynchronizationManager.setActualTransactionActive(true);
        assertThat(cache.get(3L, () -> "read in an old snapshot")).isEqualTo("read in an old snapshot");

        assertThat(items.lookup(3L)).as("loaded inside a transaction the starter did not see begin").isNull();
    }
}
