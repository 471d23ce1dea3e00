package dev.cdccache.verifier;

import dev.cdccache.client.StalenessCheck;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.connector.ConnectorProcess;
import dev.cdccache.infra.mariadb.MariaDbServer;
import dev.cdccache.verifier.check.CacheComparison;
import dev.cdccache.verifier.check.DeliveryCheck;
import dev.cdccache.verifier.check.IdleFreshness;
import dev.cdccache.verifier.fault.FaultInjector;
import dev.cdccache.verifier.fault.FaultTimeline;
import dev.cdccache.verifier.fault.Prober;
import dev.cdccache.verifier.history.CommittedHistory;
import dev.cdccache.verifier.instance.ClientInstance;
import dev.cdccache.verifier.report.Report;
import dev.cdccache.verifier.schema.Item;
import dev.cdccache.verifier.schema.VerifierSchema;
import dev.cdccache.verifier.workload.MissedIds;
import dev.cdccache.verifier.workload.OffThreadConnections;
import dev.cdccache.verifier.workload.ReadStatistics;
import dev.cdccache.verifier.workload.Reader;
import dev.cdccache.verifier.workload.StaleValuePlant;
import dev.cdccache.verifier.workload.TableModel;
import dev.cdccache.verifier.workload.Writer;
import java.nio.file.Files;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One verification run against a running {@link LocalStack}: creates the schema, starts the connector as a
 * separate process and the client instances, runs the writer, the readers and the fault injector together,
 * then waits for convergence, compares every cached value with the database, checks that nothing was lost,
 * and returns the {@link Report}.
 */
public final class VerificationRun {

    private static final Logger LOG = LoggerFactory.getLogger(VerificationRun.class);

    private final VerifierSettings settings;
    private final LocalStack stack;
    private final RunClock clock = new RunClock();
    private Consumer<List<ClientInstance>> beforeClose = instances -> { };

    public VerificationRun(VerifierSettings settings, LocalStack stack) {
        this.settings = settings;
        this.stack = stack;
    }

    /**
     * Lets {@code inspector} look at the client instances once everything is checked, before they are closed: a test
     * reads what an operator would (health, meters) from the live clients.
     */
    public VerificationRun beforeClose(Consumer<List<ClientInstance>> inspector) {
        this.beforeClose = inspector;
        return this;
    }

