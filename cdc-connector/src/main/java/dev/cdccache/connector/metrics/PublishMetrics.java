package dev.cdccache.connector.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The connector's Micrometer meters. Exported at {@code /actuator/prometheus}:
 * <ul>
 *   <li>{@code cdc_connector_events_published_total{table}}: events Kafka acknowledged, per table;</li>
 *   <li>{@code cdc_connector_publish_failures_total}: batches whose publication failed;</li>
 *   <li>{@code cdc_connector_commit_to_publish_lag_seconds}: histogram from the database commit time
 *       ({@code source.ts_ms}, one-second resolution on MariaDB) to Kafka's acknowledgement;</li>
 *   <li>{@code cdc_connector_last_event_time_seconds}: epoch seconds of the last acknowledged event;</li>
 *   <li>{@code cdc_connector_engine_state}: see {@link dev.cdccache.connector.engine.EngineState}.</li>
 *   <li>{@code cdc_connector_transactions_coalesced_total{table}}: transactions whose remaining row events of the
 *       table were replaced by one table-wide eviction (docs/connector.md, "Large transactions");</li>
 *   <li>{@code cdc_connector_events_suppressed_total{table}}: row events not published because such an eviction
 *       covers them;</li>
 *   <li>{@code cdc_connector_binlog_disconnects_total}: binlog connections lost and re-established (each one
 *       publishes the transaction in progress again).</li>
 * </ul>
 */
public final class PublishMetrics {

    private final MeterRegistry registry;
    private final Map<String, Counter> publishedByTable = new ConcurrentHashMap<>();
    private final Map<String, Counter> coalescedByTable = new ConcurrentHashMap<>();
    private final Map<String, Counter> suppressedByTable = new ConcurrentHashMap<>();
    private final Counter failures;
    private final Timer lag;
    private final AtomicLong lastEventEpochMillis = new AtomicLong();
    private volatile LongSupplier disconnects = () -> 0;

    public PublishMetrics(MeterRegistry registry, Supplier<Number> engineState) {
        this.registry = registry;
        this.failures = Counter.builder("cdc.connector.publish.failures")
                .description("Batches whose publication to Kafka failed (the engine stops and resumes from the last acknowledged position)")
                .register(registry);
        this.lag = Timer.builder("cdc.connector.commit.to.publish.lag")
                .description("Database commit (source.ts_ms, 1 s resolution on MariaDB) to Kafka acknowledgement")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofMinutes(5))
                .register(registry);
        Gauge.builder("cdc.connector.last.event.time", lastEventEpochMillis, v -> v.get() / 1000.0)
                .description("Epoch seconds when the last event was acknowledged by Kafka (0: none yet)")
                .baseUnit("seconds")
                .register(registry);
        Gauge.builder("cdc.connector.engine.state", engineState) // strong reference: the supplier lives nowhere else
                .description("0 stopped, 1 starting, 2 streaming, 3 failed")
                .register(registry);
    }

    /**
     * Registers {@code cdc.connector.binlog.disconnects}, read from {@code disconnects} when scraped. The supplier
     * is held strongly here: a function counter keeps its object only weakly.
     */
    public void bindBinlogDisconnects(LongSupplier disconnects) {
        this.disconnects = disconnects;
        FunctionCounter.builder("cdc.connector.binlog.disconnects", this, m -> m.disconnects.getAsLong())
                .description("Binlog connections lost and re-established (database restart, network cut, or a reader "
                        + "that waited longer than the keep-alive interval for queue room); each publishes the "
                        + "transaction in progress again")
                .register(registry);
    }

    /**
     * Records {@code events} events of one table that Kafka acknowledged at {@code nowEpochMillis}: the publisher
     * calls it once per run of a table's events in a batch, not once per event (a counter lookup and increment per
     * event was a measurable share of the polling thread during bulk changes).
     */
    public void published(String table, int events, long nowEpochMillis) {
        if (events <= 0) {
            return;
        }
        publishedByTable.computeIfAbsent(table, t -> Counter.builder("cdc.connector.events.published")
                .description("Change events acknowledged by Kafka")
                .tag("table", t)
                .register(registry)).increment(events);
        lastEventEpochMillis.set(nowEpochMillis);
    }

    /**
     * Records the commit-to-acknowledgement lag of {@code events} events committed at the same
     * {@code sourceCommitEpochMillis} (one-second resolution on MariaDB, so a batch is mostly one or two such runs):
     * still one histogram sample per event, as before, without a {@code Duration} or a lookup per event.
     * A commit time of 0 (absent) records nothing.
     */
    public void lag(long sourceCommitEpochMillis, int events, long nowEpochMillis) {
        if (sourceCommitEpochMillis <= 0) {
            return;
        }
        long millis = Math.max(0, nowEpochMillis - sourceCommitEpochMillis);
        for (int i = 0; i < events; i++) {
            lag.record(millis, TimeUnit.MILLISECONDS);
        }
    }

    /** One transaction's remaining row events of {@code table} are replaced by one table-wide eviction. */
    public void transactionCoalesced(String table) {
        coalescedByTable.computeIfAbsent(table, t -> Counter.builder("cdc.connector.transactions.coalesced")
                .description("Transactions whose remaining row events of the table were replaced by one table-wide eviction")
                .tag("table", t)
                .register(registry)).increment();
    }

    /** {@code rows} row events of {@code table} were not published: a table-wide eviction covers them. */
    public void rowsSuppressed(String table, int rows) {
        suppressedByTable.computeIfAbsent(table, t -> Counter.builder("cdc.connector.events.suppressed")
                .description("Row events not published because a table-wide eviction of their transaction covers them")
                .tag("table", t)
                .register(registry)).increment(rows);
    }

    /** Records one failed batch. */
    public void publishFailed() {
        failures.increment();
    }

    /** Epoch millis of the last acknowledged event, 0 if none. */
    public long lastEventEpochMillis() {
        return lastEventEpochMillis.get();
    }
}
