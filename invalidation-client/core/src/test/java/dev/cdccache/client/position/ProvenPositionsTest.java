package dev.cdccache.client.position;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What a cache may claim as applied, from the changes and heartbeats of each partition (the consumer's view). */
class ProvenPositionsTest {

    private static final String COUPONS = "shop.coupon_db.coupon";
    private static final String PLACES = "shop.coupon_db.place";

    private final ProvenPositions proven = new ProvenPositions(Map.of("coupons", List.of(COUPONS),
            "both", List.of(COUPONS, PLACES)));
    private Map<String, Set<Integer>> partitions = Map.of(COUPONS, Set.of(0, 1), PLACES, Set.of(0));

    private static CommitPosition position(String text) {
        return CommitPosition.parse(text).orElseThrow();
    }

    private void publish() {
        proven.publish(partitions);
    }

    /** A heartbeat of {@code connector}, then a position check that reads every topic to its end. */
    private void heartbeatAndCheck(Map<String, String> heartbeats, Map<String, Set<String>> feeders) {
        heartbeats.forEach(proven::heartbeatApplied);
        Map<String, Map<String, Long>> atStart = proven.checkStarted(List.of(COUPONS, PLACES),
                topic -> feeders.getOrDefault(topic, Set.of()));
        proven.checkCompleted(Set.of(COUPONS, PLACES), atStart);
        publish();
    }

    @Test
    void aLaterGtidOnPartitionADoesNotProveAFloorWhilePartitionBStillHoldsTheEarlierChange() {
        // The write 0-1-10 went to partition 1, whose leader is slow; a later change 0-1-11 arrived on partition 0.
        proven.eventApplied(COUPONS, 0, "0-1-11");
        publish();

        assertThat(proven.isProven("coupons", position("0-1-10"))).isFalse();

        proven.eventApplied(COUPONS, 1, "0-1-10");
        publish();

        assertThat(proven.isProven("coupons", position("0-1-10"))).isTrue();
        assertThat(proven.isProven("coupons", position("0-1-11"))).as("partition 1 proves only up to 10").isFalse();
    }

    @Test
    void aCacheIsProvenOnlyAsFarAsTheLeastOfItsTopics() {
        proven.eventApplied(COUPONS, 0, "0-1-20");
        proven.eventApplied(COUPONS, 1, "0-1-20");
        publish();

        assertThat(proven.isProven("coupons", position("0-1-20"))).isTrue();
        assertThat(proven.isProven("both", position("0-1-20"))).as("nothing is known of the place topic").isFalse();
    }

    @Test
    void aHeartbeatAppliedBeforeACompletedCheckProvesEveryPartitionOfTheTopicsItsConnectorFeeds() {
        heartbeatAndCheck(Map.of("c1", "0-1-30"), Map.of(COUPONS, Set.of("c1"), PLACES, Set.of("c1")));

        assertThat(proven.isProven("both", position("0-1-30"))).isTrue();
        assertThat(proven.isProven("both", position("0-2-30"))).as("another server's numbering of the domain")
                .isFalse();
        assertThat(proven.isProven("both", position("0-1-31"))).isFalse();
        assertThat(proven.provenByDomain("both")).containsExactly(Map.entry("0", 30L));
    }

    @Test
    void aHeartbeatAppliedAfterTheCheckStartedProvesNothingUntilTheNextCheck() {
        Map<String, Map<String, Long>> atStart = proven.checkStarted(List.of(COUPONS),
                topic -> Set.of("c1"));
        proven.heartbeatApplied("c1", "0-1-30");
        proven.checkCompleted(Set.of(COUPONS), atStart);
        publish();

        assertThat(proven.isProven("coupons", position("0-1-30"))).isFalse();
    }

    @Test
    void aTopicFedByTwoConnectorsIsProvenOnlyAsFarAsTheLeastOfTheirHeartbeats() {
        heartbeatAndCheck(Map.of("c1", "0-1-50", "c2", "0-1-40"), Map.of(COUPONS, Set.of("c1", "c2")));

        assertThat(proven.isProven("coupons", position("0-1-40"))).isTrue();
        assertThat(proven.isProven("coupons", position("0-1-45"))).isFalse();
    }

    @Test
    void aHeartbeatOfAnotherDomainOrWithoutAGtidProvesNothingForTheFloorsDomain() {
        heartbeatAndCheck(Map.of("c1", "1-1-500"), Map.of(COUPONS, Set.of("c1", "c2")));

        assertThat(proven.isProven("coupons", position("0-1-1"))).isFalse();
        assertThat(proven.provenByDomain("coupons")).as("c2 sent no heartbeat with a GTID").isEmpty();
    }

    @Test
    void aChangeOfAnotherServerSharingTheDomainProvesNothingForThisServersFloor() {
        // Two shards left at gtid_domain_id=0 number their transactions independently.
        proven.eventApplied(COUPONS, 0, "0-2-900");
        proven.eventApplied(COUPONS, 1, "0-2-900");
        publish();

        assertThat(proven.isProven("coupons", position("0-1-100"))).isFalse();
        assertThat(proven.isProven("coupons", position("0-2-900"))).isTrue();
    }

    @Test
    void afterALosslessFailoverSeenByThisClientFloorsFromBeforeItAreProvenByTheNewPrimarysHeartbeats() {
        heartbeatAndCheck(Map.of("c1", "0-1-1000"), Map.of(COUPONS, Set.of("c1")));
        // Server 2 took over with every transaction of server 1 replicated: it continues the domain at 1001.
        heartbeatAndCheck(Map.of("c1", "0-2-1001"), Map.of(COUPONS, Set.of("c1")));
        heartbeatAndCheck(Map.of("c1", "0-2-1050"), Map.of(COUPONS, Set.of("c1")));

        assertThat(proven.isProven("coupons", position("0-2-1050"))).isTrue();
        assertThat(proven.isProven("coupons", position("0-3-999"))).as("an older primary's floor").isTrue();
        assertThat(proven.isProven("coupons", position("0-3-1001"))).as("not replicated before the takeover")
                .isFalse();
    }

    @Test
    void aPromotedReplicaReusingTheDomainsSequencesIsProvenOnlyByItsOwnHeartbeats() {
        heartbeatAndCheck(Map.of("c1", "0-1-1000"), Map.of(COUPONS, Set.of("c1")));

        // Lossy failover: server 2 had applied up to 980 and continues the domain at 981.
        assertThat(proven.isProven("coupons", position("0-2-981"))).as("before its own heartbeats").isFalse();

        heartbeatAndCheck(Map.of("c1", "0-2-985"), Map.of(COUPONS, Set.of("c1")));

        assertThat(proven.isProven("coupons", position("0-2-981"))).isTrue();
        assertThat(proven.isProven("coupons", position("0-1-990"))).as("server 1's own numbering").isTrue();
        assertThat(proven.isProven("coupons", position("0-3-985"))).as("a third server's, not below the takeover")
                .isFalse();
        assertThat(proven.resets()).as("another server's numbering is not a reset").isZero();
    }

    @Test
    void aFreshCommitAlreadyProvenForItsServerDropsEveryProofAtOnceAndTheConsumerBuildsThemAgain() {
        proven.eventApplied(COUPONS, 0, "0-1-1000");
        proven.eventApplied(COUPONS, 1, "0-1-1000");
        publish();

        assertThat(proven.freshCommit(position("0-1-1001"))).as("a commit above what is proven").isFalse();
        assertThat(proven.isProven("coupons", position("0-1-1000"))).isTrue();

        assertThat(proven.freshCommit(position("0-1-1"))).as("RESET MASTER: numbering started over").isTrue();
        assertThat(proven.isProven("coupons", position("0-1-1"))).as("dropped before the consumer runs").isFalse();

        publish();
        assertThat(proven.isProven("coupons", position("0-1-1"))).isFalse();
        assertThat(proven.resets()).isEqualTo(1);

        proven.eventApplied(COUPONS, 0, "0-1-1");
        proven.eventApplied(COUPONS, 1, "0-1-1");
        publish();
        assertThat(proven.isProven("coupons", position("0-1-1"))).as("the new numbering is proven again").isTrue();
        assertThat(proven.resets()).as("the new numbering's changes are not another reset").isEqualTo(1);
    }

    @Test
    void theResetCounterStillCountsAfterAGarbageCollection() throws InterruptedException {
        io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        proven.readYourWrites(Duration.ofMillis(5), new dev.cdccache.client.metrics.ClientMetrics(registry, "test-1",
                new dev.cdccache.client.staleness.StalenessGuard(System::currentTimeMillis, Duration.ofSeconds(5),
                        dev.cdccache.client.StalenessPolicy.BYPASS_CACHE, true)));
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(20);
        }
        proven.eventApplied(COUPONS, 0, "0-1-1000");
        proven.eventApplied(COUPONS, 1, "0-1-1000");
        publish();
        proven.freshCommit(position("0-1-1"));
        publish();

        assertThat(proven.resets()).isEqualTo(1);
        assertThat(registry.get("cdc.client.position.resets").functionCounter().count()).isEqualTo(1);
    }

    @Test
    void aCheckStartedBeforeTheProofsWereDroppedProvesNothingWhenItCompletes() {
        proven.heartbeatApplied("c1", "0-1-1000");
        proven.eventApplied(COUPONS, 0, "0-1-1000");
        proven.eventApplied(COUPONS, 1, "0-1-1000");
        publish();
        Map<String, Map<String, Long>> atStart = proven.checkStarted(List.of(COUPONS), topic -> Set.of("c1"));

        proven.freshCommit(position("0-1-1"));
        publish();
        proven.checkCompleted(Set.of(COUPONS), atStart);
        publish();

        assertThat(proven.isProven("coupons", position("0-1-1"))).isFalse();
    }

    @Test
    void aTopicWithoutPartitionsYetIsProvenOnlyByACheck() {
        partitions = Map.of(COUPONS, Set.of(0, 1));
        proven.eventApplied(COUPONS, 0, "0-1-5");
        proven.eventApplied(COUPONS, 1, "0-1-5");
        publish();

        assertThat(proven.isProven("both", position("0-1-5"))).isFalse();
    }

    @Test
    void mySqlGtidsAreProvenPerSourceServer() {
        String uuid = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
        proven.eventApplied(COUPONS, 0, uuid + ":7");
        proven.eventApplied(COUPONS, 1, uuid + ":9");
        publish();

        assertThat(proven.isProven("coupons", position(uuid + ":1-7"))).isTrue();
        assertThat(proven.isProven("coupons", position(uuid + ":8"))).isFalse();
    }

    @Test
    void aReaderWaitingForAFloorWakesWhenAPublishProvesIt() throws Exception {
        CountDownLatch waiting = new CountDownLatch(1);
        CompletableFuture<Boolean> reader = CompletableFuture.supplyAsync(() -> {
            waiting.countDown();
            return proven.awaitProven("coupons", position("0-1-10"), TimeUnit.SECONDS.toNanos(30));
        });
        assertThat(waiting.await(5, TimeUnit.SECONDS)).isTrue();
        proven.eventApplied(COUPONS, 0, "0-1-10");
        publish();
        assertThat(reader.isDone()).as("half the partitions prove nothing").isFalse();

        proven.eventApplied(COUPONS, 1, "0-1-10");
        publish();

        assertThat(reader.get(5, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aWaitForAFloorNeverProvenEndsAfterItsMaximum() {
        long start = System.nanoTime();
        assertThat(proven.awaitProven("coupons", position("0-1-10"), Duration.ofMillis(20).toNanos())).isFalse();
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(Duration.ofMillis(20).toNanos());
    }

    @Test
    void aChangeOnACompactedTopicDoesNotProveTheChangesBeforeIt() {
        // The write 0-1-10 updated a row that 0-1-12 updated again; compaction removed 0-1-10's record, so the
        // consumer reads 0-1-11 (another row) and then, later, 0-1-12: after 0-1-11 the row still holds its old value.
        proven.compacted(Set.of(COUPONS));
        proven.eventApplied(COUPONS, 0, "0-1-11");
        proven.eventApplied(COUPONS, 1, "0-1-11");
        publish();

        assertThat(proven.isProven("coupons", position("0-1-10"))).isFalse();

        proven.compacted(Set.of()); // found not compacted any more (policy changed back)
        publish();

        assertThat(proven.isProven("coupons", position("0-1-10"))).isTrue();
    }
    @Test
    void afterTheServersSequencesStartOverAWriteNotYetAppliedIsNotProvenByTheProofsFromBefore() {
        partitions = Map.of(COUPONS, Set.of(0), PLACES, Set.of(0));
        proven.eventApplied(COUPONS, 0, "0-1-100");
        proven.eventApplied(PLACES, 0, "0-1-100");
        heartbeatAndCheck(Map.of("c1", "0-1-101"), Map.of(COUPONS, Set.of("c1"), PLACES, Set.of("c1")));
        assertThat(proven.isProven("coupons", position("0-1-100"))).isTrue();

        // RESET MASTER (or a restored server): sequences start over; the first change after it arrives
        proven.eventApplied(COUPONS, 0, "0-1-5");
        publish();

        assertThat(proven.isProven("coupons", position("0-1-5"))).as("applied from the one partition").isTrue();
        assertThat(proven.isProven("coupons", position("0-1-7")))
                .as("a write after the reset, not applied yet, is not covered by the proofs from before it").isFalse();
        assertThat(proven.isProven("both", position("0-1-5")))
                .as("nor by the other topic's or the heartbeats' proofs from before it").isFalse();
    }

    @Test
    void aHeartbeatWhoseSequenceWentBackDropsTheProofsFromBefore() {
        partitions = Map.of(COUPONS, Set.of(0, 1), PLACES, Set.of(0));
        heartbeatAndCheck(Map.of("c1", "0-1-100"), Map.of(COUPONS, Set.of("c1"), PLACES, Set.of("c1")));
        assertThat(proven.isProven("coupons", position("0-1-100"))).isTrue();

        proven.heartbeatApplied("c1", "0-1-3"); // the sequences started over
        publish();

        assertThat(proven.isProven("coupons", position("0-1-2"))).as("nothing proven since the reset").isFalse();
        heartbeatAndCheck(Map.of("c1", "0-1-4"), Map.of(COUPONS, Set.of("c1"), PLACES, Set.of("c1")));
        assertThat(proven.isProven("coupons", position("0-1-4"))).as("proven again by the next check").isTrue();
        assertThat(proven.isProven("coupons", position("0-1-5"))).isFalse();
    }
}
