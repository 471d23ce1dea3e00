package dev.cdccache.client.consuming;

import dev.cdccache.client.InvalidationListener;
import dev.cdccache.client.eviction.EvictionRouter;
import dev.cdccache.client.metrics.BadInputLog;
import dev.cdccache.client.metrics.ClientMetrics;
import dev.cdccache.client.metrics.ErrorReason;
import dev.cdccache.client.metrics.LogThrottle;
import dev.cdccache.client.parsing.ChangeEvent;
import dev.cdccache.client.parsing.EnvelopeParser;
import dev.cdccache.client.parsing.MalformedEventException;
import dev.cdccache.client.staleness.CacheFreshness;
import dev.cdccache.client.staleness.FreshnessProblem;
import dev.cdccache.client.staleness.HeartbeatCoverage;
import dev.cdccache.client.staleness.StalenessGuard;
import dev.cdccache.contract.ConnectorHeader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer loop, run on one dedicated thread: reads every partition of the subscribed topics (assigned,
 * no consumer group: every instance gets every change), applies each event to the caches, and regularly
 * proves how far it has read.
 *
 * <p><b>Start.</b> Partitions existing at the first successful metadata lookup are positioned at their end
 * (the caches are empty, the past does not matter). Partitions that appear later (a topic the connector
 * creates on the first change of its table, or added partitions) are read from their beginning, since
 * everything in them was written after this client started.
 *
 * <p><b>Position checks</b> (every {@code position-check-interval}): note the time t and each bound table's
 * heartbeat coverage ({@link HeartbeatCoverage}), look for new, deleted and missing topics, fetch the end
 * offsets; once the positions reach those offsets, every event produced before t has been applied, so each
 * cache's watermark moves to the least coverage of its tables whose topics were checked ({@link CacheFreshness}).
 * The first completed check makes the client ready. What keeps caches from being proven (missing or deleted
 * topics, uncovered tables, unavailable partitions) is published as {@code FreshnessProblem}s.
 *
 * <p><b>Failures.</b> Kafka being unreachable only makes checks fail (the watermarks stop, the guards take
 * over); a check that cannot start never keeps fetched records from being applied, and partitions whose log end
 * cannot be looked up are left out of the checks of the others. A position outside the log (retention or a
 * broker that lost data) means events were lost: the partition is moved to its end and then every cache bound
 * to its topic is evicted. Each record is applied on its own: bad records are counted, logged (rate-limited)
 * with topic/partition/offset and made safe, and the rest of the batch goes on. Anything escaping an iteration
 * makes the loop back off and restart ({@link #run()}); it never ends before {@link #stop()}.
 */
public final class ChangeConsumer implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(ChangeConsumer.class);
    /** The Kafka header naming the connector that published a record (CONTRACT.md). */
    public static final String CONNECTOR_HEADER = ConnectorHeader.NAME;
    /** Reason tag of caches evicted because their watermark moved again after a gap longer than max-staleness. */
    static final String FRESHNESS_GAP = "freshness_gap";
    /** A heartbeat may be dated this far ahead of this host's clock before it is clamped (clock jitter). */
    static final long FUTURE_HEARTBEAT_TOLERANCE_MILLIS = 1_000;
    private static final long UNKNOWN = Long.MIN_VALUE;

    private final Consumer<byte[], byte[]> consumer;
    private final EvictionRouter router;
    private final String heartbeatTopic;
    private final Set<String> subscribed;
    private final StalenessGuard guard;
    private final ClientMetrics metrics;
    private final BadInputLog badInput;
    private final EnvelopeParser parser = new EnvelopeParser();
    private final List<InvalidationListener> listeners;
    private final Runnable onReady;
    private final LongSupplier clock;
    private final Duration pollTimeout;
    private final long checkIntervalMillis;
    private final Duration requestTimeout;
    private final int maxMessageBytes;
    private final boolean requireTopics;
    private final boolean heartbeatRequired;
    private final long maxStalenessMillis;
    private final long unavailableRetryMillis;
    private final List<CacheFreshness> caches;
    private final HeartbeatCoverage coverage;
    /** Per source: the coverage proven at the latest check that confirmed its topic. */
    private final Map<CacheFreshness.Source, Long> provenBySource = new HashMap<>();
    /** Topics deleted while assigned (until they exist again). */
    private final Set<String> deletedTopics = new TreeSet<>();
    /** Topics whose log end could not be looked up, with when to try again. */
    private final Map<String, Long> unavailableRetryAt = new TreeMap<>();
    private Map<String, Long> coverageAtCheckStart = Map.of();
    private Set<String> topicsAtCheck = Set.of();
    private Set<String> warnedMissing = Set.of();
    private Set<String> warnedUncovered = Set.of();
    private long readyAtMillis;

    private final Set<TopicPartition> assigned = new LinkedHashSet<>();
    private boolean initialListingDone;
    private boolean ready;
    private Map<TopicPartition, Long> targetEnds;
    private long checkStartedAt;
    private long heartbeatAtCheckStart;
    private Set<String> missingAtCheck = Set.of();
    private long nextCheckAt;
    private long lastFailureLog = Long.MIN_VALUE;
    /** When the current run of consumer failures began, or MIN_VALUE while healthy: the recovery is logged. */
    private long failingSince = Long.MIN_VALUE;
    /** Caches whose current freshness gap was logged; consumer thread only. */
    private final Set<String> gapReported = new HashSet<>();
    /** One report a minute per listener class. */
    private final LogThrottle listenerFailureLog;
    private volatile boolean running = true;
    /** Partitions whose position fell outside the log and whose caches are still to be evicted. */
    private final Set<TopicPartition> lostEvents = new LinkedHashSet<>();
    private long restartBackoffMillis;
    static final long MAX_RESTART_BACKOFF_MILLIS = 5_000;

    /**
     * @param guard the client-wide guard (status, and the watermark of values kept outside the caches)
     * @param caches every cache with its own guard and sources
     * @param requireTopics whether a bound topic that does not exist keeps its caches from being proven fresh
     * @param heartbeatRequired whether freshness is proven by connector heartbeats (else by positions alone)
     */
    public ChangeConsumer(Consumer<byte[], byte[]> consumer, EvictionRouter router, String heartbeatTopic,
            StalenessGuard guard, List<CacheFreshness> caches, ClientMetrics metrics, BadInputLog badInput,
            List<InvalidationListener> listeners, Runnable onReady, LongSupplier clock, Duration pollTimeout,
            Duration checkInterval, int maxMessageBytes, boolean requireTopics, boolean heartbeatRequired) {
        this.consumer = consumer;
        this.router = router;
        this.heartbeatTopic = heartbeatTopic;
        Set<String> topics = new TreeSet<>(router.topics());
        topics.add(heartbeatTopic);
        this.subscribed = Set.copyOf(topics);
        this.guard = guard;
        this.metrics = metrics;
        this.badInput = badInput;
        this.listenerFailureLog = new LogThrottle(clock, 60_000);
        this.listeners = List.copyOf(listeners);
        this.onReady = onReady;
        this.clock = clock;
        this.pollTimeout = pollTimeout;
        this.checkIntervalMillis = checkInterval.toMillis();
        this.requestTimeout = Duration.ofMillis(Math.max(500, Math.min(5000, guard.maxStalenessMillis() / 2)));
        this.maxMessageBytes = maxMessageBytes;
        this.requireTopics = requireTopics;
        this.heartbeatRequired = heartbeatRequired;
        this.maxStalenessMillis = guard.maxStalenessMillis();
        this.unavailableRetryMillis = Math.max(1_000, 5 * checkIntervalMillis);
        this.caches = List.copyOf(caches);
        Set<String> tables = new HashSet<>();
        for (CacheFreshness cache : caches) {
            cache.sources().forEach(source -> tables.add(source.table()));
        }
        this.coverage = new HeartbeatCoverage(tables, FUTURE_HEARTBEAT_TOLERANCE_MILLIS);
    }

    /** The topics read: every bound table's topic and the heartbeat topic. */
    public Set<String> subscribedTopics() {
        return subscribed;
    }

    /**
     * Runs the loop until {@link #stop()}. Nothing ends it otherwise: an exception or {@link Error} that escapes
     * an iteration (a bug, out of memory, a failure while recovering lost events) is counted, makes the client
     * report not fresh, and the loop backs off (doubling from the poll timeout up to
     * {@value #MAX_RESTART_BACKOFF_MILLIS} ms) and goes on; a completed position check clears it.
     */
    @Override
    public void run() {
        try {
            while (running) {
                try {
                    step();
                } catch (Throwable t) {
                    restartAfter(t);
                }
            }
        } finally {
            if (running) {
                // Unreachable unless the thread is being torn down: never look fresh without a consumer.
                guard.consumerFailing("the consumer thread ended");
            }
            try {
                consumer.close(Duration.ofSeconds(2));
            } catch (RuntimeException e) {
                LOG.debug("Closing the Kafka consumer failed", e);
            }
        }
    }

    /** One iteration of the loop; package-visible for tests driving a mock consumer. */
    void step() {
        try {
            if (!lostEvents.isEmpty()) {
                completeLostEventRecovery();
            }
            if (targetEnds == null && clock.getAsLong() >= nextCheckAt) {
                try {
                    startCheck();
                } catch (WakeupException | InterruptException e) {
                    throw e;
                } catch (RuntimeException e) {
                    // A check that cannot start (metadata or offsets unavailable) must not keep the records that
                    // can be fetched from being applied: report it, poll anyway, try again after an interval.
                    checkFailed(e);
                }
            }
            if (assigned.isEmpty()) {
                Thread.sleep(pollTimeout.toMillis());
            } else {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(pollTimeout);
                handleAll(records);
            }
            if (targetEnds != null) {
                tryCompleteCheck();
            }
        } catch (OffsetOutOfRangeException e) {
            recoverLostEvents(e.partitions());
        } catch (WakeupException | InterruptException e) {
            if (running) {
                LOG.debug("Consumer woken up while running", e);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        } catch (RuntimeException e) {
            failed(e);
        }
    }

    private void restartAfter(Throwable t) {
        if (t instanceof InterruptedException || Thread.currentThread().isInterrupted()) {
            running = false;
            return;
        }
        metrics.error(ErrorReason.CONSUMER_RESTART);
        markFailing();
        guard.consumerFailing("consumer loop failed (" + t + "); restarting");
        targetEnds = null;
        restartBackoffMillis = restartBackoffMillis == 0 ? Math.max(1, pollTimeout.toMillis())
                : Math.min(MAX_RESTART_BACKOFF_MILLIS, restartBackoffMillis * 2);
        LOG.error("Consumer loop failed; restarting in {} ms. Caches are not fresh until its positions are "
                + "confirmed again", restartBackoffMillis, t);
        try {
            Thread.sleep(restartBackoffMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    /** Stops the loop; the thread running it closes the consumer. */
    public void stop() {
        running = false;
        consumer.wakeup();
    }

    private void startCheck() {
        long startedAt = clock.getAsLong();
        long heartbeat = guard.lastHeartbeat();
        Map<String, Long> coverageAtStart = coverage.coverageOfBoundTables();
        Map<String, List<PartitionInfo>> topics = consumer.listTopics(requestTimeout);
        Set<String> missing = new TreeSet<>();
        List<TopicPartition> discovered = new ArrayList<>();
        for (String topic : subscribed) {
            List<PartitionInfo> partitions = topics.get(topic);
            if (partitions == null || partitions.isEmpty()) {
                missing.add(topic);
                continue;
            }
            for (PartitionInfo info : partitions) {
                TopicPartition tp = new TopicPartition(info.topic(), info.partition());
                if (!assigned.contains(tp)) {
                    discovered.add(tp);
                }
            }
        }
        Set<String> deleted = new TreeSet<>();
        for (TopicPartition tp : assigned) {
            if (missing.contains(tp.topic())) {
                deleted.add(tp.topic());
            }
        }
        if (!deleted.isEmpty()) {
            // Its events may be gone with it: evict what it fed, and read it from its beginning if it comes back.
            assigned.removeIf(tp -> deleted.contains(tp.topic()));
            consumer.assign(assigned);
            deletedTopics.addAll(deleted);
            unavailableRetryAt.keySet().removeAll(deleted);
            deleted.forEach(router::evictAllOf);
            LOG.warn("Topics deleted while being read: {}. Their caches were evicted and are not fresh until the "
                    + "topics exist again; other tables are unaffected", deleted);
        }
        if (!discovered.isEmpty()) {
            assigned.addAll(discovered);
            consumer.assign(assigned);
            if (initialListingDone) {
                consumer.seekToBeginning(discovered);
                LOG.info("Reading new partitions from their beginning: {}", discovered);
            } else {
                consumer.seekToEnd(discovered);
            }
            discovered.forEach(tp -> deletedTopics.remove(tp.topic()));
            // Resolve the positions now: what was produced before this point is not needed (see class comment).
            for (TopicPartition tp : discovered) {
                consumer.position(tp, requestTimeout);
            }
        }
        if (!initialListingDone) {
            initialListingDone = true;
        }
        Map<TopicPartition, Long> ends = endOffsets(startedAt);
        long lag = 0;
        for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
            lag += Math.max(0, end.getValue() - consumer.position(end.getKey(), requestTimeout));
        }
        metrics.consumerLag(lag);
        Set<String> checked = new HashSet<>();
        for (TopicPartition tp : assigned) {
            checked.add(tp.topic());
        }
        checked.removeAll(unavailableRetryAt.keySet());
        targetEnds = new HashMap<>(ends);
        checkStartedAt = startedAt;
        heartbeatAtCheckStart = heartbeat;
        coverageAtCheckStart = coverageAtStart;
        missingAtCheck = missing;
        topicsAtCheck = checked;
    }

    /**
     * The log end offsets of the assigned partitions. One lookup for all topics; if it fails while some topics
     * answer on their own, the others are marked unavailable (their caches stop being proven, the rest go on) and
     * asked again on their own, with a shorter timeout, every {@code unavailableRetryMillis} — so one partition
     * without a leader neither stops nor slows down the checks of every other table. If no topic answers, Kafka
     * itself is the problem and the failure is rethrown.
     */
    private Map<TopicPartition, Long> endOffsets(long now) {
        Map<String, List<TopicPartition>> byTopic = new TreeMap<>();
        for (TopicPartition tp : assigned) {
            byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp);
        }
        Map<TopicPartition, Long> ends = new HashMap<>();
        List<TopicPartition> healthy = new ArrayList<>();
        List<String> retry = new ArrayList<>();
        byTopic.forEach((topic, partitions) -> {
            Long retryAt = unavailableRetryAt.get(topic);
            if (retryAt == null) {
                healthy.addAll(partitions);
            } else if (now >= retryAt) {
                retry.add(topic);
            }
        });
        if (!healthy.isEmpty()) {
            try {
                ends.putAll(consumer.endOffsets(healthy, requestTimeout));
            } catch (WakeupException | InterruptException e) {
                throw e;
            } catch (RuntimeException e) {
                Set<String> healthyTopics = new TreeSet<>();
                healthy.forEach(tp -> healthyTopics.add(tp.topic()));
                if (healthyTopics.size() == 1 && unavailableRetryAt.isEmpty()) {
                    throw e; // nothing to tell a partition problem from a Kafka problem by
                }
                int answered = 0;
                for (String topic : healthyTopics) {
                    if (lookUpOnItsOwn(topic, byTopic.get(topic), now, ends)) {
                        answered++;
                    }
                }
                if (answered == 0) {
                    healthyTopics.forEach(unavailableRetryAt::remove);
                    throw e;
                }
            }
        }
        for (String topic : retry) {
            lookUpOnItsOwn(topic, byTopic.get(topic), now, ends);
        }
        return ends;
    }

    private boolean lookUpOnItsOwn(String topic, List<TopicPartition> partitions, long now,
            Map<TopicPartition, Long> ends) {
        try {
            ends.putAll(consumer.endOffsets(partitions, requestTimeout.dividedBy(2)));
            if (unavailableRetryAt.remove(topic) != null) {
                LOG.info("The log end of {} can be looked up again", topic);
            }
            return true;
        } catch (WakeupException | InterruptException e) {
            throw e;
        } catch (RuntimeException e) {
            if (unavailableRetryAt.put(topic, now + unavailableRetryMillis) == null) {
                // INFO: with Kafka down every topic says this at once; health and cdc.client.problems carry the state
                LOG.info("Partitions of {} are unavailable ({}); its caches are not fresh until they are back, "
                        + "other tables are unaffected", topic, e.toString());
            }
            return false;
        }
    }

    private void tryCompleteCheck() {
        for (Map.Entry<TopicPartition, Long> end : targetEnds.entrySet()) {
            if (consumer.position(end.getKey(), requestTimeout) < end.getValue()) {
                return;
            }
        }
        targetEnds = null;
        restartBackoffMillis = 0;
        nextCheckAt = checkStartedAt + checkIntervalMillis;
        guard.positionsChecked(checkStartedAt);
        if (failingSince != Long.MIN_VALUE) {
            // Say so once: operators who saw the failure WARN/ERROR must not have to infer the recovery.
            LOG.info("Kafka consumer recovered after {} ms of failures; positions confirmed again",
                    clock.getAsLong() - failingSince);
            failingSince = Long.MIN_VALUE;
            lastFailureLog = Long.MIN_VALUE;
        }
        if (!ready) {
            ready = true;
            readyAtMillis = clock.getAsLong();
            coverage.markReady();
            onReady.run();
            LOG.info("Positioned at the end of {} partitions of {}; caches are now filled on load", assigned.size(),
                    subscribed);
        }
        proveCaches();
    }

    /**
     * Moves each cache's watermark to what this check proved: for every source whose topic was read up to the
     * end offsets looked up at the check's start, the coverage its table had then (the latest heartbeat of a
     * connector capturing it, applied before the start; without required heartbeats, the start itself). A cache
     * is as fresh as its least proven source. Then publishes the problems that keep caches from being proven.
     */
    private void proveCaches() {
        Set<String> confirmed = new HashSet<>(topicsAtCheck);
        if (!requireTopics) {
            confirmed.addAll(missingAtCheck); // the old behaviour: a topic that does not exist has nothing unread
        }
        long now = clock.getAsLong();
        long global = Long.MAX_VALUE;
        Map<String, Long> evictedAfterGap = new TreeMap<>();
        Set<String> freshAgain = new HashSet<>();
        for (CacheFreshness cache : caches) {
            long watermark = Long.MAX_VALUE;
            for (CacheFreshness.Source source : cache.sources()) {
                if (confirmed.contains(source.topic())) {
                    long proof = heartbeatRequired
                            ? coverageAtCheckStart.getOrDefault(source.table().toLowerCase(Locale.ROOT),
                                    HeartbeatCoverage.UNCOVERED)
                            : checkStartedAt;
                    provenBySource.merge(source, proof, Math::max);
                }
                Long proven = provenBySource.get(source);
                if (proven == null || proven == HeartbeatCoverage.UNCOVERED) {
                    watermark = UNKNOWN;
                    break;
                }
                watermark = Math.min(watermark, proven);
            }
            advance(cache, watermark, now, evictedAfterGap, freshAgain);
            long w = cache.guard().watermark();
            global = w == UNKNOWN || global == UNKNOWN ? UNKNOWN : Math.min(global, w);
        }
        if (caches.isEmpty()) {
            global = heartbeatRequired ? heartbeatAtCheckStart : checkStartedAt;
        }
        logGapEvictions(evictedAfterGap);
        gapReported.removeAll(freshAgain);
        guard.advanceWatermark(global);
        publishProblems(now);
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

    /**
     * One WARN per gap episode naming every cache it evicted. While a consumer catches up on a backlog each
     * heartbeat still older than max-staleness evicts again (nothing loaded meanwhile is proven either): those
     * evictions are counted ({@code cdc.client.unproven.evictions}) and logged at DEBUG, not once per heartbeat.
     */
    private void logGapEvictions(Map<String, Long> evictedAfterGap) {
        if (evictedAfterGap.isEmpty()) {
            return;
        }
        Map<String, Long> first = new TreeMap<>(evictedAfterGap);
        first.keySet().removeAll(gapReported);
        gapReported.addAll(evictedAfterGap.keySet());
        if (!first.isEmpty()) {
            LOG.warn("Caches {} are proven again after {} ms without proof (more than max-staleness): evicted their "
                    + "entries, which could not be proven during the gap; they are fresh once the consumer has caught "
                    + "up", first.keySet(), Collections.max(first.values()));
        } else {
            LOG.debug("Caches {} evicted again while catching up after a gap", evictedAfterGap.keySet());
        }
    }

    private void publishProblems(long now) {
        List<FreshnessProblem> problems = new ArrayList<>();
        Set<String> missingTopics = new TreeSet<>();
        if (requireTopics) {
            for (String topic : missingAtCheck) {
                if (topic.equals(heartbeatTopic)) {
                    if (heartbeatRequired) {
                        missingTopics.add(topic);
                        problems.add(new FreshnessProblem(FreshnessProblem.Kind.MISSING_TOPIC, topic, Set.of(),
                                "the heartbeat topic " + topic + " does not exist: no connector can prove any cache "
                                        + "fresh (check topic-prefix / heartbeat.topic against the connector)"));
                    }
                } else if (!deletedTopics.contains(topic)) {
                    missingTopics.add(topic);
                    problems.add(new FreshnessProblem(FreshnessProblem.Kind.MISSING_TOPIC, topic, cachesOf(topic),
                            "topic " + topic + " does not exist: check topic-prefix and the table name, and that the "
                                    + "connector captures the table"));
                }
            }
        }
        if (!missingTopics.isEmpty() && !missingTopics.equals(warnedMissing)) {
            LOG.warn("Caches are bound to topics that do not exist: {}. They are not fresh (entries served at most "
                    + "max-staleness after their load) until the topics exist: check topic-prefix, the table names "
                    + "and that the connector captures those tables", missingTopics);
        }
        warnedMissing = missingTopics;
        for (String topic : deletedTopics) {
            problems.add(new FreshnessProblem(FreshnessProblem.Kind.TOPIC_DELETED, topic, cachesOf(topic),
                    "topic " + topic + " was deleted while being read; its caches were evicted"));
        }
        for (String topic : unavailableRetryAt.keySet()) {
            problems.add(new FreshnessProblem(FreshnessProblem.Kind.PARTITIONS_UNAVAILABLE, topic, cachesOf(topic),
                    "the log end of partitions of " + topic + " cannot be looked up (no leader or broker down)"));
        }
        if (heartbeatRequired) {
            Set<String> uncovered = new TreeSet<>();
            for (CacheFreshness cache : caches) {
                for (CacheFreshness.Source source : cache.sources()) {
                    String table = source.table().toLowerCase(Locale.ROOT);
                    if (!missingAtCheck.contains(source.topic()) && coverageAtCheckStart
                            .getOrDefault(table, HeartbeatCoverage.UNCOVERED) == HeartbeatCoverage.UNCOVERED) {
                        uncovered.add(source.table());
                    }
                }
            }
            // The first heartbeat comes about one interval after start: report (and warn about) only what outlasts
            // max-staleness after ready. Until then those caches are not fresh anyway, having no watermark; the
            // grace keeps health from reporting a configuration problem for every instance that is just starting.
            boolean outlasted = now - readyAtMillis > maxStalenessMillis;
            for (String table : outlasted ? uncovered : Set.<String>of()) {
                problems.add(new FreshnessProblem(FreshnessProblem.Kind.UNCOVERED_TABLE, table, cachesOfTable(table),
                        "no connector heartbeat covers " + table + " (is the connector that captures it running, and"
                                + " does it list it in its heartbeat row?)"));
            }
            if (!uncovered.isEmpty() && !uncovered.equals(warnedUncovered) && outlasted) {
                warnedUncovered = uncovered;
                LOG.warn("No connector heartbeat covers {}: their caches are not fresh. Is the connector that captures "
                        + "them running, and does it list them in its heartbeat?", uncovered);
            }
        }
        guard.problems(problems);
        for (CacheFreshness cache : caches) {
            List<FreshnessProblem> own = new ArrayList<>();
            for (FreshnessProblem problem : problems) {
                if (problem.caches().isEmpty() || problem.caches().contains(cache.cache())) {
                    own.add(problem);
                }
            }
            cache.guard().problems(own);
        }
    }

    private Set<String> cachesOf(String topic) {
        Set<String> names = new TreeSet<>();
        for (CacheFreshness cache : caches) {
            for (CacheFreshness.Source source : cache.sources()) {
                if (source.topic().equals(topic)) {
                    names.add(cache.cache());
                }
            }
        }
        return names;
    }

    private Set<String> cachesOfTable(String table) {
        Set<String> names = new TreeSet<>();
        for (CacheFreshness cache : caches) {
            for (CacheFreshness.Source source : cache.sources()) {
                if (source.table().equalsIgnoreCase(table)) {
                    names.add(cache.cache());
                }
            }
        }
        return names;
    }

    /**
     * Applies a poll batch record by record. {@code poll} has already moved the positions past the whole batch,
     * so a record that throws must not take the records after it along: each failure is caught, counted, logged
     * and made safe on its own. An {@link Error} other than a stack overflow (out of memory...) is not something
     * to continue through: the positions are moved back to the first record not handled, and it is rethrown for
     * the loop to back off and restart (see {@link #run()}).
     */
    private void handleAll(ConsumerRecords<byte[], byte[]> records) {
        List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>(records.count());
        records.forEach(batch::add);
        for (int i = 0; i < batch.size(); i++) {
            ConsumerRecord<byte[], byte[]> record = batch.get(i);
            try {
                handle(record);
            } catch (RuntimeException | StackOverflowError e) {
                recordFailed(record, e);
            } catch (Error e) {
                recordFailed(record, e);
                rewindTo(batch, i + 1);
                throw e;
            }
        }
    }

    private void recordFailed(ConsumerRecord<byte[], byte[]> record, Throwable failure) {
        String topic = record.topic();
        metrics.error(ErrorReason.RECORD_FAILURE);
        boolean data = !topic.equals(heartbeatTopic);
        badInput.log(ErrorReason.RECORD_FAILURE, topic, record.partition(), record.offset(), failure.toString()
                + (data ? "; evicted the caches of this table" : "; heartbeat ignored"));
        if (data) {
            router.evictAllOf(topic);
        }
    }

    /** Positions every partition of the batch at its first record from {@code from} on, so none is skipped. */
    private void rewindTo(List<ConsumerRecord<byte[], byte[]>> batch, int from) {
        Map<TopicPartition, Long> firstUnhandled = new HashMap<>();
        for (int i = from; i < batch.size(); i++) {
            ConsumerRecord<byte[], byte[]> r = batch.get(i);
            firstUnhandled.putIfAbsent(new TopicPartition(r.topic(), r.partition()), r.offset());
        }
        firstUnhandled.forEach(consumer::seek);
    }

    private void handle(ConsumerRecord<byte[], byte[]> record) {
        String topic = record.topic();
        metrics.eventConsumed(topic);
        byte[] value = record.value();
        if (value == null) {
            return; // tombstone: the delete event before it already evicted
        }
        if (value.length > maxMessageBytes) {
            metrics.error(ErrorReason.OVERSIZED);
            badInput.log(ErrorReason.OVERSIZED, topic, record.partition(), record.offset(),
                    value.length + " bytes > max-message-size " + maxMessageBytes + "; evicted the caches of this table");
            router.evictAllOf(topic);
            return;
        }
        ChangeEvent event;
        try {
            event = parser.parse(topic, record.partition(), record.offset(), value);
        } catch (MalformedEventException e) {
            ErrorReason reason = switch (e.reason()) {
                case MALFORMED_JSON -> ErrorReason.MALFORMED_JSON;
                case NOT_AN_ENVELOPE -> ErrorReason.NOT_AN_ENVELOPE;
                case UNEXPECTED_OPERATION -> ErrorReason.UNEXPECTED_OPERATION;
            };
            metrics.error(reason);
            badInput.log(reason, topic, record.partition(), record.offset(), e.getMessage()
                    + (topic.equals(heartbeatTopic) ? "" : "; evicted the caches of this table"));
            router.evictAllOf(topic);
            return;
        }
        if (topic.equals(heartbeatTopic) && !router.isBound(topic)) {
            applyHeartbeat(record, event);
            return;
        }
        router.apply(event);
        String table = router.tableOf(topic); // configured, bounded: never a tag taken from the payload
        if (event.sourceTimestampMillis() > 0 && table != null) {
            metrics.invalidationLag(table, clock.getAsLong() - event.sourceTimestampMillis());
        }
        for (InvalidationListener listener : listeners) {
            try {
                listener.onApplied(event);
            } catch (RuntimeException e) {
                listenerFailed(listener, record, e);
            }
        }
    }

    /** Counted every time; logged with its stack trace at most once a minute per listener class, not per event. */
    private void listenerFailed(InvalidationListener listener, ConsumerRecord<byte[], byte[]> record, RuntimeException e) {
        metrics.error(ErrorReason.LISTENER_FAILURE);
        long suppressed = listenerFailureLog.admit(listener.getClass().getName());
        if (suppressed != LogThrottle.HELD_BACK) {
            LOG.warn("Invalidation listener {} failed on {}-{}@{}{}; the event was applied to the caches",
                    listener.getClass().getName(), record.topic(), record.partition(), record.offset(),
                    suppressed > 0 ? " (" + suppressed + " more failures since the last report)" : "", e);
        }
    }

    private void applyHeartbeat(ConsumerRecord<byte[], byte[]> record, ChangeEvent event) {
        HeartbeatCoverage.Heartbeat heartbeat = event.after() == null ? null : HeartbeatReader.read(event.after());
        if (heartbeat == null) {
            metrics.error(ErrorReason.BAD_HEARTBEAT);
            badInput.log(ErrorReason.BAD_HEARTBEAT, event.topic(), event.partition(), event.offset(),
                    "heartbeat without a usable 'id' or 'ts' column");
            return;
        }
        long now = clock.getAsLong();
        HeartbeatCoverage.Outcome outcome = coverage.accept(connectorHeader(record), heartbeat, now);
        if (outcome.status() == HeartbeatCoverage.Status.REJECTED) {
            metrics.error(ErrorReason.REJECTED_HEARTBEAT);
            return;
        }
        if (outcome.clamped()) {
            metrics.error(ErrorReason.FUTURE_HEARTBEAT);
            badInput.log(ErrorReason.FUTURE_HEARTBEAT, event.topic(), event.partition(), event.offset(),
                    "heartbeat of '" + outcome.connector() + "' dated " + (heartbeat.tsMillis() - now)
                            + " ms in the future (database clock ahead, or the row was updated by hand); clamped to now");
        }
        if (!outcome.resetTables().isEmpty()) {
            Set<String> evicted = router.evictAllOfTables(outcome.resetTables());
            metrics.unprovenEvicted(outcome.resetReason().tag(), evicted.size());
        }
        guard.heartbeatApplied(outcome.tsMillis());
        metrics.heartbeatLag(now - outcome.tsMillis());
    }

    /** The {@code cdc-connector} header (UTF-8), or {@code null} if absent. */
    private static String connectorHeader(ConsumerRecord<byte[], byte[]> record) {
        Header header = record.headers().lastHeader(CONNECTOR_HEADER);
        if (header == null || header.value() == null || header.value().length > 190 * 4) {
            return null;
        }
        return new String(header.value(), StandardCharsets.UTF_8);
    }

    /**
     * Positions outside the log: events were lost. The partitions move to their end, and only once that end
     * position is resolved are the caches of their topics evicted; evicting first would let a load that reads
     * the database between the eviction and the position lookup cache a value whose change is then skipped.
     * The eviction is also done at once (the safe side if resolving the position keeps failing); resolving
     * (e.g. a timeout in {@code position()}) is retried on the next iterations until it succeeds.
     */
    private void recoverLostEvents(Set<TopicPartition> partitions) {
        metrics.error(ErrorReason.OFFSET_OUT_OF_RANGE);
        LOG.warn("Positions outside the log for {} (events were lost): moving to the end and evicting every cache "
                + "bound to these topics", partitions);
        targetEnds = null;
        guard.positionUnconfirmed("events lost on " + partitions + "; repositioning");
        lostEvents.addAll(partitions);
        partitions.stream().map(TopicPartition::topic).distinct().forEach(router::evictAllOf);
        consumer.seekToEnd(partitions);
        try {
            completeLostEventRecovery();
        } catch (RuntimeException e) {
            failed(e); // retried at the start of the next iteration
        }
    }

    private void completeLostEventRecovery() {
        targetEnds = null;
        Set<String> topics = new HashSet<>();
        for (TopicPartition tp : lostEvents) {
            if (assigned.contains(tp)) {
                consumer.position(tp, requestTimeout); // fix the new position before evicting (see above)
                topics.add(tp.topic());
            }
        }
        topics.forEach(router::evictAllOf);
        lostEvents.clear();
    }

    private void checkFailed(RuntimeException e) {
        targetEnds = null;
        nextCheckAt = clock.getAsLong() + checkIntervalMillis;
        metrics.error(ErrorReason.CONSUMER_FAILURE);
        guard.positionUnconfirmed(e.getClass().getSimpleName() + ": " + e.getMessage());
        logFailure(e);
    }

    private void markFailing() {
        if (failingSince == Long.MIN_VALUE) {
            failingSince = clock.getAsLong();
        }
    }

    private void logFailure(RuntimeException e) {
        markFailing();
        long now = clock.getAsLong();
        if (lastFailureLog == Long.MIN_VALUE || now - lastFailureLog > 30_000) {
            lastFailureLog = now;
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

    private void failed(RuntimeException e) {
        metrics.error(ErrorReason.CONSUMER_FAILURE);
        guard.positionUnconfirmed(e.getClass().getSimpleName() + ": " + e.getMessage());
        targetEnds = null;
        logFailure(e);
        try {
            Thread.sleep(pollTimeout.toMillis());
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }
}
