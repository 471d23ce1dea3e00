package dev.cdccache.verifier.fault;

import dev.cdccache.client.staleness.StalenessStatus;
import dev.cdccache.infra.connector.ConnectorProcess;
import dev.cdccache.infra.kafka.KafkaBroker;
import dev.cdccache.infra.mariadb.MariaDbServer;
import dev.cdccache.verifier.RunClock;
import dev.cdccache.verifier.instance.ClientInstance;
import dev.cdccache.verifier.workload.Writer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Injects faults one after another while writes and reads go on, and measures after each how long the
 * clients took to converge: until every instance had applied a write committed after the recovery and could
 * prove (by its watermark) that it had applied every change committed before the recovery.
 */
public final class FaultInjector implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(FaultInjector.class);

    private final List<FaultKind> plan;
    private final boolean repeat;
    private final Duration gap;
    private final Duration maxStaleness;
    private final Duration convergenceTimeout;
    private final long endAt;
    private final MariaDbServer mariaDb;
    private final KafkaBroker kafka;
    private final ConnectorProcess connector;
    private final List<ClientInstance> instances;
    private final Writer writer;
    private final Prober prober;
    private final FaultTimeline timeline;
    private final RunClock clock;
    private volatile boolean running = true;
    private int clientFaults;

    public FaultInjector(List<FaultKind> plan, boolean repeat, Duration gap, Duration maxStaleness,
            Duration convergenceTimeout, long endAt, MariaDbServer mariaDb, KafkaBroker kafka,
            ConnectorProcess connector, List<ClientInstance> instances, Writer writer, Prober prober,
            FaultTimeline timeline, RunClock clock) {
        this.plan = plan;
        this.repeat = repeat;
        this.gap = gap;
        this.maxStaleness = maxStaleness;
        this.convergenceTimeout = convergenceTimeout;
        this.endAt = endAt;
        this.mariaDb = mariaDb;
        this.kafka = kafka;
        this.connector = connector;
        this.instances = instances;
        this.writer = writer;
        this.prober = prober;
        this.timeline = timeline;
        this.clock = clock;
    }

    /** Lets the current fault finish and converge, then {@link #run()} returns. */
    public void stop() {
        running = false;
    }

    @Override
    public void run() {
        int next = 0;
        sleep(gap);
        while (running && !plan.isEmpty() && (repeat || next < plan.size())) {
            // Repeated faults fill the run and stop short of its end, leaving room for the fault itself (a connector
            // restart alone takes several seconds). A plan of each fault once runs to its end however slow the host:
            // the run waits for it (VerificationRun), so a loaded machine cannot drop a planned fault.
            if (repeat && clock.now() > endAt - Duration.ofSeconds(10).toNanos()) {
                break;
            }
            FaultKind kind = plan.get(next % plan.size());
            next++;
            inject(kind);
            sleep(gap);
        }
    }

    private void inject(FaultKind kind) {
        ClientInstance target = kind == FaultKind.CLIENT_RESTART || kind == FaultKind.CLIENT_PAUSE
                ? instances.get(clientFaults++ % instances.size()) : null;
        FaultRecord record = timeline.begin(kind, target == null ? describeTarget(kind) : target.name(), clock.now());
        LOG.info("Fault #{}: {} ({})", record.number(), kind.description(), record.target());
        try {
            switch (kind) {
                case CONNECTOR_KILL -> connectorKill(record);
                case KAFKA_RESTART -> kafkaRestart(record);
                case CLIENT_RESTART -> clientRestart(record, target);
                case CLIENT_PAUSE -> clientPause(record, target);
                case MARIADB_RESTART -> mariaDbRestart(record);
                case CONNECTOR_OUTAGE -> connectorOutage(record);
            }
            record.recovered(clock.now());
            converge(record);
        } catch (RuntimeException e) {
            LOG.error("Fault #{} ({}) failed", record.number(), kind, e);
            record.failed(e.toString());
            record.recovered(clock.now());
            ensureConnectorRuns(record);
            converge(record);
        }
    }

    private static String describeTarget(FaultKind kind) {
        return switch (kind) {
            case CONNECTOR_KILL, CONNECTOR_OUTAGE -> "connector";
            case KAFKA_RESTART -> "kafka";
            case MARIADB_RESTART -> "mariadb";
            default -> "-";
        };
    }

    private void connectorKill(FaultRecord record) {
        long pid = connector.pid();
        connector.kill();
        long killedAt = clock.now();
        record.observe("connector pid " + pid + " killed with SIGKILL");
        // Down for longer than max-staleness: the clients must stop trusting their entries meanwhile.
        watchDistrust(record, instances, killedAt, maxStaleness.plusSeconds(1));
        long restart = clock.now();
        connector.restart();
        record.observe("connector restarted and healthy in " + RunClock.millis(clock.now() - restart));
    }

    private void kafkaRestart(FaultRecord record) {
        kafka.stop();
        record.observe("broker stopped");
        sleep(Duration.ofSeconds(3));
        kafka.start();
        record.observe("broker started again");
        ensureConnectorRuns(record);
    }

    private void mariaDbRestart(FaultRecord record) {
        writer.pause();
        try {
            mariaDb.stop();
            record.observe("MariaDB stopped (writer paused)");
            sleep(Duration.ofSeconds(2));
            mariaDb.start();
            record.observe("MariaDB started again");
        } finally {
            writer.resume();
        }
        ensureConnectorRuns(record);
    }

    private void connectorOutage(FaultRecord record) {
        connector.stop();
        // From the moment the process is gone: a graceful stop may still write a heartbeat while shutting down.
        long stoppedAt = clock.now();
        record.observe("connector stopped gracefully");
        watchDistrust(record, instances, stoppedAt, maxStaleness.multipliedBy(2).plusSeconds(1));
        long restart = clock.now();
        connector.restart();
        record.observe("connector restarted and healthy in " + RunClock.millis(clock.now() - restart));
    }

    private void clientPause(FaultRecord record, ClientInstance target) {
        long heldAt = clock.now();
        target.holdConsumer();
        record.observe("consumer of " + target.name() + " held at its next event");
        try {
            watchDistrust(record, List.of(target), heldAt, maxStaleness.multipliedBy(2));
        } finally {
            target.releaseConsumer();
        }
        record.observe("consumer of " + target.name() + " released");
    }

    private void clientRestart(FaultRecord record, ClientInstance target) {
        // Close only once the instance provably applied everything committed so far, so the delivery check
        // knows which changes this incarnation had to receive.
        long requestedAt = clock.now();
        long seq = prober.write(convergenceTimeout);
        long caughtUp = prober.awaitConverged(List.of(target), seq, requestedAt, convergenceTimeout);
        if (caughtUp < 0) {
            throw new IllegalStateException(target.name() + " did not catch up before its restart: "
                    + Prober.describe(List.of(target), seq));
        }
        target.stop(requestedAt);
        record.observe(target.name() + " closed after catching up in " + RunClock.millis(caughtUp - requestedAt));
        sleep(Duration.ofSeconds(1));
        long start = clock.now();
        target.start();
        record.observe(target.name() + " started again and ready in " + RunClock.millis(clock.now() - start));
    }

    /**
     * Watches the instances for {@code duration} after the failure began and records when each stopped
     * reporting itself fresh. Its watermark cannot pass the start of the failure (for a held consumer: the
     * event it is held at, a few milliseconds later), and the guard compares against the clock on every check,
     * so an instance still claiming freshness 500 ms after max-staleness has no proof for it: recorded as a failure.
     */
    private void watchDistrust(FaultRecord record, List<ClientInstance> watched, long since, Duration duration) {
        long until = since + duration.toNanos();
        long[] distrustAt = new long[watched.size()];
        Arrays.fill(distrustAt, -1);
        while (clock.now() < until) {
            for (int i = 0; i < watched.size(); i++) {
                StalenessStatus status = watched.get(i).status();
                if (distrustAt[i] < 0 && status != null && !status.fresh()) {
                    distrustAt[i] = clock.now();
                }
            }
            LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
        }
        long limit = maxStaleness.toNanos() + Duration.ofMillis(500).toNanos();
        for (int i = 0; i < watched.size(); i++) {
            String name = watched.get(i).name();
            if (distrustAt[i] < 0) {
                record.failed(name + " still reported itself fresh " + RunClock.millis(until - since)
                        + " after the failure began");
                record.observe(name + " never stopped trusting its entries");
            } else {
                long after = distrustAt[i] - since;
                // Within one polling interval of the failure: it did not trust its entries already (e.g. the
                // lag of a bulk write had aged its watermark, or a graceful stop took longer than the bound).
                record.observe(name + (after < Duration.ofMillis(20).toNanos() ? " was already not fresh"
                        : " stopped trusting its entries after " + RunClock.millis(after)));
                if (after > limit) {
                    record.failed(name + " kept claiming freshness for " + RunClock.millis(after)
                            + ", longer than max-staleness + 0.5 s");
                }
            }
        }
    }

    private void ensureConnectorRuns(FaultRecord record) {
        try {
            if (!connector.isAlive()) {
                record.observe("the connector process had exited: " + lastLines());
                connector.restart();
                record.observe("connector restarted");
                return;
            }
            connector.awaitHealthy(Duration.ofSeconds(120));
        } catch (RuntimeException e) {
            record.observe("connector not healthy (" + e.getMessage() + "); restarting it");
            connector.restart();
        }
    }

    private String lastLines() {
        String tail = connector.logTail(5);
        return tail.length() > 600 ? tail.substring(tail.length() - 600) : tail;
    }

    private void converge(FaultRecord record) {
        long seq = prober.write(convergenceTimeout);
        long converged = prober.awaitConverged(instances, seq, record.recoveredAt(), convergenceTimeout);
        if (converged < 0) {
            String state = Prober.describe(instances, seq);
            record.failed("no convergence within " + convergenceTimeout.toSeconds() + " s: " + state);
            LOG.error("Fault #{}: no convergence: {}", record.number(), state);
            record.converged(clock.now());
        } else {
            record.converged(converged);
            LOG.info("Fault #{}: converged {} after recovery", record.number(),
                    RunClock.millis(converged - record.recoveredAt()));
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
