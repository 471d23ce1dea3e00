package dev.cdccache.client.position;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.cache.Caffeine;
import dev.cdccache.client.StalenessPolicy;
import dev.cdccache.client.cache.CachedValue;
import dev.cdccache.client.cache.CaffeineInvalidatingCache;
import dev.cdccache.client.metrics.ClientMetrics;
import dev.cdccache.client.position.ReadYourWrites.Outcome;
import dev.cdccache.client.staleness.StalenessGuard;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Cache reads under a read floor: served once the floor is proven applied, after a short wait, or by bypassing the
 * cache; never a value older than the floor. The consumer's part is played by publishing proofs by hand.
 */
class ReadYourWritesTest {

    private static final String TOPIC = "shop.coupon_db.coupon";
    private static final CommitPosition WRITE = CommitPosition.parse("0-1-10").orElseThrow();

    private final StalenessGuard guard = new StalenessGuard(System::currentTimeMillis, Duration.ofSeconds(5),
            StalenessPolicy.SERVE_STALE, true);
    private final ProvenPositions proven = new ProvenPositions(Map.of("coupons", List.of(TOPIC)));
    private final ReadYourWrites readYourWrites = proven.readYourWrites(Duration.ofMillis(20),
            new ClientMetrics(null, "test", guard));
    private final CaffeineInvalidatingCache<Long, String> coupons = new CaffeineInvalidatingCache<>("coupons",
            Caffeine.newBuilder().maximumSize(100), guard, true, 0, ForkJoinPool.commonPool(),
            CaffeineInvalidatingCache.LoadListener.NONE, ProvenPositions.gate(readYourWrites, "coupons"));

    ReadYourWritesTest() {
        coupons.startAccepting();
        proven.publish(Map.of(TOPIC, Set.of(0)));
    }

    /** The consumer applied the write's change (its evictions done) and published it. */
    private void applyWrite() {
        coupons.invalidate(1L);
        proven.eventApplied(TOPIC, 0, "0-1-10");
        proven.publish(Map.of(TOPIC, Set.of(0)));
    }

    @Test
    void withoutAFloorReadsAreServedFromTheCacheAndNothingIsCounted() {
        coupons.get(1L, id -> "old");

        assertThat(coupons.get(1L, id -> "new")).isEqualTo("old");
        assertThat(readYourWrites.count("coupons", Outcome.APPLIED)).isZero();
    }

    @Test
    void aHitUnderAFloorNotYetAppliedBypassesTheCacheAndStoresNothing() {
        coupons.get(1L, id -> "old");
        readYourWrites.raiseFloor(WRITE); // written and committed; its change not applied yet

        assertThat(coupons.get(1L, id -> "new")).isEqualTo("new");
        assertThat(coupons.getIfPresent(1L)).isNull();
        assertThat(coupons.lookup(1L)).isNull();
        assertThat(coupons.getAll(List.of(1L, 2L), ids -> Map.of(1L, "new", 2L, "two")))
                .containsExactly(Map.entry(1L, "new"), Map.entry(2L, "two"));
        assertThat(CachedValue.<String>valueOf(coupons.caffeine().getIfPresent(1L)))
                .as("the old entry awaits its eviction").isEqualTo("old");
        assertThat(coupons.caffeine().getIfPresent(2L)).as("a bypass stores nothing").isNull();
        assertThat(readYourWrites.count("coupons", Outcome.BYPASSED)).isEqualTo(4);
    }

    @Test
    void aBypassEpisodeEndsWithTheFirstReadAdmittedSoTheStuckWarningCountsFromTheNextOne() {
        coupons.get(1L, id -> "old");
        try (ReadYourWrites.Scope scope = readYourWrites.withFloor(WRITE)) {
            coupons.get(1L, id -> "new"); // unproven: bypasses, the episode starts
            assertThat(readYourWrites.bypassingSince("coupons")).isNotZero();
        }

        coupons.get(1L, id -> "new"); // no floor any more: served, admitted

        assertThat(readYourWrites.bypassingSince("coupons")).as("reads admitted since the last bypass").isZero();
    }

