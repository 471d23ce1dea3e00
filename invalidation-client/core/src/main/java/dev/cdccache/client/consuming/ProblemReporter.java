package dev.cdccache.client.consuming;

import dev.cdccache.client.eviction.EvictionRouter;
import dev.cdccache.client.metrics.ClientMetrics;
import dev.cdccache.client.staleness.CacheFreshness;
import dev.cdccache.client.staleness.FreshnessProblem;
import dev.cdccache.client.staleness.HeartbeatCoverage;
import dev.cdccache.client.staleness.StalenessGuard;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says what keeps caches from being proven fresh: after every completed position check it publishes the
 * {@link FreshnessProblem}s (to the client-wide guard, and to each cache's guard those concerning it) and logs
 * each new set of them once, not at every check. Changes when what is reported, or how, changes. Consumer thread
 * only.
 */
final class ProblemReporter {

    private static final Logger LOG = LoggerFactory.getLogger(ChangeConsumer.class);

    private final StalenessGuard guard;
    private final List<CacheFreshness> caches;
    private final TopicAssignment topics;
    private final HeartbeatCoverage coverage;
    private final ClientMetrics metrics;
    private final String heartbeatTopic;
    private final boolean requireTopics;
    private final boolean heartbeatRequired;
    private final long maxStalenessMillis;
    private final long maxClockSkewMillis;
    /** The key columns the latest events of a bound topic lacked (the router's, read at each check). */
    private final Supplier<Collection<EvictionRouter.MissingColumn>> missingColumns;
    private Set<String> warnedSilent = Set.of();
    private Set<String> warnedSkewed = Set.of();
    private Set<String> warnedMissing = Set.of();
    private Set<String> warnedUncovered = Set.of();
    /** Caches whose current freshness gap was logged. */
    private final Set<String> gapReported = new HashSet<>();

    ProblemReporter(StalenessGuard guard, List<CacheFreshness> caches, TopicAssignment topics,
            HeartbeatCoverage coverage, ClientMetrics metrics, String heartbeatTopic, boolean requireTopics,
            boolean heartbeatRequired, long maxClockSkewMillis) {
        this(guard, caches, topics, coverage, metrics, heartbeatTopic, requireTopics, heartbeatRequired,
                maxClockSkewMillis, List::of);
    }

    /** @param missingColumns the key columns events lacked ({@link EvictionRouter#missingColumns()}) */
    ProblemReporter(StalenessGuard guard, List<CacheFreshness> caches, TopicAssignment topics,
            HeartbeatCoverage coverage, ClientMetrics metrics, String heartbeatTopic, boolean requireTopics,
            boolean heartbeatRequired, long maxClockSkewMillis,
            Supplier<Collection<EvictionRouter.MissingColumn>> missingColumns) {
        this.missingColumns = missingColumns;
        this.guard = guard;
        this.caches = List.copyOf(caches);
        this.topics = topics;
        this.coverage = coverage;
        this.metrics = metrics;
        this.maxClockSkewMillis = maxClockSkewMillis;
        this.heartbeatTopic = heartbeatTopic;
        this.requireTopics = requireTopics;
        this.heartbeatRequired = heartbeatRequired;
        this.maxStalenessMillis = guard.maxStalenessMillis();
    }

    /**
     * Publishes the problems seen by a completed check.
     *
     * @param compacted bound topics found with {@code cleanup.policy=compact}
     * @param now the time the check completed
     * @param readyAtMillis when the client became ready (uncovered tables are reported only beyond max-staleness
     *        after it)
     */
    void publish(PositionProver.Check check, Set<String> compacted, long now, long readyAtMillis) {
        List<FreshnessProblem> problems = new ArrayList<>();
        Set<String> missingTopics = new TreeSet<>();
        if (requireTopics) {
            for (String topic : check.missing()) {
                if (topic.equals(heartbeatTopic)) {
                    if (heartbeatRequired) {
                        missingTopics.add(topic);
                        problems.add(new FreshnessProblem(FreshnessProblem.Kind.MISSING_TOPIC, topic, Set.of(),
                                "the heartbeat topic " + topic + " does not exist: no connector can prove any cache "
                                        + "fresh (check topic-prefix / heartbeat.topic against the connector)"));
                    }
                } else if (!topics.deletedTopics().contains(topic)) {
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
        for (String topic : topics.deletedTopics()) {
            problems.add(new FreshnessProblem(FreshnessProblem.Kind.TOPIC_DELETED, topic, cachesOf(topic),
                    "topic " + topic + " was deleted while being read; its caches were evicted"));
        }
        for (String topic : compacted) {
            problems.add(new FreshnessProblem(FreshnessProblem.Kind.COMPACTED_TOPIC, topic, cachesOf(topic),
                    "topic " + topic + " has cleanup.policy=compact: compaction removes delete events, so deleted rows "
                            + "would never be evicted; set cleanup.policy=delete on it"));
        }
        for (String topic : topics.unavailableTopics()) {
            problems.add(new FreshnessProblem(FreshnessProblem.Kind.PARTITIONS_UNAVAILABLE, topic, cachesOf(topic),
                    "the log end of partitions of " + topic + " cannot be looked up (no leader or broker down)"));
        }
        // The router warned when it first saw each; here they make the caches not fresh and show in health.
        for (EvictionRouter.MissingColumn missing : missingColumns.get()) {
            problems.add(new FreshnessProblem(FreshnessProblem.Kind.MISSING_COLUMN, missing.topic(),
                    Set.of(missing.cache()), "events of " + missing.topic() + " lack column '" + missing.column()
                            + "', which cache " + missing.cache() + " derives its keys from: each change evicts the"
                            + " whole cache; add the column to the connector's cdc.connector.columns.include (or take"
                            + " it out of columns.exclude), or fix the cache's key-columns"));
        }
        if (heartbeatRequired) {
            uncoveredTables(check, now, readyAtMillis, problems);
            silentConnectors(check, now, readyAtMillis, problems);
            clockSkew(now, problems);
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

    private void uncoveredTables(PositionProver.Check check, long now, long readyAtMillis,
            List<FreshnessProblem> problems) {
        Set<String> uncovered = new TreeSet<>();
        for (CacheFreshness cache : caches) {
            for (CacheFreshness.Source source : cache.sources()) {
                String table = source.table().toLowerCase(Locale.ROOT);
                if (!check.missing().contains(source.topic()) && check.coverageAtStart()
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

    /**
     * Every connector feeding a bound topic whose latest heartbeat is older than max-staleness (or that has sent
     * none, once that outlasts max-staleness after ready, like an uncovered table): the topic's caches are not
     * fresh because of it, whatever the other connectors feeding it say.
     */
    private void silentConnectors(PositionProver.Check check, long now, long readyAtMillis,
            List<FreshnessProblem> problems) {
        boolean outlasted = now - readyAtMillis > maxStalenessMillis;
        Set<String> silent = new TreeSet<>();
        for (String topic : boundTopics()) {
            if (check.missing().contains(topic) || topics.deletedTopics().contains(topic)) {
                continue;
            }
            coverage.feeders(topic).forEach((connector, proven) -> {
                String message;
                if (proven == HeartbeatCoverage.UNCOVERED) {
                    if (!outlasted) {
                        return;
                    }
                    message = "connector '" + connector + "' publishes into " + topic + " but none of its heartbeats "
                            + "was received";
                } else if (now - proven > maxStalenessMillis) {
                    message = "connector '" + connector + "' feeds " + topic + " but its latest heartbeat proves only "
                            + "up to " + (now - proven) + " ms ago (is it running?)";
                } else {
                    return;
                }
                silent.add(connector + " -> " + topic);
                problems.add(new FreshnessProblem(FreshnessProblem.Kind.SILENT_CONNECTOR, topic, cachesOf(topic),
                        message + "; the caches of " + topic + " are not fresh until it beats again. A connector "
                                + "retired for good stays a feeder until this client restarts"));
            });
        }
        if (!silent.isEmpty() && !warnedSilent.containsAll(silent)) {
            LOG.warn("Connectors feeding bound topics are silent: {}. The caches of those topics are not fresh until "
                    + "they beat again (if one was retired for good, restart this instance to forget it)", silent);
        }
        warnedSilent = silent;
    }

    /** Connectors whose database clock is measurably ahead of this host's by more than max-clock-skew. */
    private void clockSkew(long now, List<FreshnessProblem> problems) {
        Map<String, Long> skews = coverage.clockSkews(now);
        metrics.clockSkew(skews.values().stream().mapToLong(Long::longValue).max().orElse(0));
        Set<String> skewed = new TreeSet<>();
        skews.forEach((connector, skew) -> {
            if (skew <= maxClockSkewMillis) {
                return;
            }
            Set<String> concerned = new TreeSet<>();
            for (String topic : boundTopics()) {
                if (coverage.feeders(topic).containsKey(connector)) {
                    concerned.addAll(cachesOf(topic));
                }
            }
            if (concerned.isEmpty()) {
                return; // it feeds no cache of this client
            }
            skewed.add(connector);
            problems.add(new FreshnessProblem(FreshnessProblem.Kind.CLOCK_SKEW, connector, concerned,
                    "the database clock of connector '" + connector + "' is at least " + skew + " ms ahead of this "
                            + "host's (more than max-clock-skew " + maxClockSkewMillis + " ms): its heartbeats prove "
                            + "only up to this host's time minus that skew; synchronise the clocks (NTP)"));
        });
        if (!skewed.isEmpty() && !warnedSkewed.containsAll(skewed)) {
            LOG.warn("Database clocks ahead of this host's by more than max-clock-skew ({} ms): connectors {}, by {} "
                    + "ms. Their heartbeats prove only up to this host's time minus that skew; synchronise the clocks",
                    maxClockSkewMillis, skewed, skews);
        }
        warnedSkewed = skewed;
    }

    private Set<String> boundTopics() {
        Set<String> bound = new TreeSet<>();
        caches.forEach(cache -> cache.sources().forEach(source -> bound.add(source.topic())));
        return bound;
    }

    /**
     * One WARN per gap episode naming every cache it evicted. While a consumer catches up on a backlog each
     * heartbeat still older than max-staleness evicts again (nothing loaded meanwhile is proven either): those
     * evictions are counted ({@code cdc.client.unproven.evictions}) and logged at DEBUG, not once per heartbeat.
     *
     * @param evictedAfterGap caches evicted by this check, with how long they had been without proof
     * @param freshAgain caches within max-staleness again after this check (their next gap is a new episode)
     */
    void gapEvictions(Map<String, Long> evictedAfterGap, Set<String> freshAgain) {
        if (!evictedAfterGap.isEmpty()) {
            Map<String, Long> first = new TreeMap<>(evictedAfterGap);
            first.keySet().removeAll(gapReported);
            gapReported.addAll(evictedAfterGap.keySet());
            if (!first.isEmpty()) {
                LOG.warn("Caches {} are proven again after {} ms without proof (more than max-staleness): evicted "
                        + "their entries, which could not be proven during the gap; they are fresh once the consumer "
                        + "has caught up", first.keySet(), Collections.max(first.values()));
            } else {
                LOG.debug("Caches {} evicted again while catching up after a gap", evictedAfterGap.keySet());
            }
        }
        gapReported.removeAll(freshAgain);
    }

    private Set<String> cachesOf(String topic) {
        return cachesWhere(source -> source.topic().equals(topic));
    }

    private Set<String> cachesOfTable(String table) {
        return cachesWhere(source -> source.table().equalsIgnoreCase(table));
    }

    private Set<String> cachesWhere(Predicate<CacheFreshness.Source> bound) {
        Set<String> names = new TreeSet<>();
        for (CacheFreshness cache : caches) {
            if (cache.sources().stream().anyMatch(bound)) {
                names.add(cache.cache());
            }
        }
        return names;
    }
}
