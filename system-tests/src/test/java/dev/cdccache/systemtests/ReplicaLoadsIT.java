package dev.cdccache.systemtests;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdccache.client.position.ReplicaFence;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.connector.ConnectorProcess;
import dev.cdccache.infra.mariadb.MariaDbServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An application that loads from a read replica: a real MariaDB primary (captured by the connector) and a second
 * {@code mariadbd} replicating from it with {@code MASTER_DELAY}. The client applies a change's invalidation long
 * before the replica has the change; a load from the replica in between must not cache the old row.
 */
class ReplicaLoadsIT {

    private static final String DB = "replica_loads_db";
    private static final Duration DELAY = Duration.ofSeconds(4);
    private static final Duration CONVERGE = Duration.ofSeconds(30);

    private static LocalStack stack;
    private static MariaDbServer primary;
    private static MariaDbServer replica;
    private static ConnectorProcess connector;
    private static InvalidationClient client;
    private static final AtomicLong ids = new AtomicLong();

    @BeforeAll
    static void startEverything() {
        stack = LocalStack.shared();
        primary = stack.mariaDb();
        replica = MariaDbServer.builder(Path.of("target", "replica-loads-replica")).serverId(2).build().start();
        replica.replicateFrom(primary, Duration.ZERO);
        primary.createDatabase(DB);
        primary.execute(DB, "CREATE TABLE IF NOT EXISTS item (id BIGINT PRIMARY KEY, name VARCHAR(64) NOT NULL)");
        replica.awaitReplicated(primary, CONVERGE);
        replica.replicationDelay(DELAY);
        connector = ConnectorProcess.builder(ConnectorJar.path(), stack)
                .tables(List.of(DB + ".item"))
                .name("replica-loads-it")
                .build()
                .start();
        client = new InvalidationClient(InvalidationClientConfig.builder()
                .bootstrapServers(stack.kafka().bootstrapServers())
                .maxStaleness(Duration.ofSeconds(30))
                .cache(CacheDefinition.builder("items").table(DB + ".item").keyColumns("id").build())
                .build());
        client.start();
        assertThat(client.awaitReady(CONVERGE)).isTrue();
        primary.execute(DB, "INSERT INTO item VALUES (0, 'warm-up')");
        await().atMost(CONVERGE).until(() -> !client.appliedPositions().isEmpty());
    }

    @AfterAll
    static void stopEverything() {
        if (client != null) {
            client.close();
        }
        if (connector != null) {
            connector.stop();
        }
        if (replica != null) {
            replica.close();
        }
    }

    @Test
    void aLoadFromALaggingReplicaAfterAnAppliedInvalidationIsServedButNotCachedUntilTheReplicaCatchesUp()
            throws Exception {
        ReplicaFence fence = new ReplicaFence(client.appliedPositions(), Duration.ofMillis(100));
        InvalidatingCache<Long, String> items = client.cache("items");
        long id = ids.incrementAndGet();
        primary.execute(DB, "INSERT INTO item VALUES (" + id + ", 'old name')");
        replica.awaitReplicated(primary, DELAY.multipliedBy(3));
        assertThat(items.get(id, key -> fromReplica(fence, key))).isEqualTo("old name");
        assertThat(items.lookup(id).value()).isEqualTo("old name");

        primary.execute(DB, "UPDATE item SET name = 'new name' WHERE id = " + id);
        await().atMost(CONVERGE).until(() -> items.lookup(id) == null); // the invalidation was applied...

        long behindBefore = fence.behindCount();
        String loaded = items.get(id, key -> fromReplica(fence, key)); // ...the replica still holds the change back
        assertThat(loaded).as("the replica has not applied the change yet").isEqualTo("old name");
        assertThat(items.lookup(id)).as("a value read from a replica behind the invalidation is not cached").isNull();
        assertThat(fence.behindCount()).isEqualTo(behindBefore + 1);

        replica.awaitReplicated(primary, DELAY.multipliedBy(3));
        assertThat(items.get(id, key -> fromReplica(fence, key))).isEqualTo("new name");
        assertThat(items.lookup(id).value()).isEqualTo("new name");
    }

    @Test
    void aReplicaThatHasAppliedEverythingInvalidatedCostsOneWaitAndCachesAsUsual() throws Exception {
        ReplicaFence fence = new ReplicaFence(client.appliedPositions(), Duration.ofMillis(100));
        InvalidatingCache<Long, String> items = client.cache("items");
        long id = ids.incrementAndGet();
        primary.execute(DB, "INSERT INTO item VALUES (" + id + ", 'name')");
        replica.awaitReplicated(primary, DELAY.multipliedBy(3));

        long caughtUpBefore = fence.caughtUpCount();
        assertThat(items.get(id, key -> fromReplica(fence, key))).isEqualTo("name");
        assertThat(items.lookup(id).value()).isEqualTo("name");
        assertThat(fence.caughtUpCount()).isEqualTo(caughtUpBefore + 1);
    }

    private static String fromReplica(ReplicaFence fence, long id) {
        try (Connection connection = DriverManager.getConnection(replica.jdbcUrl(DB), replica.adminUser(),
                replica.adminPassword())) {
            fence.await(connection);
            try (PreparedStatement ps = connection.prepareStatement("SELECT name FROM item WHERE id = ?")) {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? rs.getString(1) : null;
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
