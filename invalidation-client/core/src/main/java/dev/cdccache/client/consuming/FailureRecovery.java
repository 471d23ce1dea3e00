package dev.cdccache.client.consuming;

import dev.cdccache.client.eviction.EvictionRouter;
import dev.cdccache.client.metrics.ClientMetrics;
import dev.cdccache.client.metrics.ErrorReason;
import dev.cdccache.client.staleness.CacheFreshness;
import dev.cdccache.client.staleness.StalenessGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthenticationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the loop does when something fails: Kafka failures are counted, make the client and every cache report
 * not fresh at once (until the next completed position check) and are logged once per outage (then its recovery
 * once); lost events (a position outside the log) move the partitions to their end and
 * evict their caches; anything else escaping an iteration makes the loop back off, doubling up to
 * {@value #MAX_RESTART_BACKOFF_MILLIS} ms. Changes when the failure handling changes. Consumer thread only.
 */
final class FailureRecovery {

    private static final Logger LOG = LoggerFactory.getLogger(ChangeConsumer.class);
    static final long MAX_RESTART_BACKOFF_MILLIS = 5_000;
    /** A Kafka failure is logged at most this often while it lasts. */
    private static final long FAILURE_LOG_INTERVAL_MILLIS = 30_000;

    private final Consumer<byte[], byte[]> consumer;
    private final TopicAssignment topics;
    private final EvictionRouter router;
    private final StalenessGuard guard;
    /** The client-wide guard and every cache's: a failing loop makes each of them report not fresh. */
    private final List<StalenessGuard> allGuards;
    private final ClientMetrics metrics;
    private final LongSupplier clock;
    private final Duration pollTimeout;
    private final Duration requestTimeout;
    /** Partitions whose position fell outside the log and whose caches are still to be evicted. */
    private final Set<TopicPartition> lostEvents = new LinkedHashSet<>();
    private long lastFailureLog = Long.MIN_VALUE;
    /** When the current run of consumer failures began, or MIN_VALUE while healthy: the recovery is logged. */
    private long failingSince = Long.MIN_VALUE;
    private long restartBackoffMillis;

    FailureRecovery(Consumer<byte[], byte[]> consumer, TopicAssignment topics, EvictionRouter router,
            StalenessGuard guard, List<CacheFreshness> caches, ClientMetrics metrics, LongSupplier clock,
            Duration pollTimeout, Duration requestTimeout) {
        this.consumer = consumer;
        this.topics = topics;
        this.router = router;
        this.guard = guard;
        List<StalenessGuard> guards = new ArrayList<>();
        guards.add(guard);
        caches.forEach(cache -> guards.add(cache.guard()));
        this.allGuards = List.copyOf(guards);
        this.metrics = metrics;
        this.clock = clock;
        this.pollTimeout = pollTimeout;
        this.requestTimeout = requestTimeout;
    }

    boolean hasLostEvents() {
        return !lostEvents.isEmpty();
    }

    /**
     * Positions outside the log: events were lost. The partitions move to their end, and only once that end
     * position is resolved are the caches of their topics evicted; evicting first would let a load that reads
     * the database between the eviction and the position lookup cache a value whose change is then skipped.
     * The eviction is also done at once (the safe side if resolving the position keeps failing); resolving
     * (e.g. a timeout in {@code position()}) is retried on the next iterations until it succeeds.
     */
    void recoverLostEvents(Set<TopicPartition> partitions) {
        metrics.error(ErrorReason.OFFSET_OUT_OF_RANGE);
        LOG.warn("Positions outside the log for {} (events were lost): moving to the end and evicting every cache "
                + "bound to these topics", partitions);
        guard.positionUnconfirmed("events lost on " + partitions + "; repositioning");
        lostEvents.addAll(partitions);
        partitions.stream().map(TopicPartition::topic).distinct().forEach(router::evictAllOf);
        consumer.seekToEnd(partitions);
        try {
            completeLostEventRecovery();
        } catch (RuntimeException e) {
            kafkaFailed(e); // retried at the start of the next iteration
        }
    }

    /** Resolves the new positions of the partitions whose events were lost, then evicts their caches again. */
    void completeLostEventRecovery() {
        Set<String> lostTopics = new HashSet<>();
        for (TopicPartition tp : lostEvents) {
            if (topics.assigned().contains(tp)) {
                consumer.position(tp, requestTimeout); // fix the new position before evicting (see above)
                lostTopics.add(tp.topic());
            }
        }
        lostTopics.forEach(router::evictAllOf);
        lostEvents.clear();
    }

    /** A position check could not start: counted and reported; fetched records are still applied. */
    void checkFailed(RuntimeException e) {
        metrics.error(ErrorReason.CONSUMER_FAILURE);
        failing(e.getClass().getSimpleName() + ": " + e.getMessage());
        logFailure(e);
    }

    /**
     * Kafka failed during an iteration: counted, reported, logged once per outage, then a pause of one poll
     * timeout before the next iteration.
     */
    void kafkaFailed(RuntimeException e) {
        metrics.error(ErrorReason.CONSUMER_FAILURE);
        failing(e.getClass().getSimpleName() + ": " + e.getMessage());
        logFailure(e);
        pause(pollTimeout.toMillis());
    }

    /**
     * The consumer thread was interrupted. The client never interrupts it (it stops the loop by waking the consumer
     * up), so this is not a stop: something else did it (an executor or a framework interrupting threads it does not
     * own, code run on the thread). Ending the loop would leave the caches unproven with no failure reported, and
     * keeping the interrupt would make every later Kafka call throw at once; so the interrupt is cleared, counted
     * and reported like a Kafka failure (not fresh until a position check completes: the interrupt may have cut a
     * check short), and the loop goes on.
     */
    void interrupted(Exception e) {
        Thread.interrupted();
        metrics.error(ErrorReason.CONSUMER_FAILURE);
        failing("the consumer thread was interrupted");
        if (failureLogDue()) {
            LOG.warn("The invalidation consumer's thread was interrupted ({}), not by the client: it stops the consumer"
                    + " by waking it up. The interrupt was cleared and the consumer goes on; caches are not fresh until"
                    + " positions are confirmed again", e.toString(), e);
        }
    }

    /**
     * Something unexpected escaped an iteration (a bug, an {@link Error}): counted, the client reports not fresh,
     * and the loop backs off before it goes on.
     */
    void restartAfter(Throwable t) {
        if (Thread.currentThread().isInterrupted()) {
            interrupted(new InterruptedException("interrupted as " + t + " escaped an iteration"));
        }
        metrics.error(ErrorReason.CONSUMER_RESTART);
        markFailing();
        failing("consumer loop failed (" + t + "); restarting");
        restartBackoffMillis = restartBackoffMillis == 0 ? Math.max(1, pollTimeout.toMillis())
                : Math.min(MAX_RESTART_BACKOFF_MILLIS, restartBackoffMillis * 2);
        LOG.error("Consumer loop failed; restarting in {} ms. Caches are not fresh until its positions are "
                + "confirmed again", restartBackoffMillis, t);
        pause(restartBackoffMillis);
    }

    /** The thread running the loop is ending while it should run: never look fresh without a consumer. */
    void threadEnding() {
        failing("the consumer thread ended");
    }

    /**
     * Every guard reports not fresh at once, whatever its watermark, until a position check completes again:
     * a cache whose watermark is still within the bound must not look fresh on a consumer that is not reading.
     * (Serving is unchanged: entries stay within the bound of the watermark, which no longer moves.)
     */
    private void failing(String reason) {
        guard.positionUnconfirmed(reason);
        allGuards.forEach(g -> g.consumerFailing(reason));
    }

    /** A position check completed: the failures are over; the recovery is logged once. */
    void recovered() {
        restartBackoffMillis = 0;
        if (failingSince != Long.MIN_VALUE) {
            // Say so once: operators who saw the failure WARN/ERROR must not have to infer the recovery.
            LOG.info("Kafka consumer recovered after {} ms of failures; positions confirmed again",
                    clock.getAsLong() - failingSince);
            failingSince = Long.MIN_VALUE;
            lastFailureLog = Long.MIN_VALUE;
        }
    }

    private void markFailing() {
        if (failingSince == Long.MIN_VALUE) {
            failingSince = clock.getAsLong();
        }
    }

    /** Marks the failing run and says whether a failure may be logged now (at most once an interval). */
    private boolean failureLogDue() {
        markFailing();
        long now = clock.getAsLong();
        if (lastFailureLog == Long.MIN_VALUE || now - lastFailureLog > FAILURE_LOG_INTERVAL_MILLIS) {
            lastFailureLog = now;
            return true;
        }
        return false;
    }

    private void logFailure(RuntimeException e) {
        if (failureLogDue()) {
            if (e instanceof AuthenticationException) {
                // Retrying will not help until the settings or the cluster's users change: say what to check.
                LOG.error("Kafka refused the invalidation client's connection ({}); check kafka.security (protocol,"
                        + " sasl username/password/mechanism, ssl trust store). Retrying; caches are not trusted"
                        + " beyond max-staleness meanwhile", e.toString());
            } else {
                LOG.warn("Kafka consumer failed ({}); retrying. Caches fall back to max-staleness meanwhile",
                        e.toString());
            }
        } else {
            LOG.debug("Kafka consumer failed again", e);
        }
    }

    /** A back-off; an interrupt cuts it short and is handled like any other (see {@link #interrupted}). */
    private void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            interrupted(e);
        }
    }
}
