package dev.cdccache.client.position;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.cache.Caffeine;
import dev.cdccache.client.StalenessPolicy;
import dev.cdccache.client.cache.CaffeineInvalidatingCache;
import dev.cdccache.client.metrics.ClientMetrics;
import dev.cdccache.client.position.ReadYourWrites.Outcome;
import dev.cdccache.client.staleness.StalenessGuard;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ForkJoinPool;
import org.junit.jupiter.api.Test;

/**
 * Review: a read floor whose sequence numbers were used before, by a server whose sequences started over or by a
 * replica promoted without every transaction of the old primary, is proven by what the old numbering proved: the read
 * is served the value from before the write, counted {@code applied}.
 */
class ReadFloorSequenceReuseReviewTest {

    private static final String TOPIC = "shop.coupon_db.coupon";

    private final StalenessGuard guard = new StalenessGuard(System::currentTimeMillis, Duration.ofSeconds(5),
            StalenessPolicy.SERVE_STALE, true);
    private final ProvenPositions proven = new ProvenPositions(Map.of("coupons", List.of(TOPIC)));
    private final ReadYourWrites readYourWrites = proven.readYourWrites(Duration.ofMillis(20),
            new ClientMetrics(null, "test", guard));
    private final CaffeineInvalidatingCache<Long, String> coupons = new CaffeineInvalidatingCache<>("coupons",
            Caffeine.newBuilder().maximumSize(100), guard, true, 0, ForkJoinPool.commonPool(),
            CaffeineInvalidatingCache.LoadListener.NONE, ProvenPositions.gate(readYourWrites, "coupons"));

    ReadFloorSequenceReuseReviewTest() {
        coupons.startAccepting();
        proven.publish(Map.of(TOPIC, Set.of(0)));
    }

    private static CommitPosition position(String text) {
        return CommitPosition.parse(text).orElseThrow();
    }

    @Test
    void aWriteAfterTheServersSequencesStartedOverIsNotServedTheValueFromBeforeIt() {
        proven.eventApplied(TOPIC, 0, "0-1-1000"); // long-running server: changes up to 1000 applied
        proven.publish(Map.of(TOPIC, Set.of(0)));
        coupons.get(1L, id -> "old");

        // RESET MASTER (or a server restored from a backup): the next transaction is 0-1-1 again. It changes row 1;
        // its change event is not applied yet, and this instance raises its floor to the write's position.
        readYourWrites.raiseFloor(position("0-1-1"));

        assertThat(coupons.get(1L, id -> "new")).as("read after the write, on the writing instance").isEqualTo("new");
        assertThat(readYourWrites.count("coupons", Outcome.APPLIED)).as("counted as proven applied").isZero();
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
        // new primary yet.
        // A request carrying the position the writing instance returned.
        try (ReadYourWrites.Scope request = readYourWrites.withFloor(position("0-2-981"))) {
            assertThat(coupons.get(1L, id -> "new")).as("read with the writer's Cdc-Position").isEqualTo("new");
        }
    }
}