    public Report run() throws Exception {
        MariaDbServer db = stack.mariaDb();
        db.createDatabase(VerifierSchema.DATABASE);
        try (Connection admin = db.adminConnection(VerifierSchema.DATABASE)) {
            VerifierSchema.create(admin);
        }
        CommittedHistory history = new CommittedHistory(settings.idSpace, settings.groups);
        TableModel model = new TableModel(settings.idSpace, settings.groups);
        MissedIds missedIds = new MissedIds();
        FaultTimeline timeline = new FaultTimeline();
        Writer writer = new Writer(db, history, model, missedIds, clock, settings.seed, settings.writesPerSecond,
                settings.initialRows, settings.hotKeys, settings.bulkRows, settings.bulkEvery,
                settings.truncateFirstAt, settings.truncateEvery, settings.schemaChangeEvery);
        writer.populate();
        Prober prober = new Prober(db, clock);
        prober.init();

        ConnectorProcess.Builder connectorBuilder = ConnectorProcess.builder(settings.connectorJar, stack)
                .name("verifier-connector")
                .tables(List.of(VerifierSchema.ITEM_TABLE, VerifierSchema.PROBE_TABLE))
                .logFile(settings.logDir.resolve("verifier-connector.log"));
        settings.connectorProperties.forEach(connectorBuilder::property);
        ConnectorProcess connector = connectorBuilder.build();
        List<ClientInstance> instances = new ArrayList<>();
        List<Reader> readers = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        List<ReadStatistics> readStatistics = new ArrayList<>();
        OffThreadConnections offThread = new OffThreadConnections(db);
        StaleValuePlant plant = null;
        try {
            long connectorStart = clock.now();
            connector.start();
            LOG.info("Connector streaming after {}", RunClock.millis(clock.now() - connectorStart));
            for (int i = 1; i <= settings.instances; i++) {
                StalenessCheck check = settings.stalenessCheckOf(i);
                ClientInstance instance = new ClientInstance("instance-" + i + "-" + VerifierSettings.name(check),
                        stack.kafka().bootstrapServers(), settings.maxStaleness, check, settings.samplingOneIn,
                        settings.samplingMaxPerSecond, history, timeline, clock);
                instance.start();
                instances.add(instance);
                ReadStatistics statistics = new ReadStatistics(instance.name(), settings.maxStaleness.toNanos());
                readStatistics.add(statistics);
                for (int r = 0; r < settings.readersPerInstance; r++) {
                    Reader reader = new Reader(instance, statistics, history, model, missedIds, db, clock,
                            settings.seed * 1000 + i * 10 + r, settings.readsPerSecondPerReader, settings.hotKeys,
                            settings.maxStaleness.toMillis(), settings.transactionalReadPercent,
                            settings.transactionProtection, offThread);
                    readers.add(reader);
                    threads.add(start(reader, instance.name() + "-reader-" + r));
                }
            }
            long runStart = clock.now();
            long endAt = runStart + settings.duration.toNanos();
            Thread writerThread = start(writer, "writer");
            FaultInjector injector = new FaultInjector(settings.faults, settings.repeatFaults, settings.faultGap,
                    settings.maxStaleness, settings.convergenceTimeout, endAt, db, stack.kafka(), connector,
                    instances, writer, prober, timeline, clock);
            Thread injectorThread = start(injector, "fault-injector");
            Thread plantThread = null;
            if (settings.plantStaleValue) {
                plant = new StaleValuePlant(instances.get(0), readStatistics.get(0), history, writer, offThread, clock,
                        settings.maxStaleness, () -> instances.stream()
                                .mapToLong(instance -> instance.lagSteady().getMaxValue() * 1000).max().orElse(0),
                        runStart + Duration.ofSeconds(3).toNanos());
                plantThread = start(plant, "stale-value-plant");
            }
            LOG.info("Verifying for {} s: {}", settings.duration.toSeconds(), settings);

            // At least the run's duration; a plan of each fault once also until its last fault has converged.
            while ((clock.now() < endAt || (!settings.repeatFaults && injectorThread.isAlive()))
                    && writerThread.isAlive()) {
                long left = endAt - clock.now();
                LockSupport.parkNanos(left > 0 ? Math.min(left, Duration.ofSeconds(1).toNanos())
                        : Duration.ofMillis(200).toNanos());
            }
            injector.stop();
            injectorThread.join();
            if (plantThread != null) {
                // Its verdict may still be on its way: the control reads only once the planted value is older than the
                // bound plus the largest lag measured so far, which a loaded machine stretches to tens of seconds.
                plantThread.join(Duration.ofSeconds(90).toMillis());
                plant.stop();
                plantThread.join();
            }
            writer.stop();
            writerThread.join();
            long lastWrite = clock.now();
            LOG.info("Writes stopped; waiting for convergence");

            long seq = prober.write(settings.convergenceTimeout);
            long converged = prober.awaitConverged(instances, seq, lastWrite, settings.convergenceTimeout);
            String convergenceProblem = converged < 0
                    ? "the instances did not converge within " + settings.convergenceTimeout.toSeconds() + " s after the"
                            + " last write: " + Prober.describe(instances, seq)
                    : null;
            LOG.info("Converged {}", converged < 0 ? "NOT" : RunClock.millis(converged - lastWrite) + " after the last write");
            Duration idle = settings.maxStaleness.multipliedBy(2).plusSeconds(1);
            LOG.info("Watching the clients stay fresh on the idle database for {} s", idle.toSeconds());
            IdleFreshness.Result idleFreshness = IdleFreshness.watch(instances, idle, db);
            LOG.info("Idle: largest watermark age per instance {} ms; {}", idleFreshness.largestWatermarkAgeMillis(),
                    idleFreshness.heartbeatRow());
            readers.forEach(Reader::stop);
            for (Thread thread : threads) {
                thread.join();
            }

            Map<Long, Item> rows;
            try (Connection admin = db.adminConnection(VerifierSchema.DATABASE)) {
                rows = VerifierSchema.all(admin);
            }
            CacheComparison comparison = new CacheComparison(rows);
            CacheComparison.Result firstComparison = comparison.compare(instances);
            CacheComparison.Result finalComparison = firstComparison;
            long comparedAt = clock.now();
            long deadline = comparedAt + settings.mismatchSettleTimeout.toNanos();
            while (!finalComparison.mismatches().isEmpty() && clock.now() < deadline) {
                LockSupport.parkNanos(Duration.ofMillis(500).toNanos());
                finalComparison = comparison.compare(instances);
            }
            List<DeliveryCheck.Result> deliveries = new ArrayList<>();
            for (ClientInstance instance : instances) {
                deliveries.add(DeliveryCheck.check(instance, history, lastWrite, clock));
            }
            Report report = new Report(settings, clock, writer.statistics(), readStatistics, instances,
                    timeline.faults(), converged < 0 ? -1 : converged - lastWrite, convergenceProblem, firstComparison,
                    finalComparison, deliveries, idleFreshness, history.expectedEventCount(), clock.now() - runStart,
                    plant == null ? null : plant.result());
            beforeClose.accept(List.copyOf(instances));
            return report;
        } finally {
            if (plant != null) {
                plant.stop();
            }
            readers.forEach(Reader::stop);
            writer.stop();
            for (ClientInstance instance : instances) {
                instance.close();
            }
            connector.close();
            offThread.close();
        }
    }

    private static Thread start(Runnable runnable, String name) {
        Thread thread = new Thread(runnable, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    static void requireJar(VerifierSettings settings) {
        if (!Files.isRegularFile(settings.connectorJar)) {
            throw new IllegalStateException("connector jar " + settings.connectorJar.toAbsolutePath() + " not found:"
                    + " run ./mvnw -pl consistency-verifier -am install -DskipTests first");
        }
    }
}