    @Test
    void aHitWaitsForItsFloorAndIsServedOnceTheConsumerAppliedIt() throws Exception {
        ReadYourWrites patient = proven.readYourWrites(Duration.ofSeconds(30), new ClientMetrics(null, "t2", guard));
        CaffeineInvalidatingCache<Long, String> cache = new CaffeineInvalidatingCache<>("coupons",
                Caffeine.newBuilder().maximumSize(100), guard, true, 0, ForkJoinPool.commonPool(),
                CaffeineInvalidatingCache.LoadListener.NONE, ProvenPositions.gate(patient, "coupons"));
        cache.startAccepting();
        cache.get(2L, id -> "two"); // a key the write did not touch
        patient.raiseFloor(WRITE);

        CountDownLatch reading = new CountDownLatch(1);
        CompletableFuture<String> read = CompletableFuture.supplyAsync(() -> {
            reading.countDown();
            return cache.get(2L, id -> "loaded");
        });
        assertThat(reading.await(5, TimeUnit.SECONDS)).isTrue();
        proven.eventApplied(TOPIC, 0, "0-1-10");
        proven.publish(Map.of(TOPIC, Set.of(0)));

        assertThat(read.get(10, TimeUnit.SECONDS)).as("served from the cache once proven").isEqualTo("two");
        assertThat(patient.count("coupons", Outcome.AFTER_WAIT) + patient.count("coupons", Outcome.APPLIED))
                .isEqualTo(1);
    }

    @Test
    void onceItsFloorIsAppliedTheCacheServesAndStoresAsUsual() {
        coupons.get(1L, id -> "old");
        readYourWrites.raiseFloor(WRITE);
        applyWrite();

        assertThat(coupons.get(1L, id -> "new")).isEqualTo("new");
        assertThat(coupons.get(1L, id -> "newer")).isEqualTo("new");
        assertThat(readYourWrites.count("coupons", Outcome.APPLIED)).isEqualTo(1);
        assertThat(readYourWrites.count("coupons", Outcome.BYPASSED)).isZero();
    }

    @Test
    void aMissUnderAFloorNotYetAppliedDoesNotJoinALoadThatReadBeforeTheWrite() throws Exception {
        CountDownLatch leaderRead = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<String> leader = CompletableFuture.supplyAsync(() -> coupons.get(1L, id -> {
            leaderRead.countDown();
            await(release);
            return "old"; // read before the write committed
        }));
        assertThat(leaderRead.await(5, TimeUnit.SECONDS)).isTrue();
        readYourWrites.raiseFloor(WRITE);

        assertThat(coupons.get(1L, id -> "new")).isEqualTo("new");

        release.countDown();
        assertThat(leader.get(5, TimeUnit.SECONDS)).isEqualTo("old");
        applyWrite();
        assertThat(coupons.get(1L, id -> "new")).as("the write's eviction removed the old value").isEqualTo("new");
    }

    @Test
    void aRequestFloorHoldsOnlyTheReadsOfItsThreadUntilClosed() throws Exception {
        coupons.get(1L, id -> "old");
        try (ReadYourWrites.Scope scope = readYourWrites.withFloor(WRITE)) {
            assertThat(readYourWrites.currentFloor()).isEqualTo(WRITE);
            assertThat(coupons.get(1L, id -> "new")).isEqualTo("new");
            assertThat(CompletableFuture.supplyAsync(() -> coupons.get(1L, id -> "new")).get(5, TimeUnit.SECONDS))
                    .as("another thread has no floor").isEqualTo("old");
        }
        assertThat(readYourWrites.currentFloor()).isEqualTo(CommitPosition.NONE);
        assertThat(coupons.get(1L, id -> "new")).isEqualTo("old");
    }

    @Test
    void theInstanceFloorOnlyRises() {
        readYourWrites.raiseFloor(WRITE);
        readYourWrites.raiseFloor(CommitPosition.parse("0-1-9").orElseThrow());

        assertThat(readYourWrites.floor()).isEqualTo(WRITE);
    }

