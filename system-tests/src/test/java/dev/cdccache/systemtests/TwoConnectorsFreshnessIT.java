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
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Two connectors on one database, each capturing its own table and writing its own heartbeat row into the same
 * heartbeat table, and one client with a cache on each table (real MariaDB, Kafka and connector processes). A
 * cache's freshness must rest on the heartbeats of the connector that captures its table: when that connector
 * stops, its caches stop being fresh although the other connector keeps beating; the other connector's caches
 * stay fresh. A cache on a table no connector captures is never fresh and says why.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TwoConnectorsFreshnessIT {

    private static final Duration MAX_STALENESS = Duration.ofSeconds(3);
    private static final Duration CONVERGE = Duration.ofSeconds(30);
    private static final String DB = "two_connectors_db";

    private static LocalStack stack;
    private static MariaDbServer mariaDb;
    private static ConnectorProcess ordersConnector;
    private static ConnectorProcess catalogConnector;
    private static InvalidationClient client;

    @BeforeAll
    static void startEverything() throws Exception {
        stack = LocalStack.shared();
        mariaDb = stack.mariaDb();
        mariaDb.createDatabase(DB);
        mariaDb.execute(DB,
                "CREATE TABLE IF NOT EXISTS orders (id BIGINT PRIMARY KEY, note VARCHAR(64) NOT NULL)",
                "CREATE TABLE IF NOT EXISTS catalog (id BIGINT PRIMARY KEY, name VARCHAR(64) NOT NULL)",
                "CREATE TABLE IF NOT EXISTS uncaptured (id BIGINT PRIMARY KEY, name VARCHAR(64) NOT NULL)",
                "INSERT IGNORE INTO orders VALUES (1, 'first order')",
                "INSERT IGNORE INTO catalog VALUES (1, 'first item')");
        Path jar = ConnectorJar.path();
        ordersConnector = ConnectorProcess.builder(jar, stack).tables(List.of(DB + ".orders"))
                .name("orders-connector").build().start();
        catalogConnector = ConnectorProcess.builder(jar, stack).tables(List.of(DB + ".catalog"))
                .name("catalog-connector").build().start();
        // The connectors create their topics on their first change.
        mariaDb.execute(DB, "UPDATE orders SET note = 'warm-up' WHERE id = 1",
                "UPDATE catalog SET name = 'warm-up' WHERE id = 1");
        client = new InvalidationClient(InvalidationClientConfig.builder()
                .bootstrapServers(stack.kafka().bootstrapServers())
                .maxStaleness(MAX_STALENESS)
                .cache(CacheDefinition.builder("orders").table(DB + ".orders").keyColumns("id").build())
                .cache(CacheDefinition.builder("catalog").table(DB + ".catalog").keyColumns("id").build())
                .cache(CacheDefinition.builder("uncaptured").table(DB + ".uncaptured").keyColumns("id").build())
                .build());
        client.start();
        assertThat(client.awaitReady(Duration.ofSeconds(60))).isTrue();
    }

    @AfterAll
    static void stopEverything() {
        if (client != null) {
            client.close();
        }
        if (ordersConnector != null) {
            ordersConnector.stop();
        }
        if (catalogConnector != null) {
            catalogConnector.stop();
        }
    }

    @Test
    @Order(1)
    void eachCacheIsProvenFreshByTheConnectorCapturingItsTable() {
        await().atMost(CONVERGE).untilAsserted(() -> {
            assertThat(client.cacheStatus("orders").fresh()).as("orders fresh").isTrue();
            assertThat(client.cacheStatus("catalog").fresh()).as("catalog fresh").isTrue();
        });
    }

    @Test
    @Order(2)
    void aCacheOnATableNoConnectorCapturesIsNeverFreshAndSaysWhichTable() {
        assertThat(client.cacheStatus("uncaptured").fresh()).isFalse();
        assertThat(client.cacheStatus("uncaptured").problems())
                .anySatisfy(p -> {
                    assertThat(p.kind()).isIn(FreshnessProblem.Kind.MISSING_TOPIC,
                            FreshnessProblem.Kind.UNCOVERED_TABLE);
                    assertThat(p.message()).contains("uncaptured");
                    assertThat(p.kind().configuration()).isTrue();
                });
        assertThat(client.status().misconfigured()).isTrue();
        // ... and serves nothing it cannot prove: every read goes to the loader once the bound has passed.
        AtomicInteger loads = new AtomicInteger();
        InvalidatingCache<Long, String> cache = client.cache("uncaptured");
        cache.get(1L, k -> "v" + loads.incrementAndGet());
        await().pollDelay(MAX_STALENESS.plusMillis(500)).atMost(CONVERGE).untilAsserted(() ->
                assertThat(cache.get(1L, k -> "v" + loads.incrementAndGet())).isNotEqualTo("v1"));
    }

    @Test
    @Order(3)
    void stoppingOneConnectorMakesOnlyTheCachesOfItsTablesNotFresh() {
        AtomicInteger orderLoads = new AtomicInteger();
        AtomicInteger catalogLoads = new AtomicInteger();
        InvalidatingCache<Long, String> orders = client.cache("orders");
        InvalidatingCache<Long, String> catalog = client.cache("catalog");
        Function<Long, String> orderLoader = k -> "order-" + orderLoads.incrementAndGet();
        Function<Long, String> catalogLoader = k -> "item-" + catalogLoads.incrementAndGet();
        await().atMost(CONVERGE).until(() -> {
            orders.get(1L, orderLoader);
            catalog.get(1L, catalogLoader);
            return orders.lookup(1L) != null && catalog.lookup(1L) != null;
        });

        ordersConnector.stop();
        try {
            // The catalog connector still writes its heartbeat row; it must not vouch for the orders table.
            await().atMost(MAX_STALENESS.multipliedBy(5)).untilAsserted(() ->
                    assertThat(client.cacheStatus("orders").fresh()).as("orders fresh").isFalse());
            assertThat(client.status().fresh()).isFalse();
            int ordersBefore = orderLoads.get();
            await().pollDelay(MAX_STALENESS).atMost(CONVERGE).untilAsserted(() -> {
                orders.get(1L, orderLoader);
                assertThat(orderLoads.get()).as("orders entry no longer served").isGreaterThan(ordersBefore);
            });
            assertThat(client.cacheStatus("catalog").fresh()).as("catalog fresh").isTrue();
            int catalogBefore = catalogLoads.get();
            catalog.get(1L, catalogLoader);
            assertThat(catalogLoads.get()).as("catalog entry still served").isEqualTo(catalogBefore);
        } finally {
            ordersConnector.restart();
        }
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                assertThat(client.cacheStatus("orders").fresh()).as("orders fresh again").isTrue());
    }
}
