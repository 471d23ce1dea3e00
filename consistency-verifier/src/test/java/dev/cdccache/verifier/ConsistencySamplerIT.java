package dev.cdccache.verifier;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.spring.health.CdcInvalidationHealthIndicator;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.junit.LocalStackExtension;
import dev.cdccache.verifier.instance.Caches;
import dev.cdccache.verifier.instance.ClientInstance;
import dev.cdccache.verifier.report.Report;
import dev.cdccache.verifier.workload.StaleValuePlant;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * The client's consistency sampler under the verifier's workload, with the real MariaDB, Kafka and connector process
 * (docs/consistency.md, "The consistency sampler"): three client instances sampling one hit in 20 while the writer and
 * the readers run, without faults.
 *
 * <p>The negative control: the old value of one row is put into one instance's {@code itemById} Caffeine store after
 * the row changed, so no invalidation will come. The sampler reports it stale by the first sample taken of it, one
 * max-staleness after that sample, with the {@code consistency-stale} health problem and the metrics an operator
 * would see; the history check finds the same cache stale, and the run fails. (The correct run, every instance
 * sampling consistent values and none stale, is {@code ConsistencyUnderFaultsIT}'s, with faults on top.)
 * Report: {@code target/consistency-report-sampler-negative-control.md}.
 */
@ExtendWith(LocalStackExtension.class)
class ConsistencySamplerIT {

    private static final int STALE = ClientInstance.SAMPLE_OUTCOMES.indexOf("stale");

    @Test
    void anOldValuePlantedInACacheIsReportedStaleByTheFirstSampleOfIt(LocalStack stack) throws Exception {
        VerifierSettings settings = withoutFaults(VerifierSettings.shortForm()).withPlantedStaleValue()
                .report(Path.of("target/consistency-report-sampler-negative-control.md"));
        settings.duration = Duration.ofSeconds(20);
        // nothing may evict the planted value but a write of its own row: no bulk update, truncation or schema change
        settings.bulkEvery = Duration.ofMinutes(10);
        settings.truncateFirstAt = Duration.ofMinutes(10);
        settings.schemaChangeEvery = Duration.ofMinutes(10);
        settings.mismatchSettleTimeout = Duration.ofSeconds(2); // the planted value never goes: do not wait for it
        AtomicReference<Health> health = new AtomicReference<>();
        List<Double> staleMeters = new ArrayList<>();

        Report report = new VerificationRun(settings, stack).beforeClose(instances -> {
            ClientInstance planted = instances.get(0);
            health.set(planted.read(client -> new CdcInvalidationHealthIndicator(client).health(true)));
            MeterRegistry meters = planted.meters();
            staleMeters.add(meters.get("cdc.client.consistency.samples")
                    .tags("cache", Caches.BY_ID, "outcome", "stale").functionCounter().count());
            staleMeters.add(meters.get("cdc.client.consistency.stale.window").tag("cache", Caches.BY_ID).gauge()
                    .value());
        }).run();
        report.write(settings.report());

        StaleValuePlant.Result plant = report.plant();
        assertThat(plant.failure()).as("the control was carried out (report: %s)", settings.report().toAbsolutePath())
                .isNull();
        assertThat(plant.reported()).as("the sampler reported the planted value stale: %s", plant).isTrue();
        // The reads stop at the sampler's first re-read of the key: one sample (rarely two, if a second hit was drawn
        // before that re-read ran), each re-read twice, each classified stale.
        assertThat(plant.staleSamples()).as("stale samples of the planted key").isBetween(1L, 2L);
        assertThat(plant.rereads()).as("re-reads: a first one and the recheck").isEqualTo(2 * plant.staleSamples());
        assertThat(plant.reportedAfterNanos()).as("verdict one max-staleness after the first re-read")
                .isLessThan(settings.maxStaleness().plusSeconds(2).toNanos());
        // One hit in 20 is drawn: 400 hits without a draw has a probability of 1e-9.
        assertThat(plant.hits()).as("hits of the planted entry before it was sampled").isLessThan(400);

        assertThat(health.get().getStatus()).as("health of %s", plant.instance()).isNotEqualTo(Status.UP);
        assertThat(health.get().getDetails().get("problems")).asString().contains("consistency-stale")
                .contains(Caches.BY_ID);
        assertThat(staleMeters).as("cdc.client.consistency.samples{outcome=stale}, .stale.window")
                .allSatisfy(value -> assertThat(value).isGreaterThanOrEqualTo(1.0));

        Map<String, Map<String, long[]>> samples = report.samplerCounts();
        samples.forEach((instance, counts) -> counts.forEach((cache, c) -> {
            if (!(instance.equals(plant.instance()) && cache.equals(Caches.BY_ID))) {
                assertThat(c[STALE]).as("stale samples of %s %s, where nothing was planted", instance, cache).isZero();
            }
        }));
        assertThat(report.passed()).as("the verifier must fail a run whose cache holds a stale value").isFalse();
        assertThat(report.problems()).as("the history check finds the planted value stale beyond the bound")
                .anySatisfy(problem -> assertThat(problem).startsWith(plant.instance() + " served")
                        .contains("stale by more than").contains("planted"));
        assertThat(report.problems()).as("the sampler's verdict coincides with the history check's")
                .noneSatisfy(problem -> assertThat(problem).contains("the sampler and the history check disagree"));
    }

    /** The short form's workload without faults, so that a run takes well under a minute. */
    private static VerifierSettings withoutFaults(VerifierSettings settings) {
        settings.faults = new ArrayList<>();
        settings.convergenceTimeout = Duration.ofSeconds(30);
        return settings;
    }
}
