package dev.cdccache.client.consuming;

import dev.cdccache.client.Internal;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.eviction.EvictionRouter;
import dev.cdccache.client.metrics.BadInputLog;
import dev.cdccache.client.metrics.ClientMetrics;
import dev.cdccache.client.position.ProvenPositions;
import dev.cdccache.client.staleness.CacheFreshness;
import dev.cdccache.client.staleness.HeartbeatCoverage;
import dev.cdccache.client.staleness.StalenessGuard;
import dev.cdccache.contract.ConnectorHeader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer loop, run on one dedicated thread: reads every partition of the subscribed topics (assigned,
 * no consumer group: every instance gets every change), applies each event to the caches, and regularly
 * proves how far it has read.
 *
 * <p>Each iteration first recomputes the staleness thresholds hits compare with (beside the client's ticker
 * thread, see {@code StalenessGuard#tick}), then starts a position check when one is due ({@link PositionProver}: the proof of freshness;
 * {@link TopicAssignment}: which partitions are read and where their log ends), polls and applies the records
 * ({@link RecordApplier}), and completes the check once the positions reached its end offsets, which publishes
 * what keeps caches from being proven ({@link ProblemReporter}). Failures go to {@link FailureRecovery}.
 *
 * <p><b>Start.</b> Partitions existing at the first successful metadata lookup are positioned at their end
 * (the caches are empty, the past does not matter). Partitions that appear later (a topic the connector
 * creates on the first change of its table, or added partitions) are read from their beginning, since
 * everything in them was written after this client started.
 *
 * <p><b>Failures.</b> Kafka being unreachable only makes checks fail (the watermarks stop, the guards take
 * over); a check that cannot start never keeps fetched records from being applied, and partitions whose log end
 * cannot be looked up are left out of the checks of the others. A position outside the log (retention or a
 * broker that lost data) means events were lost: the partition is moved to its end and then every cache bound
 * to its topic is evicted. Each record is applied on its own: bad records are counted, logged (rate-limited)
 * with topic/partition/offset and made safe, and the rest of the batch goes on. Anything escaping an iteration
 * makes the loop back off and restart ({@link #run()}); it never ends before {@link #stop()}.
 */
@Internal
public final class ChangeConsumer implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(ChangeConsumer.class);
    /** The Kafka header naming the connector that published a record (docs/contract.md). */
    public static final String CONNECTOR_HEADER = ConnectorHeader.NAME;

    /**
     * What a {@link ChangeConsumer} works with.
     *
     * @param config the client's settings (heartbeat topic, timings, listeners, clock...)
     * @param consumer the Kafka consumer, used by the loop's thread only
     * @param router applies change events to the caches bound to their topics
     * @param guard the client-wide guard (status, and the watermark of values kept outside the caches)
     * @param caches every cache with its own guard and sources
     * @param metrics the client's meters
     * @param topicPolicies looks up the cleanup policy of the change topics (closed when the loop ends)
     * @param onReady run once, on the loop's thread, when the first position check completes
     * @param proven where the positions each cache has proven applied are recorded and published
     */
    public record Setup(InvalidationClientConfig config, Consumer<byte[], byte[]> consumer, EvictionRouter router,
            StalenessGuard guard, List<CacheFreshness> caches, ClientMetrics metrics, TopicPolicies topicPolicies,
            Runnable onReady, ProvenPositions proven) {

        /** A setup whose proven positions nobody reads (tests of the loop alone). */
        public Setup(InvalidationClientConfig config, Consumer<byte[], byte[]> consumer, EvictionRouter router,
                StalenessGuard guard, List<CacheFreshness> caches, ClientMetrics metrics, TopicPolicies topicPolicies,
                Runnable onReady) {
            this(config, consumer, router, guard, caches, metrics, topicPolicies, onReady,
                    new ProvenPositions(Map.of()));
        }

        public Setup {
            Objects.requireNonNull(config, "config");
            Objects.requireNonNull(consumer, "consumer");
            Objects.requireNonNull(router, "router");
            Objects.requireNonNull(guard, "guard");
            caches = List.copyOf(caches);
            Objects.requireNonNull(metrics, "metrics");
            Objects.requireNonNull(topicPolicies, "topicPolicies");
            Objects.requireNonNull(onReady, "onReady");
            Objects.requireNonNull(proven, "proven");
        }
    }

    private final Consumer<byte[], byte[]> consumer;
    private final Duration pollTimeout;
    private final Set<String> subscribed;
    private final TopicAssignment topics;
    private final RecordApplier applier;
    private final PositionProver prover;
    private final FailureRecovery recovery;
    private final TopicPolicyCheck policyCheck;
    /** The client's guard and every cache's: the loop keeps their precomputed thresholds current too. */
    private final List<StalenessGuard> guards;
    private final ProvenPositions proven;
    private volatile boolean running = true;

    public ChangeConsumer(Setup setup) {
        InvalidationClientConfig config = setup.config();
        StalenessGuard guard = setup.guard();
        this.consumer = setup.consumer();
        this.proven = setup.proven();
        this.pollTimeout = config.pollTimeout();
        Set<String> topicNames = new TreeSet<>(setup.router().topics());
        topicNames.add(config.heartbeatTopic());
        this.subscribed = Set.copyOf(topicNames);
        List<StalenessGuard> allGuards = new ArrayList<>();
        allGuards.add(guard);
        setup.caches().forEach(cache -> allGuards.add(cache.guard()));
        this.guards = List.copyOf(allGuards);
        // Bounded by the staleness budget: a lookup must not keep a check from completing within the bound.
        Duration requestTimeout = Duration.ofMillis(Math.max(500, Math.min(5000, guard.maxStalenessMillis() / 2)));
        long checkIntervalMillis = config.positionCheckInterval().toMillis();
        this.topics = new TopicAssignment(consumer, setup.router(), subscribed, requestTimeout,
                Math.max(1_000, 5 * checkIntervalMillis));
        Map<String, Set<String>> tablesByTopic = new HashMap<>();
        setup.caches().forEach(cache -> cache.sources().forEach(source ->
                tablesByTopic.computeIfAbsent(source.topic(), t -> new HashSet<>()).add(source.table())));
        HeartbeatCoverage coverage = new HeartbeatCoverage(tablesByTopic);
        long maxClockSkewMillis = config.maxClockSkew().toMillis();
        this.applier = new RecordApplier(consumer, setup.router(), config.heartbeatTopic(), coverage, guard,
                setup.metrics(), new BadInputLog(config.clock()), config.listeners(), config.clock(),
                config.maxMessageBytes(), config.heartbeatRequired(), maxClockSkewMillis, proven);
        ProblemReporter problems = new ProblemReporter(guard, setup.caches(), topics, coverage, setup.metrics(),
                config.heartbeatTopic(), config.requireTopics(), config.heartbeatRequired(), maxClockSkewMillis,
                setup.router()::missingColumns);
        this.policyCheck = new TopicPolicyCheck(setup.topicPolicies(), setup.router().topics());
        this.prover = new PositionProver(consumer, topics, coverage, policyCheck, guard, setup.caches(), problems,
                setup.metrics(), config.clock(), setup.onReady(), requestTimeout, config.positionCheckInterval(),
                config.requireTopics(), config.heartbeatRequired(), proven);
        this.recovery = new FailureRecovery(consumer, topics, setup.router(), guard, setup.caches(),
                setup.metrics(), config.clock(), pollTimeout, requestTimeout);
    }

    /** The topics read: every bound table's topic and the heartbeat topic. */
    public Set<String> subscribedTopics() {
        return subscribed;
    }

    /**
     * Runs the loop until {@link #stop()}. Nothing ends it otherwise: an exception or {@link Error} that escapes
     * an iteration (a bug, out of memory, a failure while recovering lost events) is counted, makes the client
     * report not fresh, and the loop backs off (doubling from the poll timeout up to
     * {@value FailureRecovery#MAX_RESTART_BACKOFF_MILLIS} ms) and goes on; a completed position check clears it.
     * An interrupt of this thread does not end it either: it is cleared and reported as a failure
     * ({@link FailureRecovery#interrupted}).
     */
    @Override
    public void run() {
        try {
            while (running) {
                try {
                    step();
                } catch (Throwable t) {
                    prover.abandonCheck();
                    recovery.restartAfter(t);
                }
            }
        } finally {
            if (running) {
                // Unreachable unless the thread is being torn down: never look fresh without a consumer.
                recovery.threadEnding();
            }
            Thread.interrupted(); // an interrupt left over would cut the consumer's close short
            try {
                consumer.close(Duration.ofSeconds(2));
            } catch (RuntimeException e) {
                LOG.debug("Closing the Kafka consumer failed", e);
            }
            try {
                policyCheck.close();
            } catch (RuntimeException e) {
                LOG.debug("Closing the topic policy lookups failed", e);
            }
        }
    }

    /** One iteration of the loop; package-visible for tests driving a mock consumer. */
    void step() {
        tickGuards();
        try {
            if (recovery.hasLostEvents()) {
                prover.abandonCheck();
                recovery.completeLostEventRecovery();
            }
            if (prover.checkDue()) {
                try {
                    prover.startCheck();
                } catch (WakeupException | InterruptException | OffsetOutOfRangeException e) {
                    throw e;
                } catch (RuntimeException e) {
                    // A check that cannot start (metadata or offsets unavailable) must not keep the records that
                    // can be fetched from being applied: report it, poll anyway, try again after an interval.
                    prover.checkFailed();
                    recovery.checkFailed(e);
                }
            }
            if (topics.assigned().isEmpty()) {
                Thread.sleep(pollTimeout.toMillis());
            } else {
                applier.applyAll(consumer.poll(pollTimeout));
            }
            if (prover.checkInProgress() && prover.tryCompleteCheck()) {
                recovery.recovered();
            }
            // After the batch and the check: readers waiting for a floor see every eviction done so far.
            proven.publish(partitionsByTopic());
        } catch (OffsetOutOfRangeException e) {
            prover.abandonCheck();
            recovery.recoverLostEvents(e.partitions());
        } catch (WakeupException e) {
            if (running) {
                LOG.debug("Consumer woken up while running", e);
            }
        } catch (InterruptException | InterruptedException e) {
            // Not a stop (stop() wakes the consumer up): cleared and reported, and the loop goes on.
            if (running) {
                prover.abandonCheck();
                recovery.interrupted(e);
            }
        } catch (RuntimeException e) {
            prover.abandonCheck();
            recovery.kafkaFailed(e);
        }
    }

    /**
     * Recomputes the thresholds that hits compare with ({@code staleness-check: scheduled}), as the client's ticker
     * thread does: a second, independent thread doing it means a ticker that died or hangs cannot keep an outdated
     * threshold in place (so entries served past the bound) for longer than one poll timeout.
     */
    private void tickGuards() {
        for (StalenessGuard g : guards) {
            g.tick();
        }
    }

    private Map<String, Set<Integer>> partitionsByTopic() {
        Map<String, Set<Integer>> byTopic = new HashMap<>();
        topics.assigned().forEach(tp -> byTopic.computeIfAbsent(tp.topic(), t -> new HashSet<>()).add(tp.partition()));
        return byTopic;
    }

    /** Stops the loop; the thread running it closes the consumer. */
    public void stop() {
        running = false;
        consumer.wakeup();
    }
}