    /**
     * The write's own key, cached before the write: a read that waits for the floor must not return the entry it
     * found before waiting, since the eviction that proves the floor may land during the wait.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"get", "getIfPresent", "lookup", "getAll"})
    void aReadThatWaitsForItsFloorNeverServesTheEntryTheWriteEvicted(String read) throws Exception {
        ReadYourWrites patient = proven.readYourWrites(Duration.ofSeconds(30), new ClientMetrics(null, "t3", guard));
        CaffeineInvalidatingCache<Long, String> cache = new CaffeineInvalidatingCache<>("coupons",
                Caffeine.newBuilder().maximumSize(100), guard, true, 0, ForkJoinPool.commonPool(),
                CaffeineInvalidatingCache.LoadListener.NONE, ProvenPositions.gate(patient, "coupons"));
        cache.startAccepting();
        cache.get(1L, id -> "old");
        patient.raiseFloor(WRITE); // the write of key 1 committed; its change not applied yet

        CompletableFuture<Object> result = new CompletableFuture<>();
        Thread reader = new Thread(() -> result.complete(switch (read) {
            case "get" -> cache.get(1L, id -> "new");
            case "getIfPresent" -> String.valueOf(cache.getIfPresent(1L));
            case "lookup" -> {
                CachedValue<String> entry = cache.lookup(1L);
                yield String.valueOf(entry == null ? null : entry.value());
            }
            default -> cache.getAll(List.of(1L), ids -> Map.of(1L, "new")).get(1L);
        }));
        reader.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (reader.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < deadline) {
            Thread.onSpinWait(); // until the reader waits for the floor
        }
        assertThat(reader.getState()).as("the reader waits for its floor").isEqualTo(Thread.State.TIMED_WAITING);
        cache.invalidate(1L); // the consumer applies the write's change: eviction, then the proof
        proven.eventApplied(TOPIC, 0, "0-1-10");
        proven.publish(Map.of(TOPIC, Set.of(0)));

        assertThat(result.get(10, TimeUnit.SECONDS)).as("never the value from before the write")
                .isEqualTo(read.equals("getIfPresent") || read.equals("lookup") ? "null" : "new");
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aGateIsNeverOpenWhileAFloorRaisedBeforeItOpenedIsUnproven() {
        // A read proves the floor 0-1-10 and is about to open the gate when a write raises the floor to 0-1-11 and
        // closes the gates. A read starting after that raise must not find the gate open at any moment: it would
        // serve entries from before the second write.
        readYourWrites.raiseFloor(WRITE);
        proven.eventApplied(TOPIC, 0, "0-1-10");
        proven.publish(Map.of(TOPIC, Set.of(0)));
        ReadYourWrites.Gate gate = readYourWrites.gate("coupons");
        boolean[] openAfterTheRaise = new boolean[1];
        readYourWrites.onGateOpening(
                () -> readYourWrites.raiseFloor(CommitPosition.parse("0-1-11").orElseThrow()),
                () -> openAfterTheRaise[0] = gate.isOpen());

        gate.admits(false);

        assertThat(openAfterTheRaise[0]).as("open after the raise closed it").isFalse();
        assertThat(gate.isOpen()).isFalse();
    }

    private static CommitPosition position(String text) {
        return CommitPosition.parse(text).orElseThrow();
    }

    @Test
    void aWriteAfterTheServersSequencesStartedOverIsNotServedTheValueFromBeforeIt() {
        readYourWrites.raiseFloorAfterCommit(position("0-1-1000")); // long-running server: an earlier write
        proven.eventApplied(TOPIC, 0, "0-1-1000"); // its change applied
        proven.publish(Map.of(TOPIC, Set.of(0)));
        coupons.get(1L, id -> "old");
        long appliedBefore = readYourWrites.count("coupons", Outcome.APPLIED);

        // RESET MASTER (or a server restored from a backup): the next transaction is 0-1-1 again. It changes row 1;
        // its change event is not applied yet, and this instance raises its floor to the write's position.
        readYourWrites.raiseFloorAfterCommit(position("0-1-1"));

        assertThat(coupons.get(1L, id -> "new")).as("read after the write, on the writing instance").isEqualTo("new");
        assertThat(readYourWrites.count("coupons", Outcome.APPLIED)).as("counted as proven applied")
                .isEqualTo(appliedBefore);
        assertThat(readYourWrites.floor()).as("the old numbering's sequence is replaced, not kept")
                .isEqualTo(position("0-1-1"));

        proven.publish(Map.of(TOPIC, Set.of(0))); // the consumer drops its proofs too
        assertThat(proven.resets()).isOne();
        coupons.invalidate(1L);
        proven.eventApplied(TOPIC, 0, "0-1-1"); // the write's change applied
        proven.publish(Map.of(TOPIC, Set.of(0)));
        assertThat(coupons.get(1L, id -> "new")).isEqualTo("new");
        assertThat(coupons.getIfPresent(1L)).as("proven in the new numbering: cached again").isEqualTo("new");
    }

    @Test
    void aWriteOfTheNewNumberingCommittedWhileTheFloorRestartsIsStillWaitedFor() throws Exception {
        readYourWrites.raiseFloorAfterCommit(position("0-1-1000"));
        proven.eventApplied(TOPIC, 0, "0-1-1000");
        proven.publish(Map.of(TOPIC, Set.of(0)));
        coupons.get(1L, id -> "old");
        // RESET MASTER. Thread A commits 0-1-5 and drops the proofs; before it replaces the floor's sequence, thread
        // W commits 0-1-6 (changing row 1) and raises the floor.
        CompletableFuture<Void> otherWriter = new CompletableFuture<>();
        readYourWrites.onFloorRestarting(() -> {
            readYourWrites.onFloorRestarting(() -> { });
            CompletableFuture.runAsync(() -> readYourWrites.raiseFloorAfterCommit(position("0-1-6")))
                    .whenComplete((done, failed) -> otherWriter.complete(null));
            try {
                otherWriter.get(200, TimeUnit.MILLISECONDS); // done, unless the restart holds it back
            } catch (java.util.concurrent.TimeoutException heldBack) {
                // W waits for A's restart to finish
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });

        readYourWrites.raiseFloorAfterCommit(position("0-1-5"));
        otherWriter.get(5, TimeUnit.SECONDS);

        assertFloorHoldsWUntilItsChangeIsApplied("0-1-6", "0-1-5"); // A's change applied; W's not yet
    }

    @Test
    void aCommitWhoseCallbackRunsAfterItsChangeWasProvenDoesNotLowerTheFloorBelowAnotherWrite() {
        proven.eventApplied(TOPIC, 0, "0-1-10");
        proven.publish(Map.of(TOPIC, Set.of(0)));
        coupons.get(1L, id -> "old");
        // No reset. Thread A commits 0-1-11, then X 0-1-12 and W 0-1-13 (W changes row 1). A's change is applied
        // and proven before A's after-commit callback runs (a pause); W's callback runs first.
        proven.eventApplied(TOPIC, 0, "0-1-11");
        proven.publish(Map.of(TOPIC, Set.of(0)));
        readYourWrites.raiseFloorAfterCommit(position("0-1-13")); // W
        readYourWrites.raiseFloorAfterCommit(position("0-1-11")); // A, late: not above the proofs

        assertFloorHoldsWUntilItsChangeIsApplied("0-1-13", "0-1-12"); // X's change applied; W's not yet
    }

    /**
     * The floor is W's write at {@code wFloor}; once an earlier change ({@code appliedBefore}) is applied and proven,
     * but not W's, a read of row 1 still loads what W wrote.
     */
    private void assertFloorHoldsWUntilItsChangeIsApplied(String wFloor, String appliedBefore) {
        assertThat(readYourWrites.floor()).as("W's write waited for").isEqualTo(position(wFloor));
        proven.publish(Map.of(TOPIC, Set.of(0)));
        proven.eventApplied(TOPIC, 0, appliedBefore);
        proven.publish(Map.of(TOPIC, Set.of(0)));
        assertThat(coupons.get(1L, id -> "new")).as("W reads its own write").isEqualTo("new");
    }

