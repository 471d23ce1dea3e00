package dev.cdccache.connector.metrics;

import dev.cdccache.connector.continuity.Continuity;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The connector's meters of its continuity epoch (docs/contract.md, "Epochs"), fed with every epoch this process
 * starts. Exported at {@code /actuator/prometheus}:
 * <ul>
 *   <li>{@code cdc_connector_epoch_changes_total{gap}}: epochs this process started instead of resuming the stored
 *       one; {@code gap="true"} when changes may have been missed (a purged position, another server, lost offsets,
 *       a statement in the binlog...), {@code gap="false"} for a first start or an unknown stored epoch. Every
 *       client drops its cached entries of this connector's tables on each.</li>
 *   <li>{@code cdc_connector_epoch_gap_time_seconds}: epoch seconds when this process last started an epoch after
 *       a gap, 0 if it has not. A gauge as well as the counter because most gaps are found at start-up, before the
 *       first scrape: a counter that is already 1 when first scraped shows no increase, while
 *       {@code time() - cdc_connector_epoch_gap_time_seconds} says how long ago the gap was in any case.</li>
 * </ul>
 * Both are registered at construction, so they are exported (at 0) before the first epoch change. Thread-safe.
 */
public final class EpochMetrics {

    private final Counter gapChanges;
    private final Counter cleanChanges;
    private final AtomicLong lastGapEpochMillis = new AtomicLong();

    public EpochMetrics(MeterRegistry registry) {
        this.gapChanges = changes(registry, true);
        this.cleanChanges = changes(registry, false);
        Gauge.builder("cdc.connector.epoch.gap.time", lastGapEpochMillis, v -> v.get() / 1000.0)
                .description("Epoch seconds when this process last started a new epoch because changes may have been"
                        + " missed (0: not since it started)")
                .baseUnit("seconds")
                .register(registry);
    }

    private static Counter changes(MeterRegistry registry, boolean gap) {
        return Counter.builder("cdc.connector.epoch.changes")
                .description("Epochs started by this process instead of resuming the stored one; clients drop their"
                        + " cached entries of the captured tables on each")
                .tag("gap", Boolean.toString(gap))
                .register(registry);
    }

    /** Records that this process started {@code continuity}'s epoch (not called for a resumed epoch). */
    public void epochStarted(Continuity continuity) {
        if (continuity.gap()) {
            gapChanges.increment();
            lastGapEpochMillis.set(continuity.decidedAt().toEpochMilli());
        } else {
            cleanChanges.increment();
        }
    }
}
