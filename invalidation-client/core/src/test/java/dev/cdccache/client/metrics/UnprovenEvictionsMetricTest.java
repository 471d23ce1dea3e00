package dev.cdccache.client.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.StalenessPolicy;
import dev.cdccache.client.staleness.StalenessGuard;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@code cdc.client.unproven.evictions} exists at 0 for every reason from the start: Prometheus sees no increase in
 * a series that first appears at 1, so an alert on the first epoch change would miss it otherwise.
 */
class UnprovenEvictionsMetricTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ClientMetrics metrics = new ClientMetrics(registry, "test-1",
            new StalenessGuard(System::currentTimeMillis, Duration.ofSeconds(5), StalenessPolicy.BYPASS_CACHE, true));

    @Test
    void everyReasonIsExportedAtZeroBeforeTheFirstEviction() {
        for (String reason : new String[] {"epoch_change", "new_coverage", "freshness_gap"}) {
            assertThat(counter(reason).count()).as(reason).isZero();
        }
    }

    @Test
    void anEvictionCountsOnTheSameSeries() {
        Counter epochChanges = counter("epoch_change");

        metrics.unprovenEvicted("epoch_change", 3);

        assertThat(epochChanges.count()).isEqualTo(3);
        assertThat(metrics.unprovenEvictions("epoch_change")).isEqualTo(3);
        assertThat(registry.find("cdc.client.unproven.evictions").tag("reason", "epoch_change").counters()).hasSize(1);
    }

    private Counter counter(String reason) {
        return registry.get("cdc.client.unproven.evictions").tag("client", "test-1").tag("reason", reason).counter();
    }
}