    @Test
    void aRequestFloorBelowWhatIsProvenIsServedAndDropsNothing() {
        proven.eventApplied(TOPIC, 0, "0-1-1000");
        proven.publish(Map.of(TOPIC, Set.of(0)));
        coupons.get(1L, id -> "cached");

        // An old Cdc-Position header: legitimately below the proofs, not a numbering that started over.
        try (ReadYourWrites.Scope request = readYourWrites.withFloor(position("0-1-5"))) {
            assertThat(coupons.get(1L, id -> "loaded")).isEqualTo("cached");
        }
        readYourWrites.raiseFloor(position("0-1-5"));
        assertThat(coupons.get(1L, id -> "loaded")).isEqualTo("cached");
        assertThat(proven.resets()).isZero();
    }

    @Test
    void aWriteOnAPromotedReplicaReusingSequencesOfTheDomainIsNotProvenByTheOldPrimarysHeartbeats() {
        // The old primary (server 1) had a heartbeat at 0-1-1000 applied and a position check completed.
        proven.heartbeatApplied("coupon-connector", "0-1-1000");
        Map<String, Map<String, Long>> atStart = proven.checkStarted(List.of(TOPIC), t -> Set.of("coupon-connector"));
        proven.checkCompleted(Set.of(TOPIC), atStart);
        proven.publish(Map.of(TOPIC, Set.of(0)));
        coupons.get(1L, id -> "old");

        // Failover with asynchronous replication: replica server 2 had applied up to 0-1-980 and is promoted; its
        // writes continue domain 0 from there. Its first one, 0-2-981, changes row 1; the connector has not read the
        // new primary yet. A request carries the position the writing instance returned.
        try (ReadYourWrites.Scope request = readYourWrites.withFloor(position("0-2-981"))) {
            assertThat(coupons.get(1L, id -> "new")).as("read with the writer's Cdc-Position").isEqualTo("new");
        }
        assertThat(readYourWrites.count("coupons", Outcome.APPLIED)).isZero();
    }
}
