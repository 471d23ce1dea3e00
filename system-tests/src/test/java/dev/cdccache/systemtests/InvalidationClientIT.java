package dev.cdccache.systemtests;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.SourceDefinition;
import dev.cdccache.client.StalenessCheck;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cdccache.client.metrics.ErrorReason;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.connector.ConnectorProcess;
import dev.cdccache.infra.mariadb.MariaDbServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * End to end: real MariaDB (binlog), the real connector process (Debezium), a real Kafka broker, and TWO
 * client instances with their own caches. Every change committed by plain SQL must evict the matching
 * entries of both instances; the disruptive scenarios (connector stopped, broker restarted) run last.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class InvalidationClientIT {

    private static final Duration MAX_STALENESS = Duration.ofSeconds(3);
    private static final Duration CONVERGE = Duration.ofSeconds(30);
    private static final String DB = "ic_db";

    private static LocalStack stack;
    private static MariaDbServer mariaDb;
    private static ConnectorProcess connector;
    private static InvalidationClient first;
    private static InvalidationClient second;
    private static final AtomicLong ids = new AtomicLong(1_000);

    @BeforeAll
    static void startEverything() throws Exception {
        stack = LocalStack.shared();
        mariaDb = stack.mariaDb();
        mariaDb.createDatabase(DB);
        mariaDb.execute(DB,
                "CREATE TABLE IF NOT EXISTS item (id BIGINT PRIMARY KEY, code VARCHAR(32) NOT NULL, "
                        + "price DECIMAL(10,2) NOT NULL, UNIQUE KEY uk_code (code))",
                "CREATE TABLE IF NOT EXISTS item_tag (id BIGINT PRIMARY KEY AUTO_INCREMENT, item_id BIGINT NOT NULL, "
                        + "tag VARCHAR(32) NOT NULL)");
        Path jar = ConnectorJar.path();
        connector = ConnectorProcess.builder(jar, stack)
                .tables(List.of(DB + ".item", DB + ".item_tag"))
                .name("invalidation-client-it")
                .build()
                .start();
        first = client(StalenessCheck.EVERY_HIT);
        second = client(StalenessCheck.SCHEDULED); // every test then covers both ways of checking the bound
        first.start();
        second.start();
        assertThat(first.awaitReady(Duration.ofSeconds(30))).isTrue();
        assertThat(second.awaitReady(Duration.ofSeconds(30))).isTrue();
        // The connector creates the topics on the first change; make sure both exist and are read.
        long id = ids.incrementAndGet();
        insertItem(id, "warmup-" + id, "1.00");
        mariaDb.execute(DB, "INSERT INTO item_tag (item_id, tag) VALUES (" + id + ", 'warmup')");
        for (InvalidationClient client : clients()) {
            client.cache("items").get(id, loader("items"));
        }
        awaitFresh();
    }

    @AfterAll
    static void stopEverything() {
        if (first != null) {
            first.close();
        }
        if (second != null) {
            second.close();
        }
        if (connector != null) {
            connector.stop();
        }
    }

    private static InvalidationClient client(StalenessCheck check) {
        return new InvalidationClient(InvalidationClientConfig.builder()
                .bootstrapServers(stack.kafka().bootstrapServers())
                .maxStaleness(MAX_STALENESS)
                .stalenessCheck(check)
                .cache(CacheDefinition.builder("items").table(DB + ".item").keyColumns("id").build())
                .cache(CacheDefinition.builder("itemsByCode").table(DB + ".item").keyColumns("code").build())
                .cache(CacheDefinition.builder("itemCount").table(DB + ".item").evictAll().build())
                .cache(CacheDefinition.builder("itemsWithTags")
                        .source(SourceDefinition.keys(DB + ".item", "id"))
                        .source(SourceDefinition.keys(DB + ".item_tag", "item_id")).build())
                .build());
    }

    private static List<InvalidationClient> clients() {
        return List.of(first, second);
    }

    // --- the source of truth -------------------------------------------------------------------------

    private static String query(String sql, Object key) {
        try (Connection c = mariaDb.adminConnection(DB); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setObject(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                StringBuilder row = new StringBuilder();
                for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                    row.append(i > 1 ? "|" : "").append(rs.getString(i));
                }
                return row.toString();
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @SuppressWarnings("unchecked")
    private static <K> Function<K, String> loader(String cache) {
        return key -> switch (cache) {
            case "items" -> query("SELECT id, code, price FROM item WHERE id = ?", key);
            case "itemsByCode" -> query("SELECT id, code, price FROM item WHERE code = ?", key);
            case "itemCount" -> query("SELECT COUNT(*) FROM item WHERE id >= ?", key);
            case "itemsWithTags" -> query("SELECT i.code, GROUP_CONCAT(t.tag ORDER BY t.id) FROM item i "
                    + "LEFT JOIN item_tag t ON t.item_id = i.id WHERE i.id = ? GROUP BY i.code", key);
            default -> throw new IllegalArgumentException(cache);
        };
    }

    private static void insertItem(long id, String code, String price) {
        mariaDb.execute(DB, "INSERT INTO item (id, code, price) VALUES (" + id + ", '" + code + "', " + price + ")");
    }

    /**
     * Loads {@code key} into both instances. A load is (correctly) not cached when the event of a change made
     * just before, e.g. the row's insert, is applied while it runs, so retry until the value stays.
     */
    private static <K> void fill(String cache, K key) {
        for (InvalidationClient client : clients()) {
            InvalidatingCache<K, String> c = client.cache(cache);
            await().atMost(CONVERGE).until(() -> {
                c.get(key, loader(cache));
                return c.lookup(key) != null;
            });
        }
    }

    /** Every instance evicts {@code key} and, reloaded, serves the database's current value. */
    private static <K> void awaitConverged(String cache, K key) {
        for (InvalidationClient client : clients()) {
            InvalidatingCache<K, String> c = client.cache(cache);
            String expected = InvalidationClientIT.<K>loader(cache).apply(key);
            await().atMost(CONVERGE).untilAsserted(() -> assertThat(c.get(key, loader(cache)))
                    .as("%s[%s] in %s", cache, key, client.instanceId()).isEqualTo(expected));
        }
    }

    private static <K> void awaitEvicted(String cache, K key) {
        for (InvalidationClient client : clients()) {
            InvalidatingCache<K, String> c = client.cache(cache);
            await().atMost(CONVERGE).until(() -> c.caffeine().getIfPresent(key) == null);
        }
    }

    private static void awaitFresh() {
        for (InvalidationClient client : clients()) {
            await().atMost(Duration.ofSeconds(60)).until(() -> client.status().fresh());
        }
    }

    // --- scenarios ------------------------------------------------------------------------------------

    @Test
    @Order(1)
    void anUpdateEvictsTheRowInEveryInstanceAndEveryCacheOfTheTable() {
        long id = ids.incrementAndGet();
        insertItem(id, "u-" + id, "10.00");
        fill("items", id);
        fill("itemsByCode", "u-" + id);
        fill("itemCount", 0L);
        fill("itemsWithTags", id);

        mariaDb.execute(DB, "UPDATE item SET price = 11.00 WHERE id = " + id);

        awaitEvicted("items", id);
        awaitEvicted("itemsByCode", "u-" + id);
        awaitEvicted("itemCount", 0L);
        awaitEvicted("itemsWithTags", id);
        awaitConverged("items", id);
        assertThat(first.cache("items").getIfPresent(id)).isEqualTo(id + "|u-" + id + "|11.00");
    }

    @Test
    @Order(2)
    void anInsertEvictsACachedAbsence() {
        long id = ids.incrementAndGet();
        fill("items", id);
        assertThat(first.cache("items").lookup(id).value()).isNull();
        insertItem(id, "i-" + id, "5.00");
        awaitEvicted("items", id);
        awaitConverged("items", id);
    }

    @Test
    @Order(3)
    void aDeleteEvictsTheRow() {
        long id = ids.incrementAndGet();
        insertItem(id, "d-" + id, "5.00");
        fill("items", id);
        fill("itemsByCode", "d-" + id);
        mariaDb.execute(DB, "DELETE FROM item WHERE id = " + id);
        awaitEvicted("items", id);
        awaitEvicted("itemsByCode", "d-" + id);
        awaitConverged("items", id);
        assertThat(first.cache("items").get(id, loader("items"))).isNull();
    }

    @Test
    @Order(4)
    void aSecondaryKeyChangeEvictsTheOldAndTheNewKey() {
        long id = ids.incrementAndGet();
        String oldCode = "old-" + id;
        String newCode = "new-" + id;
        insertItem(id, oldCode, "5.00");
        fill("itemsByCode", oldCode);
        fill("itemsByCode", newCode); // cached absence of the new code
        mariaDb.execute(DB, "UPDATE item SET code = '" + newCode + "' WHERE id = " + id);
        awaitEvicted("itemsByCode", oldCode);
        awaitEvicted("itemsByCode", newCode);
        awaitConverged("itemsByCode", oldCode);
        awaitConverged("itemsByCode", newCode);
        assertThat(second.cache("itemsByCode").getIfPresent(newCode)).isNotNull();
    }

    @Test
    @Order(5)
    void aChangeOfAnotherSourceTableEvictsTheCacheItFeeds() {
        long id = ids.incrementAndGet();
        insertItem(id, "t-" + id, "5.00");
        fill("itemsWithTags", id);
        fill("items", id);
        mariaDb.execute(DB, "INSERT INTO item_tag (item_id, tag) VALUES (" + id + ", 'red')");
        awaitEvicted("itemsWithTags", id);
        awaitConverged("itemsWithTags", id);
        for (InvalidationClient client : clients()) {
            assertThat(client.cache("items").lookup(id)).as("items is not fed by item_tag").isNotNull();
        }
    }

    @Test
    @Order(6)
    void aTruncateEvictsEveryCacheBoundToTheTable() {
        long id = ids.incrementAndGet();
        insertItem(id, "tr-" + id, "5.00");
        mariaDb.execute(DB, "INSERT INTO item_tag (item_id, tag) VALUES (" + id + ", 'blue')");
        fill("itemsWithTags", id);
        mariaDb.execute(DB, "TRUNCATE TABLE item_tag");
        for (InvalidationClient client : clients()) {
            await().atMost(CONVERGE).until(() -> client.cache("itemsWithTags").estimatedSize() == 0);
        }
        awaitConverged("itemsWithTags", id);
    }

    @Test
    @Order(7)
    void aMultiRowTransactionEvictsEveryRowInEveryInstance() throws Exception {
        long a = ids.incrementAndGet();
        long b = ids.incrementAndGet();
        long c = ids.incrementAndGet();
        for (long id : new long[] {a, b, c}) {
            insertItem(id, "m-" + id, "1.00");
            fill("items", id);
        }
        try (Connection conn = mariaDb.adminConnection(DB); Statement st = conn.createStatement()) {
            conn.setAutoCommit(false);
            st.executeUpdate("UPDATE item SET price = 2.00 WHERE id IN (" + a + ", " + b + ")");
            st.executeUpdate("DELETE FROM item WHERE id = " + c);
            conn.commit();
        }
        for (long id : new long[] {a, b, c}) {
            awaitEvicted("items", id);
            awaitConverged("items", id);
        }
    }

    @Test
    @Order(8)
    void poisonMessagesDoNotStopTheGoodOnesAfterThem() {
        long id = ids.incrementAndGet();
        insertItem(id, "p-" + id, "1.00");
        fill("items", id);
        awaitFresh();
        long malformedBefore = first.errorCount(ErrorReason.MALFORMED_JSON);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka().bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName()))) {
            String topic = connector.topic(DB + ".item");
            for (int p = 0; p < 3; p++) {
                producer.send(new ProducerRecord<>(topic, p, null, "{garbage".getBytes(StandardCharsets.UTF_8)));
                producer.send(new ProducerRecord<>(topic, p, null,
                        "{\"op\":\"u\",\"before\":{\"id\":[1]},\"after\":{\"id\":[1]}}".getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
        for (InvalidationClient client : clients()) {
            await().atMost(CONVERGE).untilAsserted(() -> assertThat(client.errorCount(
                    ErrorReason.MALFORMED_JSON)).as("malformed records counted by %s", client.instanceId())
                    .isGreaterThanOrEqualTo(malformedBefore + 3));
        }
        fill("items", id);
        mariaDb.execute(DB, "UPDATE item SET price = 3.00 WHERE id = " + id);
        awaitEvicted("items", id);
        awaitConverged("items", id);
        assertThat(first.errorCount(ErrorReason.UNMAPPABLE_KEY)).isPositive();
    }

    @Test
    @Order(9)
    void withTheConnectorStoppedOldEntriesStopBeingServedAndServingResumesWhenItIsBack() throws Exception {
        long id = ids.incrementAndGet();
        insertItem(id, "s-" + id, "1.00");
        awaitFresh();
        fill("items", id);

        connector.stop();
        long stoppedAt = System.currentTimeMillis();
        for (InvalidationClient client : clients()) {
            await().atMost(MAX_STALENESS.plusSeconds(5)).until(() -> !client.status().fresh());
            // Loaded before the stop: older than max-staleness now, so not served although still in Caffeine.
            await().atMost(MAX_STALENESS.plusSeconds(5))
                    .until(() -> client.cache("items").lookup(id) == null);
            assertThat(client.cache("items").caffeine().getIfPresent(id)).isNotNull();
        }
        long notServedAfter = System.currentTimeMillis() - stoppedAt;
        assertThat(notServedAfter).isLessThan(MAX_STALENESS.plusSeconds(5).toMillis());

        // A change committed while the connector is down.
        mariaDb.execute(DB, "UPDATE item SET price = 9.99 WHERE id = " + id);

        connector.start();
        awaitFresh();
        awaitEvicted("items", id);
        awaitConverged("items", id);
        for (InvalidationClient client : clients()) {
            assertThat(client.cache("items").lookup(id)).as("served again").isNotNull();
        }
    }

    @Test
    @Order(10)
    void aBrokerRestartLosesNoInvalidation() {
        long id = ids.incrementAndGet();
        insertItem(id, "k-" + id, "1.00");
        awaitFresh();
        fill("items", id);
        fill("itemsByCode", "k-" + id);

        // A change committed while the broker is down must still reach both instances.
        stack.kafka().stop();
        mariaDb.execute(DB, "UPDATE item SET price = 4.00 WHERE id = " + id);
        stack.kafka().start();
        // The connector stops (exit code 3) when Kafka refuses a batch; a supervisor would restart it.
        // It then resumes from the offsets it stored before the failed batch: nothing is lost.
        await().atMost(CONVERGE.multipliedBy(2)).until(() -> {
            if (!connector.isAlive()) {
                connector.start();
            }
            return first.cache("items").caffeine().getIfPresent(id) == null
                    && second.cache("items").caffeine().getIfPresent(id) == null;
        });
        awaitEvicted("items", id);
        awaitEvicted("itemsByCode", "k-" + id);
        awaitConverged("items", id);

        long next = ids.incrementAndGet();
        insertItem(next, "k-" + next, "1.00");
        fill("items", next);
        mariaDb.execute(DB, "UPDATE item SET price = 5.00 WHERE id = " + next);
        awaitEvicted("items", next);
        awaitFresh();
    }
}
