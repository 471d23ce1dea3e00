package dev.cdccache.client.consuming;

import dev.cdccache.client.metrics.ClientMetrics;
import dev.cdccache.client.position.ProvenPositions;
import dev.cdccache.client.staleness.CacheFreshness;
import dev.cdccache.client.staleness.HeartbeatCoverage;
import dev.cdccache.client.staleness.StalenessGuard;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The freshness proof: every {@code position-check-interval} a check notes the time t and the heartbeat coverage
 * of each bound table and topic, brings the assignment up to date and looks up the log end offsets; once the positions
 * reach them, every event produced before t has been applied, so each cache's watermark moves to the least
 * coverage of its sources whose topics were checked (a source is proven as far as every connector feeding its
 * topic) ({@link CacheFreshness}). The first completed check makes the
 * client ready. A watermark that moves again after a gap longer than max-staleness first evicts its cache.
 * Changes when the rules of what a position check proves change. Consumer thread only.
 */
final class PositionProver {

    private static final Logger LOG = LoggerFactory.getLogger(ChangeConsumer.class);
    /** Reason tag of caches evicted because their watermark moved again after a gap longer than max-staleness. */
    static final String FRESHNESS_GAP = ClientMetrics.FRESHNESS_GAP;
    static final long UNKNOWN = Long.MIN_VALUE;

    /**
     * One position check in progress or just completed.
     *
     * @param startedAt the time t the log end offsets were looked up at
     * @param heartbeatAtStart the latest heartbeat applied at t (client-wide)
     * @param coverageAtStart each bound table's coverage at t (lower-case names): whether a heartbeat lists it
     * @param topicCoverageAtStart each bound topic's coverage at t: how far every connector feeding it is proven
     * @param missing subscribed topics that did not exist at t
     * @param checked topics whose log end was looked up (the ones this check can confirm)
     * @param targetEnds the log end offsets the positions must reach
     * @param positionsAtStart per bound topic, the commit positions the check proves applied once complete
     */
    record Check(long startedAt, long heartbeatAtStart, Map<String, Long> coverageAtStart,
            Map<String, Long> topicCoverageAtStart, Set<String> missing,
            Set<String> checked, Map<TopicPartition, Long> targetEnds,
            Map<String, Map<String, Long>> positionsAtStart) {
    }

    private final Consumer<byte[], byte[]> consumer;
    private final TopicAssignment topics;
    private final HeartbeatCoverage coverage;
    private final TopicPolicyCheck policyCheck;
    private final StalenessGuard guard;
    private final List<CacheFreshness> caches;
    private final ProblemReporter problems;
    private final ClientMetrics metrics;
    private final LongSupplier clock;
    private final Runnable onReady;
    private final Duration requestTimeout;
    private final long checkIntervalMillis;
    private final long maxStalenessMillis;
    private final boolean requireTopics;
    private final boolean heartbeatRequired;
    private final ProvenPositions proven;
    /** The topics caches read. */
    private final Set<String> boundTopics;
    /** Per source: the coverage proven at the latest check that confirmed its topic. */
    private final Map<CacheFreshness.Source, Long> provenBySource = new HashMap<>();
    private Check check;
    private long nextCheckAt;
    private boolean ready;
    private long readyAtMillis;

    PositionProver(Consumer<byte[], byte[]> consumer, TopicAssignment topics, HeartbeatCoverage coverage,
            TopicPolicyCheck policyCheck, StalenessGuard guard, List<CacheFreshness> caches, ProblemReporter problems, ClientMetrics metrics,
            LongSupplier clock, Runnable onReady, Duration requestTimeout, Duration checkInterval,
            boolean requireTopics, boolean heartbeatRequired, ProvenPositions proven) {
        this.consumer = consumer;
        this.topics = topics;
        this.coverage = coverage;
        this.policyCheck = policyCheck;
        this.guard = guard;
        this.caches = List.copyOf(caches);
        this.problems = problems;
        this.metrics = metrics;
        this.clock = clock;
        this.onReady = onReady;
        this.requestTimeout = requestTimeout;
        this.checkIntervalMillis = checkInterval.toMillis();
        this.maxStalenessMillis = guard.maxStalenessMillis();
        this.requireTopics = requireTopics;
        this.heartbeatRequired = heartbeatRequired;
        this.proven = proven;
        Set<String> bound = new HashSet<>();
        caches.forEach(cache -> cache.sources().forEach(source -> bound.add(source.topic())));
        this.boundTopics = Set.copyOf(bound);
    }

