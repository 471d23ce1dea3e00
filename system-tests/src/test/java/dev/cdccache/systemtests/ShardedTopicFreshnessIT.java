package dev.cdccache.systemtests;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdccache.client.staleness.FreshnessProblem;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.connector.ConnectorProcess;
import dev.cdccache.infra.mariadb.MariaDbServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two shards sharing a schema: two MariaDB servers, each with the database {@value #DB}, each captured by its own
 * connector process, both publishing {@code sharded_shop.orders} into ONE topic and listing that table in their
 * heartbeat rows (real MariaDB, Kafka and connector processes). The client's cache on that table must rest on the
 * heartbeats of both connectors: when one stops, the cache is not fresh (its shard's rows can go stale while the
 * other connector keeps beating), health names the silent connector and the topic, and it is fresh again once the
 * connector is back.
 */
class ShardedTopicFreshnessIT {

    private static final Duration MAX_STALENESS = Duration.ofSeconds(3);
    private static final Duration CONVERGE = Duration.ofSeconds(60);
    private static final String DB = "sharded_shop";
    private static final String PREFIX = "shards";
    private static final String TOPIC = PREFIX + "." + DB + ".orders";

    private static LocalStack stack;
    private static MariaDbServer secondShard;
    private static ConnectorProcess shardA;
    private static ConnectorProcess shardB;
    private static InvalidationClient client;

    @BeforeAll
    static void startEverything() {
        stack = LocalStack.shared();
        secondShard = MariaDbServer.builder(Path.of("target", "sharded-mariadb-" + ProcessHandle.current().pid()))
                .serverId(2).build().start();
        for (MariaDbServer shard : List.of(stack.mariaDb(), secondShard)) {
            shard.createDatabase(DB);
            shard.execute(DB, "CREATE TABLE IF NOT EXISTS orders (id BIGINT PRIMARY KEY, note VARCHAR(64) NOT NULL)");
        }
        stack.mariaDb().execute(DB, "INSERT IGNORE INTO orders VALUES (1, 'shard a')");
        secondShard.execute(DB, "INSERT IGNORE INTO orders VALUES (1001, 'shard b')");
        Path jar = ConnectorJar.path();
        shardA = ConnectorProcess.builder(jar, stack).tables(List.of(DB + ".orders")).topicPrefix(PREFIX)
                .name("shard-a-connector").build().start();
        shardB = ConnectorProcess.builder(jar, stack).tables(List.of(DB + ".orders")).topicPrefix(PREFIX)
                .name("shard-b-connector")
                .property("cdc.connector.database.port", Integer.toString(secondShard.port()))
                .build().start();
        client = new InvalidationClient(InvalidationClientConfig.builder()
                .bootstrapServers(stack.kafka().bootstrapServers())
                .topicPrefix(PREFIX)
                .maxStaleness(MAX_STALENESS)
                .cache(CacheDefinition.builder("orders").table(DB + ".orders").keyColumns("id").build())
                .build());
        client.start();
        assertThat(client.awaitReady(CONVERGE)).isTrue();
    }

    @AfterAll
    static void stopEverything() {
        if (client != null) {
            client.close();
        }
        for (ConnectorProcess connector : new ConnectorProcess[] {shardA, shardB}) {
            if (connector != null) {
                connector.stop();
            }
        }
        if (secondShard != null) {
            secondShard.stop();
        }
    }

    @Test
    void stoppingTheConnectorOfOneShardMakesTheSharedTopicsCachesNotFreshUntilItIsBack() {
        await().atMost(CONVERGE).untilAsserted(() ->
                assertThat(client.cacheStatus("orders").fresh()).as("orders fresh").isTrue());
        InvalidatingCache<Long, String> orders = client.cache("orders");
        AtomicInteger loads = new AtomicInteger();
        Function<Long, String> loader = id -> "order " + id + " #" + loads.incrementAndGet();
        await().atMost(CONVERGE).until(() -> {
            orders.get(1001L, loader);
            return orders.lookup(1001L) != null;
        });

        // The client learns the connectors feeding a topic from their heartbeats and their records' header: make sure
        // it has read shard B's (a change there evicts the entry) before B stops, or there is nothing to miss.
        secondShard.execute(DB, "UPDATE orders SET note = 'shard b, seen' WHERE id = 1001");
        await().atMost(CONVERGE).until(() -> orders.lookup(1001L) == null);
        await().atMost(CONVERGE).until(() -> {
            orders.get(1001L, loader);
            return orders.lookup(1001L) != null;
        });

        shardB.stop();
        try {
            // shard A keeps beating and lists the same table: it must not vouch for shard B's rows.
            await().atMost(MAX_STALENESS.multipliedBy(5)).untilAsserted(() ->
                    assertThat(client.cacheStatus("orders").fresh()).as("orders fresh").isFalse());
            assertThat(client.status().fresh()).isFalse();
            await().atMost(CONVERGE).untilAsserted(() -> assertThat(client.problems())
                    .anySatisfy(p -> {
                        assertThat(p.kind()).isEqualTo(FreshnessProblem.Kind.SILENT_CONNECTOR);
                        assertThat(p.subject()).isEqualTo(TOPIC);
                        assertThat(p.message()).contains("shard-b-connector");
                        assertThat(p.caches()).containsExactly("orders");
                    }));
            assertThat(client.problems()).noneSatisfy(p -> assertThat(p.message()).contains("shard-a-connector"));
            // A change on shard B while its connector is down: the entry is not served past the bound.
            secondShard.execute(DB, "UPDATE orders SET note = 'changed while down' WHERE id = 1001");
            int before = loads.get();
            await().pollDelay(MAX_STALENESS).atMost(CONVERGE).untilAsserted(() -> {
                orders.get(1001L, loader);
                assertThat(loads.get()).as("shard B's entry no longer served").isGreaterThan(before);
            });
        } finally {
            shardB.restart();
        }
        await().atMost(CONVERGE).untilAsserted(() -> {
            assertThat(client.cacheStatus("orders").fresh()).as("orders fresh again").isTrue();
            assertThat(client.problems()).isEmpty();
        });
    }
}
