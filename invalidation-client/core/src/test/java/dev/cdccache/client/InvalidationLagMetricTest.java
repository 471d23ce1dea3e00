package dev.cdccache.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The lag metric a user sees by default is the accurate one: {@code cdc.client.invalidation.lag} is
 * measured from the heartbeat row's {@code DATETIME(6)} write time, at millisecond resolution, while
 * {@code source.ts_ms}, which MariaDB truncates to the second, feeds only the opt-in
 * {@code cdc.client.commit.lag}.
 *
 * <p>The clock is frozen, so the expected values are exact: a row written at {@code COMMIT} (with sub-second
 * digits) and applied at {@code NOW}, its change event carrying {@code source.ts_ms} truncated to the second as
 * MariaDB's binlog does.
 */
class InvalidationLagMetricTest {

    private static final String COUPON = "cdc.coupon_db.coupon";
    private static final String HEARTBEAT = "cdc.cdc_meta.heartbeat";
    private static final long NOW = 1_700_000_005_000L;
    /** 1,300.5 ms before NOW, in microseconds as the heartbeat's DATETIME(6) arrives. */
    private static final long COMMIT_MICROS = (NOW - 1_301) * 1_000 + 500;
    private static final long TRUE_LAG_MILLIS = NOW - COMMIT_MICROS / 1_000;
    private static final long SOURCE_TS_MS = COMMIT_MICROS / 1_000_000 * 1_000;

    @Test
    void theDefaultLagMetricIsTheHeartbeatsMillisecondLagAndSourceTimestampsFeedNoMeter() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        runOneCommit(registry, false);

        Timer lag = registry.get("cdc.client.invalidation.lag").timer();
        assertThat(lag.count()).as("one sample per heartbeat; changes add none").isEqualTo(1);
        assertThat(lag.max(TimeUnit.MILLISECONDS)).as("millisecond resolution, not MariaDB's truncated second")
                .isEqualTo(TRUE_LAG_MILLIS);
        assertThat(registry.find("cdc.client.commit.lag").meters()).as("the coarse per-table lag is opt-in").isEmpty();
        assertThat(registry.find("cdc.client.heartbeat.lag").meters()).as("no second name for the same lag").isEmpty();
    }

    @Test
    void theCommitLagByTableIsRecordedFromSourceTimestampsWhenEnabled() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        runOneCommit(registry, true);

        Timer commitLag = registry.get("cdc.client.commit.lag").tag("table", "coupon_db.coupon").timer();
        assertThat(commitLag.count()).isEqualTo(1);
        assertThat(commitLag.max(TimeUnit.MILLISECONDS)).as("off by the commit's sub-second part")
                .isEqualTo(NOW - SOURCE_TS_MS).isGreaterThan(TRUE_LAG_MILLIS + 500);
        assertThat(registry.get("cdc.client.invalidation.lag").timer().max(TimeUnit.MILLISECONDS))
                .isEqualTo(TRUE_LAG_MILLIS);
    }

    /** Starts a client on a frozen clock, applies one change of a row and the heartbeat written with it. */
    private static void runOneCommit(SimpleMeterRegistry registry, boolean commitLagByTable) {
        MockKafkaTopics kafka = new MockKafkaTopics();
        kafka.createTopic(COUPON);
        kafka.createTopic(HEARTBEAT);
        try (InvalidationClient client = new InvalidationClient(InvalidationClientConfig.builder()
                .bootstrapServers("mock:9092")
                .meterRegistry(registry)
                .clock(() -> NOW)
                .commitLagByTable(commitLagByTable)
                .cache(CacheDefinition.builder("coupons").table("coupon_db.coupon").keyColumns("id").build())
                .build(), props -> kafka)) {
            client.start();
            assertThat(client.awaitReady(Duration.ofSeconds(5))).isTrue();
            kafka.produce(COUPON, """
                    {"before":{"id":1},"after":{"id":1},"op":"u",
                     "source":{"db":"coupon_db","table":"coupon","ts_ms":%d}}""".formatted(SOURCE_TS_MS));
            kafka.produce(HEARTBEAT, """
                    {"before":null,"after":{"id":"connector","ts":%d},"op":"u",
                     "source":{"db":"cdc_meta","table":"heartbeat","ts_ms":%d}}""".formatted(COMMIT_MICROS,
                    SOURCE_TS_MS));
            await().atMost(Duration.ofSeconds(5)).until(() -> registry.find("cdc.client.invalidation.lag").timer() != null
                    && registry.get("cdc.client.invalidation.lag").timer().count() == 1
                    && registry.find("cdc.client.events").tag("topic", COUPON).counter() != null);
        }
    }
}
