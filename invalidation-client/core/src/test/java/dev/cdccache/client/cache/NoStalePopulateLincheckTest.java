package dev.cdccache.client.cache;

import com.github.benmanes.caffeine.cache.Caffeine;
import dev.cdccache.client.StalenessPolicy;
import dev.cdccache.client.staleness.StalenessGuard;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.jetbrains.kotlinx.lincheck.LinChecker;
import org.jetbrains.kotlinx.lincheck.annotations.Operation;
import org.jetbrains.kotlinx.lincheck.strategy.managed.modelchecking.ModelCheckingOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The stamp-and-generation protocol of {@link CaffeineInvalidatingCache} under Lincheck's model checker: every
 * interleaving of small scenarios (up to the bounds below) of the change pipeline against every way of filling the
 * cache, checking that a value read before an invalidation is never left in the cache after that invalidation was
 * applied.
 *
 * <p>The model: {@code database} holds the row's version; a change commits a new version and then applies its
 * invalidation (key or whole cache), and records the version in {@code applied} once the invalidation returned.
 * Each filling path reads {@code database} inside its load. The check reads {@code applied} and then the cached
 * value: a cached version older than an invalidation already applied is a stale populate. The sequential
 * specification is this class itself, in which the check is always {@code true}, so any interleaving in which it
 * returns {@code false} is reported with its trace.
 *
 * <p>The cache is built without a maximum size and with a same-thread executor, so that Caffeine runs no
 * maintenance on threads the model checker does not control; the staleness guard serves everything (freshness is
 * {@link dev.cdccache.client.staleness.StalenessGuardLincheckTest}'s subject).
 *
 * <p>Run alone: {@code ./mvnw -B -pl invalidation-client/core test -Dtest=NoStalePopulateLincheckTest}.
 */
public class NoStalePopulateLincheckTest {

    private static final Long KEY = 1L;

    private final AtomicLong database = new AtomicLong();
    /** The newest version whose invalidation has been applied (returned). */
    private final AtomicLong applied = new AtomicLong();
    private final CaffeineInvalidatingCache<Long, Long> cache = newCache();

    static CaffeineInvalidatingCache<Long, Long> newCache() {
        StalenessGuard servesAll = new StalenessGuard(() -> 0L, Duration.ofSeconds(5), StalenessPolicy.SERVE_STALE,
                false);
        CaffeineInvalidatingCache<Long, Long> cache = new CaffeineInvalidatingCache<>("lincheck",
                Caffeine.newBuilder().executor(Runnable::run), servesAll, true, 0, Runnable::run,
                CaffeineInvalidatingCache.LoadListener.NONE);
        cache.startAccepting();
        return cache;
    }

    /** A committed update of the row, then its key invalidation. */
    @Operation
    public void update() {
        long version = database.incrementAndGet();
        cache.invalidate(KEY);
        applied.accumulateAndGet(version, Math::max);
    }

    /** A committed TRUNCATE (or any evict-all), then its evict-all. */
    @Operation
    public void truncate() {
        long version = database.incrementAndGet();
        cache.invalidateAll();
        applied.accumulateAndGet(version, Math::max);
    }

    /** A miss through {@code get(key, loader)}: single-flight, stamped inside. */
    @Operation
    public void load() {
        cache.get(KEY, key -> database.get());
    }

    /** A miss filled by hand: stamp, read, {@code putLoaded}. */
    @Operation
    public void putAfterMiss() {
        LoadStamp<Long> stamp = cache.beginLoad(KEY);
        cache.putLoaded(stamp, database.get());
    }

    /** A bulk lookup whose loader reads the row. */
    @Operation
    public void bulkLoad() {
        cache.getAll(List.of(KEY), keys -> Map.of(KEY, database.get()));
    }

    /** Whether what the cache holds is no older than every invalidation applied so far. */
    @Operation
    public boolean noValueOlderThanAnAppliedInvalidationIsCached() {
        long invalidatedUpTo = applied.get();
        Long cached = cache.getIfPresent(KEY);
        return cached == null || cached >= invalidatedUpTo;
    }

    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a hang fails, not blocks the build
    void aValueReadBeforeAnAppliedInvalidationIsNeverLeftInTheCache() {
        LinChecker.check(NoStalePopulateLincheckTest.class, new ModelCheckingOptions()
                .iterations(8)
                .invocationsPerIteration(60)
                .threads(2)
                .actorsPerThread(2)
                .actorsBefore(1)
                .actorsAfter(1));
    }
}
