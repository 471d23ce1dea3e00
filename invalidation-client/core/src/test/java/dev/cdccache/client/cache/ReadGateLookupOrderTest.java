package dev.cdccache.client.cache;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.cache.Caffeine;
import dev.cdccache.client.StalenessPolicy;
import dev.cdccache.client.staleness.StalenessGuard;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A read under a read floor that has to wait for it: while it waits, the consumer applies the write behind the floor
 * (evicts the key) and then proves the floor. The entry the read looked up before waiting is the value from before
 * the write; the read must serve what the cache holds once the floor is proven, never that entry.
 */
class ReadGateLookupOrderTest {

    /**
     * A gate whose floor is not proven when asked; a read that may wait sees the consumer evict the written key and
     * prove the floor during its wait, as {@code ReadYourWrites} does with the real consumer.
     */
    private static final class ProvenDuringWait implements ReadGate {
        private final AtomicReference<Runnable> consumerDuringWait = new AtomicReference<>();
        private volatile boolean proven;

        @Override
        public boolean admits(boolean mayWait) {
            if (proven) {
                return true;
            }
            Runnable consumer = consumerDuringWait.getAndSet(null);
            if (!mayWait || consumer == null) {
                return false;
            }
            consumer.run(); // the eviction of the write, then its proof
            proven = true;
            return true;
        }
    }

    private final ProvenDuringWait gate = new ProvenDuringWait();
    private final CaffeineInvalidatingCache<Long, String> cache = cacheWith(gate);

    private static CaffeineInvalidatingCache<Long, String> cacheWith(ReadGate gate) {
        StalenessGuard guard = new StalenessGuard(System::currentTimeMillis, Duration.ofSeconds(5),
                StalenessPolicy.SERVE_STALE, true);
        CaffeineInvalidatingCache<Long, String> cache = new CaffeineInvalidatingCache<>("test",
                Caffeine.newBuilder().maximumSize(100), guard, true, 0, ForkJoinPool.commonPool(),
                CaffeineInvalidatingCache.LoadListener.NONE, gate);
        cache.startAccepting();
        return cache;
    }

    /** The entry is there before the write; the write's eviction comes while a read waits for its floor. */
    private void writtenWhileAReadWaits() {
        gate.proven = true;
        cache.get(1L, k -> "before the write");
        gate.proven = false; // a write raised the floor
        gate.consumerDuringWait.set(() -> cache.invalidate(1L));
    }

    @Test
    void getAfterWaitingForTheFloorLoadsTheWrittenValue() {
        writtenWhileAReadWaits();

        assertThat(cache.get(1L, k -> "after the write")).isEqualTo("after the write");
    }

    @Test
    void getIfPresentAfterWaitingForTheFloorIsAMissNotTheValueFromBeforeTheWrite() {
        writtenWhileAReadWaits();

        assertThat(cache.getIfPresent(1L)).isNull();
    }

    @Test
    void lookupAfterWaitingForTheFloorIsAMissNotTheValueFromBeforeTheWrite() {
        writtenWhileAReadWaits();

        assertThat(cache.lookup(1L)).isNull();
    }

    @Test
    void getAllAfterWaitingForTheFloorLoadsTheWrittenValue() {
        writtenWhileAReadWaits();

        Map<Long, String> read = cache.getAll(List.of(1L), keys -> {
            Map<Long, String> loaded = new HashMap<>();
            keys.forEach(k -> loaded.put(k, "after the write"));
            return loaded;
        });

        assertThat(read).containsEntry(1L, "after the write");
    }
}
