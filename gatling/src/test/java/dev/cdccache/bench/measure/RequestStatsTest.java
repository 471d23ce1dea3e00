package dev.cdccache.bench.measure;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RequestStatsTest {

    @Test
    void percentilesAreMicrosecondsOfSuccessfulRequestsOnly() {
        RequestStats stats = new RequestStats();
        for (int i = 1; i <= 100; i++) {
            stats.recordOk("single coupon", 0, i * 1_000_000L); // 1..100 ms
        }
        stats.recordKo("single coupon", 0, 999_000_000L);

        LatencySummary summary = stats.of("single coupon");
        assertThat(summary.count()).isEqualTo(100);
        assertThat(summary.p50Micros()).isBetween(49_900L, 50_100L);
        assertThat(summary.p99Micros()).isBetween(98_900L, 99_100L);
        assertThat(summary.maxMicros()).isBetween(99_900L, 100_100L);
        assertThat(stats.failed()).isEqualTo(1);
    }

    @Test
    void throughputIsSuccessfulRequestsOverTheWindowFromFirstStartToLastEnd(@TempDir Path dir) {
        RequestStats stats = new RequestStats();
        for (int i = 0; i < 200; i++) {
            long start = i * 10_000_000L; // one every 10 ms over 2 s
            stats.recordOk("bulk coupons", start, start + 1_000_000L);
        }
        ResultFile file = new ResultFile();
        stats.writeTo(file, "coupon");
        file.write(dir.resolve("r.properties"));
        ResultFile read = ResultFile.read(dir.resolve("r.properties"));

        assertThat(read.getDouble("coupon.window_s")).isEqualTo(1.991);
        assertThat(read.getDouble("coupon.throughput_rps")).isEqualTo(100.5);
        assertThat(read.getLong("coupon.request.bulk_coupons.count")).isEqualTo(200);
        assertThat(LatencySummary.readFrom(read, "coupon.all").count()).isEqualTo(200);
    }

    @Test
    void requestNamesBecomePropertyKeySegments() {
        assertThat(RequestStats.keyOf("search size=10")).isEqualTo("search_size_10");
        assertThat(RequestStats.keyOf("Single Coupon")).isEqualTo("single_coupon");
    }
}
