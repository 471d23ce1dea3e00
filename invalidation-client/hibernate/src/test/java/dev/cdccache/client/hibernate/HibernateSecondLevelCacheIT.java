package dev.cdccache.client.hibernate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.cdccache.client.parsing.ChangeEvent;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.connector.ConnectorProcess;
import dev.cdccache.infra.mariadb.MariaDbServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Predicate;
import org.hibernate.Session;
import org.hibernate.cache.CacheException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The CDC second-level cache end to end: real MariaDB (binlog), the real connector process, a real Kafka broker,
 * and two "service instances", each a Hibernate session factory with its own regions. Changes are made with plain
 * SQL, as by any writer that is not the service.
 */
class HibernateSecondLevelCacheIT {

    private static final Duration CONVERGE = Duration.ofSeconds(30);
    private static final String DB = "hc_db";
    private static final List<Class<?>> ENTITIES = List.of(Product.class, ProductTag.class, Badge.class);

    private static LocalStack stack;
    private static MariaDbServer mariaDb;
    private static ConnectorProcess connector;
    private static HibernateInstance first;
    private static HibernateInstance second;
    private static final AtomicLong ids = new AtomicLong(1_000);

    @BeforeAll
    static void startEverything() {
        stack = LocalStack.shared();
        mariaDb = stack.mariaDb();
        mariaDb.createDatabase(DB);
        mariaDb.execute(DB,
                "CREATE TABLE IF NOT EXISTS product (id BIGINT PRIMARY KEY, name VARCHAR(64) NOT NULL, "
                        + "price INT NOT NULL)",
                "CREATE TABLE IF NOT EXISTS product_tag (id BIGINT PRIMARY KEY, product_id BIGINT NOT NULL, "
                        + "tag VARCHAR(32) NOT NULL)",
                "CREATE TABLE IF NOT EXISTS badge (id BIGINT PRIMARY KEY, label VARCHAR(32) NOT NULL)",
                "CREATE TABLE IF NOT EXISTS shelf (id BIGINT PRIMARY KEY, label VARCHAR(32) NOT NULL)");
        connector = ConnectorProcess.builder(Path.of("target", "connector", "cdc-connector-exec.jar"), stack)
                .tables(List.of(DB + ".product", DB + ".product_tag", DB + ".badge"))
                .name("hibernate-cache-it")
                .build()
                .start();
        first = new HibernateInstance(stack, DB, ENTITIES);
        second = new HibernateInstance(stack, DB, ENTITIES);
        for (HibernateInstance instance : List.of(first, second)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> instance.regionFactory().client().status().fresh());
        }
    }

    @AfterAll
    static void stopEverything() {
        for (AutoCloseable closeable : new AutoCloseable[] {first, second}) {
            try {
                if (closeable != null) {
                    closeable.close();
                }
            } catch (Exception ignored) {
                // best effort
            }
        }
        if (connector != null) {
            connector.stop();
        }
    }

    // --- helpers ----------------------------------------------------------------------------------------

    private static long insertProduct(String name, int price) {
        long id = ids.incrementAndGet();
        mariaDb.execute(DB, "INSERT INTO product (id, name, price) VALUES (" + id + ", '" + name + "', " + price + ")");
        awaitApplied("product", id);
        return id;
    }

    private static long insertTag(long productId, String tag) {
        long id = ids.incrementAndGet();
        mariaDb.execute(DB, "INSERT INTO product_tag (id, product_id, tag) VALUES (" + id + ", " + productId + ", '"
                + tag + "')");
        awaitApplied("product_tag", id);
        return id;
    }

    private static Predicate<ChangeEvent> event(String table, long id) {
        return e -> table.equals(e.table()) && ((e.after() != null && e.after().get("id").asLong() == id)
                || (e.before() != null && e.before().get("id").asLong() == id));
    }

    /** Both instances have applied an event of this row (so nothing in flight concerns it any more). */
    private static void awaitApplied(String table, long id) {
        for (HibernateInstance instance : List.of(first, second)) {
            await().atMost(CONVERGE).until(() -> instance.hasApplied(event(table, id)));
        }
    }

    private static <T> T inSession(HibernateInstance instance, Function<Session, T> work) {
        try (Session session = instance.sessionFactory.openSession()) {
            return work.apply(session);
        }
    }

    private static String name(HibernateInstance instance, long id) {
        return inSession(instance, s -> {
            Product p = s.find(Product.class, id);
            return p == null ? null : p.getName();
        });
    }

    private static List<String> tags(HibernateInstance instance, long productId) {
        return inSession(instance, s -> s.find(Product.class, productId).getTags().stream().map(ProductTag::getTag)
                .toList());
    }

    private static boolean cached(HibernateInstance instance, long id) {
        return instance.sessionFactory.getCache().containsEntity(Product.class, id);
    }

    private static boolean tagsCached(HibernateInstance instance, long id) {
        return instance.sessionFactory.getCache().containsCollection(Product.class.getName() + ".tags", id);
    }

    /** Loads the product (and its tags) into the instance's cache; retried while a just-applied event discards it. */
    private static void fill(HibernateInstance instance, long id) {
        await().atMost(CONVERGE).until(() -> {
            tags(instance, id);
            return cached(instance, id) && tagsCached(instance, id);
        });
    }

    private static int statements(HibernateInstance instance, Runnable work) {
        int before = instance.dataSource.count();
        work.run();
        return instance.dataSource.count() - before;
    }

    // --- changes by plain SQL reach both instances ---------------------------------------------------------

    @Test
    void anUpdateBySqlIsServedByBothInstances() {
        long id = insertProduct("before", 10);
        for (HibernateInstance instance : List.of(first, second)) {
            fill(instance, id);
            assertThat(statements(instance, () -> assertThat(name(instance, id)).isEqualTo("before"))).isZero();
        }

        mariaDb.execute(DB, "UPDATE product SET name = 'after' WHERE id = " + id);

        for (HibernateInstance instance : List.of(first, second)) {
            await().atMost(CONVERGE).untilAsserted(() -> assertThat(name(instance, id)).isEqualTo("after"));
        }
    }

    @Test
    void aDeleteBySqlIsServedByBothInstances() {
        long id = insertProduct("doomed", 10);
        for (HibernateInstance instance : List.of(first, second)) {
            fill(instance, id);
        }

        mariaDb.execute(DB, "DELETE FROM product WHERE id = " + id);

        for (HibernateInstance instance : List.of(first, second)) {
            await().atMost(CONVERGE).untilAsserted(() -> assertThat(name(instance, id)).isNull());
        }
    }

    @Test
    void anInsertOfAnAbsentIdIsServedByBothInstances() {
        long id = ids.incrementAndGet();
        for (HibernateInstance instance : List.of(first, second)) {
            assertThat(name(instance, id)).isNull();
        }

        mariaDb.execute(DB, "INSERT INTO product (id, name, price) VALUES (" + id + ", 'born', 10)");

        for (HibernateInstance instance : List.of(first, second)) {
            await().atMost(CONVERGE).untilAsserted(() -> assertThat(name(instance, id)).isEqualTo("born"));
        }
    }

    @Test
    void collectionEntriesFollowInsertsUpdatesAndDeletesOfTheirElementRows() {
        long id = insertProduct("tagged", 10);
        for (HibernateInstance instance : List.of(first, second)) {
            fill(instance, id); // an empty collection, cached
            assertThat(tags(instance, id)).isEmpty();
        }

        long tag = ids.incrementAndGet();
        mariaDb.execute(DB, "INSERT INTO product_tag (id, product_id, tag) VALUES (" + tag + ", " + id + ", 'new')");
        for (HibernateInstance instance : List.of(first, second)) {
            await().atMost(CONVERGE).untilAsserted(() -> assertThat(tags(instance, id)).containsExactly("new"));
            fill(instance, id);
        }

        long other = insertProduct("other", 10);
        mariaDb.execute(DB, "UPDATE product_tag SET product_id = " + other + " WHERE id = " + tag); // moves owner
        for (HibernateInstance instance : List.of(first, second)) {
            await().atMost(CONVERGE).untilAsserted(() -> assertThat(tags(instance, id)).isEmpty());
            assertThat(tags(instance, other)).containsExactly("new");
        }

        mariaDb.execute(DB, "DELETE FROM product_tag WHERE id = " + tag);
        for (HibernateInstance instance : List.of(first, second)) {
            await().atMost(CONVERGE).untilAsserted(() -> assertThat(tags(instance, other)).isEmpty());
        }
    }

    @Test
    void cachedQueryResultsFollowChangesOfTheirTables() {
        int price = 7_000 + (int) (ids.incrementAndGet() % 1000);
        Function<Session, List<String>> query = s -> s.createSelectionQuery(
                        "from Product where price = :price order by id", Product.class)
                .setParameter("price", price).setCacheable(true).getResultList().stream().map(Product::getName)
                .toList();
        for (HibernateInstance instance : List.of(first, second)) {
            assertThat(inSession(instance, query)).isEmpty(); // an empty result, cached
            assertThat(statements(instance, () -> assertThat(inSession(instance, query)).isEmpty())).isZero();
        }

        long id = ids.incrementAndGet();
        mariaDb.execute(DB, "INSERT INTO product (id, name, price) VALUES (" + id + ", 'priced', " + price + ")");
        for (HibernateInstance instance : List.of(first, second)) {
            await().atMost(CONVERGE).untilAsserted(() -> assertThat(inSession(instance, query))
                    .containsExactly("priced"));
            await().atMost(CONVERGE).until(() -> statements(instance, () -> inSession(instance, query)) == 0);
        }

        mariaDb.execute(DB, "UPDATE product SET name = 'repriced', price = " + (price + 1) + " WHERE id = " + id);
        for (HibernateInstance instance : List.of(first, second)) {
            await().atMost(CONVERGE).untilAsserted(() -> assertThat(inSession(instance, query)).isEmpty());
        }
    }

    private static Badge badge(HibernateInstance instance, long id) {
        return inSession(instance, s -> s.find(Badge.class, id));
    }

    @Test
    void aTruncateEvictsTheWholeRoleInBothInstances() {
        long one = ids.incrementAndGet();
        long two = ids.incrementAndGet();
        mariaDb.execute(DB, "INSERT INTO badge (id, label) VALUES (" + one + ", 'one'), (" + two + ", 'two')");
        awaitApplied("badge", two);
        for (HibernateInstance instance : List.of(first, second)) {
            await().atMost(CONVERGE).until(() -> {
                inSession(instance, s -> List.of(s.find(Badge.class, one), s.find(Badge.class, two)));
                return instance.sessionFactory.getCache().containsEntity(Badge.class, one)
                        && instance.sessionFactory.getCache().containsEntity(Badge.class, two);
            });
        }

        mariaDb.execute(DB, "TRUNCATE TABLE badge");

        for (HibernateInstance instance : List.of(first, second)) {
            await().atMost(CONVERGE).until(() -> badge(instance, one) == null);
            assertThat(badge(instance, two)).isNull();
        }
    }

    // --- bulk lookup: hits from the cache, the misses in one query ---------------------------------------------

    @Test
    void multiLoadServesHitsFromTheCacheAndLoadsOnlyTheMissesInOneStatement() {
        List<Long> batch = List.of(insertProduct("b1", 1), insertProduct("b2", 2), insertProduct("b3", 3),
                insertProduct("b4", 4), insertProduct("b5", 5));
        HibernateInstance instance = first;
        Function<Session, List<String>> load = s -> s.findMultiple(Product.class, batch).stream()
                .map(Product::getName).toList();

        // No hits: one statement for all five.
        batch.forEach(id -> instance.sessionFactory.getCache().evictEntityData(Product.class, id));
        int before = instance.dataSource.count();
        assertThat(inSession(instance, load)).containsExactly("b1", "b2", "b3", "b4", "b5");
        assertThat(instance.dataSource.count() - before).isEqualTo(1);
        await().atMost(CONVERGE).until(() -> batch.stream().allMatch(id -> cached(instance, id)));

        // All hits: no statement.
        assertThat(statements(instance, () -> assertThat(inSession(instance, load))
                .containsExactly("b1", "b2", "b3", "b4", "b5"))).isZero();

        // Two misses: one statement, naming exactly the two missing ids.
        instance.sessionFactory.getCache().evictEntityData(Product.class, batch.get(1));
        instance.sessionFactory.getCache().evictEntityData(Product.class, batch.get(3));
        before = instance.dataSource.count();
        assertThat(inSession(instance, load)).containsExactly("b1", "b2", "b3", "b4", "b5");
        List<RecordingDataSource.Executed> executed = instance.dataSource.executed();
        assertThat(executed.size() - before).isEqualTo(1);
        assertThat(executed.get(executed.size() - 1).parameters())
                .containsExactlyInAnyOrder(batch.get(1), batch.get(3));
    }

    // --- the stale-load race --------------------------------------------------------------------------------

    /**
     * Forces "the load reads the old row → a writer commits → the change's eviction is applied (evicting nothing,
     * the entry is not there yet) → the load puts what it read". Hibernate treats the absent entry as writable;
     * the stamp taken when the session began must make the put a no-op.
     */
    private static void raceOneLoad(HibernateInstance instance, String table, Runnable load, Runnable commit,
            Predicate<ChangeEvent> commitEvent) throws Exception {
        CountDownLatch read = new CountDownLatch(1);
        CountDownLatch evicted = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        instance.onApplied(commitEvent, evicted::countDown);
        CompletableFuture<Void> loader = CompletableFuture.runAsync(() -> {
            instance.dataSource.holdAfterRead(Thread.currentThread(), table, () -> {
                read.countDown();
                awaitLatch(release);
            });
            load.run();
        });
        assertThat(read.await(30, TimeUnit.SECONDS)).as("the load read the row").isTrue();
        commit.run();
        assertThat(evicted.await(30, TimeUnit.SECONDS)).as("the change's eviction was applied").isTrue();
        release.countDown();
        loader.get(30, TimeUnit.SECONDS);
        instance.onApplied(e -> false, () -> { });
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("not released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Races {@code load} (which must read and return the product's name) with a rename of the product. */
    private static void raceARename(java.util.function.LongFunction<String> load) throws Exception {
        long id = insertProduct("old", 10);
        HibernateInstance instance = first;
        instance.sessionFactory.getCache().evictEntityData(Product.class, id);

        raceOneLoad(instance, "product", () -> assertThat(load.apply(id)).isEqualTo("old"),
                () -> mariaDb.execute(DB, "UPDATE product SET name = 'new' WHERE id = " + id),
                e -> e.table().equals("product") && e.after() != null && e.after().get("name").asString().equals("new")
                        && e.after().get("id").asLong() == id);

        assertThat(cached(instance, id)).isFalse();
        assertThat(name(instance, id)).isEqualTo("new");
    }

    @Test
    void aFindThatReadTheRowBeforeAnAppliedChangeDoesNotCacheIt() throws Exception {
        raceARename(id -> name(first, id));
    }

    @Test
    void aQueryThatReadTheRowBeforeAnAppliedChangeDoesNotCacheItsEntity() throws Exception {
        raceARename(id -> inSession(first, s -> s.createSelectionQuery("from Product where id = :id", Product.class)
                .setParameter("id", id).getSingleResult().getName()));
    }

    @Test
    void aCollectionInitialisedBeforeAnAppliedChangeIsNotCached() throws Exception {
        long id = insertProduct("owner", 10);
        insertTag(id, "first");
        HibernateInstance instance = first;
        fill(instance, id);
        instance.sessionFactory.getCache().evictCollectionData(Product.class.getName() + ".tags", id);
        long tag = ids.incrementAndGet();

        raceOneLoad(instance, "product_tag", () -> assertThat(tags(instance, id)).containsExactly("first"),
                () -> mariaDb.execute(DB, "INSERT INTO product_tag (id, product_id, tag) VALUES (" + tag + ", " + id
                        + ", 'second')"),
                event("product_tag", tag));

        assertThat(tagsCached(instance, id)).isFalse();
        assertThat(tags(instance, id)).containsExactly("first", "second");
    }

    // --- start-up -------------------------------------------------------------------------------------------

    @Test
    void startUpFailsForACachedEntityWhoseTableIsNotCaptured() {
        assertThatThrownBy(() -> new HibernateInstance(stack, DB, List.of(Product.class, ProductTag.class,
                Shelf.class)))
                .isInstanceOf(CacheException.class)
                .hasMessageContaining("entity " + Shelf.class.getName() + " is cached but its table hc_db.shelf is "
                        + "not captured (Kafka topic cdc.hc_db.shelf does not exist)")
                .hasMessageContaining("Capture these tables in the connector")
                .message().doesNotContain("hc_db.product ");
    }
}
