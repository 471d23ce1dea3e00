package dev.cdccache.client.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.position.CommitPosition;
import dev.cdccache.client.position.ProvenPositions;
import java.lang.reflect.Field;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code @@last_gtid} is the session's last BINLOGGED transaction: a read-write transaction that wrote nothing leaves
 * it at an earlier write of the (pooled) session, long proven applied. Such a position is not a fresh commit: taken
 * for one, it looked like a numbering that started over ({@code RESET MASTER}), dropped every proof and replaced the
 * instance floor's sequence by the old one, below a write another thread had just committed and raised the floor to,
 * so that write's reads were served from the cache as soon as the old sequence was proven again, before the write's
 * change was applied. The JDBC driver is a stand-in ({@link LastGtidDataSource}).
 */
class ReadYourWritesListenerFreshCommitTest {

    private final InvalidationClientConfig config = InvalidationClientConfig.builder()
            .bootstrapServers("unused:1")
            .cache(CacheDefinition.builder("names").table("db.item").keyColumns("id").build()).build();
    private final InvalidationClient client = new InvalidationClient(config);
    private final String topic = config.caches().get(0).sources().get(0).topic(config.topicPrefix());
    private final ProvenPositions proven = proven(client);
    private final LastGtidDataSource session = new LastGtidDataSource();
    private final DataSourceTransactionManager manager = new DataSourceTransactionManager(session.dataSource);

    ReadYourWritesListenerFreshCommitTest() {
        manager.addListener(new ReadYourWritesListener(() -> client));
    }

    @AfterEach
    void close() {
        client.close();
    }

    private static ProvenPositions proven(InvalidationClient client) {
        try {
            Field field = InvalidationClient.class.getDeclaredField("proven");
            field.setAccessible(true);
            return (ProvenPositions) field.get(client);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private static CommitPosition position(String text) {
        return CommitPosition.parse(text).orElseThrow();
    }

    /** A change with {@code gtid} applied from the topic's only partition, and published. */
    private void applied(String gtid) {
        proven.eventApplied(topic, 0, gtid);
        proven.publish(Map.of(topic, Set.of(0)));
    }

    /** The pooled session wrote 0-1-100 earlier, and that change was applied since. */
    private void anEarlierWriteProven() {
        session.lastGtid.set("0-1-100");
        applied("0-1-100");
    }

    @Test
    void aTransactionThatWroteNothingNeitherDropsTheProofsNorLowersTheFloor() {
        anEarlierWriteProven();
        // Another thread's write, just committed; its change is not applied yet.
        client.readYourWrites().raiseFloorAfterCommit(position("0-1-200"));

        // @Transactional on a method that only reads: @@last_gtid still answers the session's earlier write.
        new TransactionTemplate(manager).executeWithoutResult(status -> { });

        assertThat(client.readYourWrites().floor()).as("the other thread's write is still waited for")
                .isEqualTo(position("0-1-200"));
        proven.publish(Map.of(topic, Set.of(0)));
        assertThat(proven.resets()).as("nothing started over").isZero();
        applied("0-1-150"); // a change before the write
        assertThat(client.readYourWrites().isApplied("names", client.readYourWrites().floor()))
                .as("the floor is not proven before the write's change is applied").isFalse();
    }

    @Test
    void aTransactionThatWroteRaisesTheFloorToItsOwnPosition() {
        anEarlierWriteProven();

        new TransactionTemplate(manager).executeWithoutResult(status -> session.nextCommit.set("0-1-201"));

        assertThat(client.readYourWrites().floor()).isEqualTo(position("0-1-201"));
        proven.publish(Map.of(topic, Set.of(0)));
        assertThat(proven.resets()).isZero();
    }

    @Test
    void aFreshCommitBelowTheProofsStillShowsANumberingThatStartedOver() {
        anEarlierWriteProven();

        // RESET MASTER: this transaction is 0-1-1 of the new numbering.
        new TransactionTemplate(manager).executeWithoutResult(status -> session.nextCommit.set("0-1-1"));

        assertThat(client.readYourWrites().floor()).isEqualTo(position("0-1-1"));
        assertThat(client.readYourWrites().isApplied("names", position("0-1-1"))).as("the old proofs dropped")
                .isFalse();
        proven.publish(Map.of(topic, Set.of(0)));
        assertThat(proven.resets()).isOne();
    }
}
