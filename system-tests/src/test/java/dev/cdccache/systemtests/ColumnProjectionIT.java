package dev.cdccache.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.metrics.ErrorReason;
import dev.cdccache.client.staleness.FreshnessProblem;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.connector.ConnectorProcess;
import dev.cdccache.infra.mariadb.MariaDbServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A connector that sends only some columns of a table ({@code columns.include}: the primary key and the code), and a
 * client with caches keyed by those columns and by one the projection leaves out ({@code place_id}). Real MariaDB,
 * connector process and Kafka: the caches keyed by sent columns evict by key; the one keyed by the missing column
 * never serves a stale value, and the client names the missing column as a problem of that cache.
 */
class ColumnProjectionIT {

    private static final Duration CONVERGE = Duration.ofSeconds(30);
    private static final String DB = "projection_db";

    private static LocalStack stack;
    private static MariaDbServer mariaDb;
    private static ConnectorProcess connector;
    private static InvalidationClient client;

    @BeforeAll
    static void startEverything() {
        stack = LocalStack.shared();
        mariaDb = stack.mariaDb();
        mariaDb.createDatabase(DB);
        mariaDb.execute(DB, "CREATE TABLE IF NOT EXISTS coupon (id BIGINT PRIMARY KEY, code VARCHAR(32) NOT NULL,"
                + " place_id BIGINT NOT NULL, name VARCHAR(200) NOT NULL, UNIQUE KEY uk_code (code))",
                "DELETE FROM coupon",
                "INSERT INTO coupon VALUES (1, 'C1', 7, 'first'), (2, 'C2', 7, 'second'), (3, 'C3', 8, 'third')");
        connector = ConnectorProcess.builder(ConnectorJar.path(), stack)
                .tables(List.of(DB + ".coupon"))
                .name("column-projection-it")
                .property("cdc.connector.columns.include[0]", DB + ".coupon.id")
                .property("cdc.connector.columns.include[1]", DB + ".coupon.code")
                .build()
                .start();
        client = new InvalidationClient(InvalidationClientConfig.builder()
                .bootstrapServers(stack.kafka().bootstrapServers())
                .maxStaleness(Duration.ofSeconds(3))
                .cache(CacheDefinition.builder("byId").table(DB + ".coupon").keyColumns("id").build())
                .cache(CacheDefinition.builder("byCode").table(DB + ".coupon").keyColumns("code").build())
                .cache(CacheDefinition.builder("byPlace").table(DB + ".coupon").keyColumns("place_id").build())
                .build());
        client.start();
        assertThat(client.awaitReady(Duration.ofSeconds(30))).isTrue();
        // the connector creates the topic on the first change
        mariaDb.execute(DB, "UPDATE coupon SET name = 'third, warmed up' WHERE id = 3");
        // Entries filled before that change's event, or before the first heartbeat that proves the table, are
        // rightly evicted then (by key, or as loaded before the proof): the tests fill after both.
        await().atMost(CONVERGE).until(() -> client.status().lastHeartbeatMillis() != Long.MIN_VALUE
                && client.problems().stream().anyMatch(p -> p.kind() == FreshnessProblem.Kind.MISSING_COLUMN));
    }

    @AfterAll
    static void stopEverything() throws Exception {
        for (AutoCloseable started : new AutoCloseable[] {client, connector}) { // the client first: it reads the connector
            if (started != null) {
                started.close();
            }
        }
    }

    private static String query(String sql, Object key) {
        try (Connection c = mariaDb.adminConnection(DB); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setObject(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                StringBuilder rows = new StringBuilder();
                while (rs.next()) {
                    rows.append(rows.isEmpty() ? "" : ";").append(rs.getString(1));
                }
                return rows.toString();
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final Function<Object, String> BY_ID = key -> query("SELECT name FROM coupon WHERE id = ?", key);
    private static final Function<Object, String> BY_PLACE =
            key -> query("SELECT name FROM coupon WHERE place_id = ? ORDER BY id", key);

    /** Loads {@code key}, again until the value stays cached (a change applied during a load is not cached). */
    private static void fill(InvalidatingCache<Object, String> cache, Object key, Function<Object, String> loader) {
        await().atMost(CONVERGE).until(() -> {
            cache.get(key, loader);
            return cache.lookup(key) != null;
        });
    }

    @Test
    void sentKeyColumnsEvictByKeyAndAMissingOneEvictsTheWholeCacheAndIsReportedByName() {
        InvalidatingCache<Object, String> byId = client.cache("byId");
        InvalidatingCache<Object, String> byPlace = client.cache("byPlace");
        fill(byId, 1L, BY_ID);
        fill(byId, 3L, BY_ID);
        fill(byPlace, 7L, BY_PLACE);
        assertThat(byPlace.get(7L, BY_PLACE)).isEqualTo("first;second");

        mariaDb.execute(DB, "UPDATE coupon SET name = 'first, renamed' WHERE id = 1");

        await().atMost(CONVERGE).untilAsserted(() ->
                assertThat(byId.get(1L, BY_ID)).as("evicted by its sent key").isEqualTo("first, renamed"));
        assertThat(byId.caffeine().getIfPresent(3L)).as("another row's entry stays: eviction by key").isNotNull();
        await().atMost(CONVERGE).untilAsserted(() -> assertThat(byPlace.get(7L, BY_PLACE))
                .as("never the stale list: the whole cache was evicted").isEqualTo("first, renamed;second"));
        await().atMost(CONVERGE).untilAsserted(() -> assertThat(client.problems())
                .filteredOn(p -> p.kind() == FreshnessProblem.Kind.MISSING_COLUMN).singleElement()
                .satisfies(p -> {
                    assertThat(p.caches()).containsExactly("byPlace");
                    assertThat(p.message()).contains("lack column 'place_id'").contains("columns.include");
                }));
        assertThat(client.errorCount(ErrorReason.UNMAPPABLE_KEY)).isPositive();
    }
}