    /** Whether a check should start now: none in progress and the interval since the previous one has passed. */
    boolean checkDue() {
        return check == null && clock.getAsLong() >= nextCheckAt;
    }

    boolean checkInProgress() {
        return check != null;
    }

    /**
     * Starts a check: lists the topics, assigns new partitions and looks up the log end offsets.
     *
     * @throws OffsetOutOfRangeException for the partitions whose log now ends before the consumer's position
     */
    void startCheck() {
        long startedAt = clock.getAsLong();
        long heartbeat = guard.lastHeartbeat();
        Map<String, Long> coverageAtStart = coverage.coverageOfBoundTables();
        Map<String, Long> topicCoverageAtStart = coverage.coverageOfBoundTopics();
        // Like the coverage: heartbeats applied before the log ends are looked up.
        Map<String, Map<String, Long>> positionsAtStart = proven.checkStarted(boundTopics,
                topic -> coverage.feeders(topic).keySet());
        TopicAssignment.Listing listing = topics.refresh();
        policyCheck.topicsAppeared(listing.discovered().stream().map(TopicPartition::topic).toList());
        policyCheck.poll(startedAt);
        proven.compacted(policyCheck.compacted()); // their own changes prove no read floor either
        Map<TopicPartition, Long> ends = topics.endOffsets(startedAt);
        long lag = 0;
        Map<TopicPartition, Long> beyondTheEnd = new HashMap<>();
        for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
            long position = consumer.position(end.getKey(), requestTimeout);
            if (position > end.getValue()) {
                beyondTheEnd.put(end.getKey(), position);
            }
            lag += Math.max(0, end.getValue() - position);
        }
        if (!beyondTheEnd.isEmpty()) {
            // A position is never past the end of a log it was read from; here the log is shorter than what was
            // read (the topic was deleted and created again, or truncated), so records of it were never read. Kafka
            // reports that only once a fetch from that position is answered, and a check completing before then
            // (position >= end) would prove caches whose changes were skipped: lost events, handled now.
            throw new OffsetOutOfRangeException("log end before the consumer's position (the topic was created again "
                    + "or its log truncated): " + beyondTheEnd, beyondTheEnd);
        }
        metrics.consumerLag(lag);
        check = new Check(startedAt, heartbeat, coverageAtStart, topicCoverageAtStart, listing.missing(), topics.checkableTopics(),
                new HashMap<>(ends), positionsAtStart);
    }

    /** A check could not start (metadata or offsets unavailable): try again after an interval. */
    void checkFailed() {
        check = null;
        nextCheckAt = clock.getAsLong() + checkIntervalMillis;
    }

    /** Drops the check in progress (its positions can no longer be trusted to reach its end offsets). */
    void abandonCheck() {
        check = null;
    }

    /**
     * Completes the check in progress if the positions reached its end offsets: moves the watermarks, makes the
     * client ready on the first one, publishes the problems.
     *
     * @return whether the check completed
     */
    boolean tryCompleteCheck() {
        Check current = check;
        for (Map.Entry<TopicPartition, Long> end : current.targetEnds().entrySet()) {
            if (consumer.position(end.getKey(), requestTimeout) < end.getValue()) {
                return false;
            }
        }
        check = null;
        nextCheckAt = current.startedAt() + checkIntervalMillis;
        guard.positionsChecked(current.startedAt());
        caches.forEach(cache -> cache.guard().positionsChecked(current.startedAt()));
        if (!ready) {
            ready = true;
            readyAtMillis = clock.getAsLong();
            coverage.markReady();
            onReady.run();
            LOG.info("Positioned at the end of {} partitions of {}; caches are now filled on load",
                    topics.assigned().size(), topics.subscribed());
        }
        proveCaches(current);
        return true;
    }

    /**
     * Moves each cache's watermark to what this check proved: for every source whose topic was read up to the
     * end offsets looked up at the check's start, the coverage its table had then (the latest heartbeat of a
     * connector capturing it, applied before the start; without required heartbeats, the start itself). A cache
     * is as fresh as its least proven source. Then publishes the problems that keep caches from being proven.
     */
    private void proveCaches(Check completed) {
        Set<String> confirmed = new HashSet<>(completed.checked());
        if (!requireTopics) {
            confirmed.addAll(completed.missing()); // a topic that does not exist has nothing unread
        }
        // Reading a compacted topic to its end proves nothing: delete events may have been compacted away.
        confirmed.removeAll(policyCheck.compacted());
        proven.compacted(policyCheck.compacted());
        proven.checkCompleted(confirmed, completed.positionsAtStart());
        long now = clock.getAsLong();
        long global = Long.MAX_VALUE;
        Map<String, Long> evictedAfterGap = new TreeMap<>();
        Set<String> freshAgain = new HashSet<>();
        for (CacheFreshness cache : caches) {
            long watermark = Long.MAX_VALUE;
            for (CacheFreshness.Source source : cache.sources()) {
                if (confirmed.contains(source.topic())) {
                    long proof = heartbeatRequired ? proofOf(source, completed) : completed.startedAt();
                    provenBySource.merge(source, proof, Math::max);
                }
                Long provenUpTo = provenBySource.get(source);
                if (provenUpTo == null || provenUpTo == HeartbeatCoverage.UNCOVERED) {
                    watermark = UNKNOWN;
                    break;
                }
                watermark = Math.min(watermark, provenUpTo);
            }
            advance(cache, watermark, now, evictedAfterGap, freshAgain);
            long w = cache.guard().watermark();
            global = w == UNKNOWN || global == UNKNOWN ? UNKNOWN : Math.min(global, w);
        }
        if (caches.isEmpty()) {
            global = heartbeatRequired ? completed.heartbeatAtStart() : completed.startedAt();
        }
        problems.gapEvictions(evictedAfterGap, freshAgain);
        guard.advanceWatermark(global);
        problems.publish(completed, policyCheck.compacted(), now, readyAtMillis);
    }

    /**
     * What a completed check proves of one source: nothing unless a connector's heartbeat lists its table, and
     * then as far as every connector feeding its topic is proven (the least recent of their heartbeats).
     */
    private static long proofOf(CacheFreshness.Source source, Check completed) {
        long listed = completed.coverageAtStart().getOrDefault(source.table().toLowerCase(Locale.ROOT),
                HeartbeatCoverage.UNCOVERED);
        return listed == HeartbeatCoverage.UNCOVERED ? HeartbeatCoverage.UNCOVERED
                : completed.topicCoverageAtStart().getOrDefault(source.topic(), HeartbeatCoverage.UNCOVERED);
    }

    /**
     * Moves one cache's watermark forward. If it had been stuck longer than max-staleness (the cache was not
     * fresh: entries were served only within the bound of their own load), the entries loaded before cannot be
     * proven now either (the connector may have skipped part of the binlog meanwhile), so the cache is evicted
     * BEFORE the new watermark lets them be served again.
     */
    private void advance(CacheFreshness cache, long watermark, long now, Map<String, Long> evictedAfterGap,
            Set<String> freshAgain) {
        long previous = cache.guard().watermark();
        if (watermark == UNKNOWN || (previous != UNKNOWN && watermark <= previous)) {
            return;
        }
        long since = previous != UNKNOWN ? previous : readyAtMillis;
        if (now - since > maxStalenessMillis) {
            cache.evictAll().run();
            metrics.unprovenEvicted(FRESHNESS_GAP, 1);
            evictedAfterGap.put(cache.cache(), now - since);
        }
        cache.guard().advanceWatermark(watermark);
        if (now - watermark <= maxStalenessMillis) {
            freshAgain.add(cache.cache()); // the next gap is a new episode (after this one is logged)
        }
    }
}
