package dev.cdccache.client.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A read marked as possibly behind keeps the values of the loads in progress on its thread out of the cache. */
class ReplicaReadsTest {

    private final CaffeineInvalidatingCache<Long, String> cache = TestCaches.ready();

    @Test
    void aLoadWhoseReadWasMarkedBehindIsReturnedButNotCached() {
        assertThat(cache.get(1L, id -> {
            ReplicaReads.behind();
            return "maybe old";
        })).isEqualTo("maybe old");
        assertThat(cache.getIfPresent(1L)).isNull();

        assertThat(cache.get(1L, id -> "caught up")).isEqualTo("caught up");
        assertThat(cache.getIfPresent(1L)).as("a later load is not affected").isEqualTo("caught up");
    }

    @Test
    void aReadMarkedBehindInsideANestedLoadKeepsTheOuterLoadOutToo() {
        cache.get(1L, outer -> {
            cache.get(2L, inner -> {
                ReplicaReads.behind();
                return "inner";
            });
            return "outer";
        });
        assertThat(cache.getIfPresent(1L)).isNull();
        assertThat(cache.getIfPresent(2L)).isNull();
    }

    @Test
    void putLoadedAndBulkLoadsHonourTheMarkToo() {
        LoadStamp<Long> stamp = cache.beginLoad(1L);
        ReplicaReads.behind();
        assertThat(cache.putLoaded(stamp, "maybe old")).isFalse();

        Map<Long, String> values = cache.getAll(List.of(2L, 3L), keys -> {
            ReplicaReads.behind();
            return Map.of(2L, "two", 3L, "three");
        });
        assertThat(values).hasSize(2);
        assertThat(cache.estimatedSize()).isZero();
    }

    @Test
    void aReadMarkedBehindOnAnotherThreadDoesNotConcernThisOne() throws Exception {
        Thread other = new Thread(ReplicaReads::behind);
        assertThat(cache.get(1L, id -> {
            other.start();
            try {
                other.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "one";
        })).isEqualTo("one");
        assertThat(cache.getIfPresent(1L)).isEqualTo("one");
    }
}
