package dev.cdccache.coupon.caching;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.position.ReadYourWrites.Outcome;
import dev.cdccache.coupon.testing.ApiClient.Response;
import dev.cdccache.coupon.testing.CdcTwoInstances;
import dev.cdccache.coupon.testing.CouponBodies;
import dev.cdccache.coupon.testing.ServiceInstance;
import dev.cdccache.infra.LocalStack;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;

/**
 * Read your writes, shown on the running service: an admin renames a coupon through one instance and reads it back at
 * once, on that instance and on the other one passing the write's {@code Cdc-Position} response header. Every read
 * returns the new name, although the connector is behind a 50,000-row transaction committed just before, so the
 * rename's own change (which evicts the cached old coupon) arrives much later than the reads: they wait for it or
 * bypass the cache. A third instance with read-your-writes switched off, in the same scenario, serves the old name.
 *
 * <p>The reads are counted by the client's metric {@code cdc.client.read.floor{cache, outcome}} as the actuator
 * exports it, the way an operator would see them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminReadYourWritesIT {

    private static final LocalStack STACK = LocalStack.shared();
    /** Rows of the table whose one-transaction update the connector has to publish before the renames. */
    private static final int LARGE_TRANSACTION_ROWS = 50_000;
    private static final int ROUNDS = 1_000;
    private static final int CONTROL_ROUNDS = 200;
    private static final String HEADER = "Cdc-Position";
    private static final List<Map<String, String>> ATTRIBUTES = List.of(Map.of("key", "channel", "value", "web"));

    private CdcTwoInstances platform;
    private ServiceInstance writer;
    private ServiceInstance other;
    private ServiceInstance withoutReadYourWrites;

    @BeforeAll
    void start() throws Exception {
        platform = CdcTwoInstances.start(STACK, "ryw", "local", List.of("bulk_row"), admin -> {
            JdbcTemplate jdbc = new JdbcTemplate(admin);
            // Filled before the connector starts, so that only the test's one large update is streamed.
            jdbc.execute("CREATE TABLE bulk_row (id INT PRIMARY KEY, n INT NOT NULL)");
            jdbc.execute("CREATE TABLE digit (d INT PRIMARY KEY)");
            jdbc.execute("INSERT INTO digit VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)");
            jdbc.execute("INSERT INTO bulk_row (id, n) SELECT a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d, 0"
                    + " FROM digit a, digit b, digit c, digit e, digit f WHERE f.d < " + LARGE_TRANSACTION_ROWS / 10_000);
        }, Map.of("cdc.invalidation.read-your-writes.enabled", "true",
                "cdc.invalidation.read-your-writes.position-header", "true"));
        writer = platform.first();
        other = platform.second();
        withoutReadYourWrites = platform.startAnother("coupon-ryw-off", Map.of(
                "cdc.invalidation.read-your-writes.enabled", "false",
                "cdc.invalidation.read-your-writes.position-header", "false"));
    }

    @AfterAll
    void stop() {
        if (platform != null) {
            platform.close();
        }
    }

    /** Commits one UPDATE of every bulk_row row: the connector publishes its 50,000 changes before anything later. */
    private void slowTheConnectorDown() {
        platform.sql("UPDATE bulk_row SET n = n + 1");
    }

    private static String name(Response coupon) {
        assertThat(coupon.status()).as("GET %s", coupon).isEqualTo(200);
        return coupon.json().path("name").asString();
    }

    /** The coupon cached on the instances, with its old name, before the scenario starts. */
    private static JsonNode cached(long id, ServiceInstance... instances) {
        JsonNode coupon = null;
        for (ServiceInstance instance : instances) {
            instance.api().get("/coupons/" + id);
            coupon = instance.api().get("/coupons/" + id).json();
        }
        return coupon;
    }

    private static Map<Outcome, Long> floorReads(ServiceInstance instance) {
        Map<Outcome, Long> counts = new EnumMap<>(Outcome.class);
        for (Outcome outcome : Outcome.values()) {
            Response metric = instance.api().get(
                    "/actuator/metrics/cdc.client.read.floor?tag=cache:coupons&tag=outcome:" + outcome.tag());
            counts.put(outcome, metric.status() == 404 ? 0
                    : metric.json().path("measurements").get(0).path("value").asLong());
        }
        return counts;
    }

    private static Map<Outcome, Long> since(Map<Outcome, Long> before, Map<Outcome, Long> after) {
        Map<Outcome, Long> delta = new EnumMap<>(Outcome.class);
        after.forEach((outcome, count) -> delta.put(outcome, count - before.get(outcome)));
        return delta;
    }

    private static long total(Map<Outcome, Long> counts) {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }

    @Test
    void everyReadRightAfterAnAdminRenameReturnsTheNewNameOnTheWritingInstanceAndWithTheHeaderOnTheOther() {
        long id = 40;
        JsonNode coupon = cached(id, writer, other);
        Map<Outcome, Long> writerBefore = floorReads(writer);
        Map<Outcome, Long> otherBefore = floorReads(other);

        slowTheConnectorDown();
        List<String> wrong = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            String renamed = "read your writes " + round;
            Response write = writer.api().put("/admin/coupons/" + id, CouponBodies.renamed(coupon, renamed, ATTRIBUTES));
            assertThat(write.status()).as("PUT round %d: %s", round, write).isEqualTo(200);
            String position = write.header(HEADER);
            assertThat(position).as("the write's position in its response, round %d", round).isNotBlank();

            String sameInstance = name(writer.api().get("/coupons/" + id));
            String otherInstance = name(other.api().get("/coupons/" + id, HEADER, position));
            if (!sameInstance.equals(renamed)) {
                wrong.add("round " + round + " same instance: '" + sameInstance + "'");
            }
            if (!otherInstance.equals(renamed)) {
                wrong.add("round " + round + " other instance with the header: '" + otherInstance + "'");
            }
        }

        Map<Outcome, Long> writerReads = since(writerBefore, floorReads(writer));
        Map<Outcome, Long> otherReads = since(otherBefore, floorReads(other));
        System.out.printf("read your writes, %d rounds behind a %d-row transaction: writing instance %s,"
                + " other instance with the header %s%n", ROUNDS, LARGE_TRANSACTION_ROWS, writerReads, otherReads);
        assertThat(wrong).as("reads that did not return the name just written").isEmpty();
        // Each round's read comes after a new write: the first read after the floor rose, and every read under a
        // request floor, is counted once, whichever way it was served.
        assertThat(total(writerReads)).as("writing instance: reads held to the floor").isGreaterThanOrEqualTo(ROUNDS);
        assertThat(total(otherReads)).as("other instance: reads held to the header").isGreaterThanOrEqualTo(ROUNDS);
        // Behind the large transaction the renames' changes were not back yet: reads had to go to the database.
        assertThat(writerReads.get(Outcome.BYPASSED)).as("writing instance: bypassed").isPositive();
        assertThat(otherReads.get(Outcome.BYPASSED)).as("other instance: bypassed").isPositive();
    }

    @Test
    void withReadYourWritesOffTheSameRenamesAreReadBackStale() {
        long id = 41;
        JsonNode coupon = cached(id, withoutReadYourWrites);

        slowTheConnectorDown();
        int stale = 0;
        for (int round = 0; round < CONTROL_ROUNDS; round++) {
            String renamed = "without read your writes " + round;
            Response write = withoutReadYourWrites.api().put("/admin/coupons/" + id,
                    CouponBodies.renamed(coupon, renamed, ATTRIBUTES));
            assertThat(write.status()).as("PUT round %d: %s", round, write).isEqualTo(200);
            assertThat(write.header(HEADER)).as("no position header when switched off").isNull();
            if (!name(withoutReadYourWrites.api().get("/coupons/" + id)).equals(renamed)) {
                stale++;
            }
        }

        System.out.printf("read your writes off, %d rounds behind a %d-row transaction: %d stale reads%n",
                CONTROL_ROUNDS, LARGE_TRANSACTION_ROWS, stale);
        assertThat(stale).as("reads of the old name: the gap read-your-writes closes").isPositive();
    }
}
