package dev.cdccache.client.position;

import dev.cdccache.client.Internal;
import dev.cdccache.client.cache.ReadGate;
import dev.cdccache.client.metrics.ClientMetrics;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The commit position each cache has PROVEN applied: every change up to it, on every partition feeding the cache,
 * has had its evictions done. Unlike {@link AppliedPositions} (the highest GTID a change has started to apply,
 * client-wide), this is what a read floor may rely on.
 *
 * <p><b>Why per partition.</b> The client reads several topics and partitions, and Kafka orders records within a
 * partition only. A change with GTID {@code 0-1-500} applied from partition A proves nothing about a change
 * {@code 0-1-499} still waiting on partition B: A's leader may simply have answered first. So a cache's position
 * is the least of what each partition of each of its topics proves, and a partition proves a position in one of
 * two ways:
 * <ol>
 *   <li><b>Its own changes.</b> Within a partition the connector's records keep binlog order, so once a change of
 *       source {@code domain-server} (MariaDB) or {@code uuid} (MySQL) with sequence n was applied from it, every
 *       change of that source up to n on that partition was applied too. This proves only that source: two servers
 *       that share a MariaDB domain id without replicating each other (shards left at {@code gtid_domain_id=0})
 *       number their transactions independently.</li>
 *   <li><b>A heartbeat and a completed position check.</b> A connector hands its heartbeat record to Kafka only
 *       after Kafka acknowledged every change before it in the binlog (docs/contract.md, "Ordering"), and the
 *       heartbeat row's change carries its own GTID. So if every connector feeding a topic had a heartbeat with
 *       sequence at least n in domain d applied before a position check started, and the check then read every
 *       partition of the topic to the log end it looked up, every change of domain d up to n is applied on every
 *       partition of that topic, including partitions created later (they can only hold changes produced after
 *       the check started). A topic fed by several connectors is proven only as far as the least of them. A
 *       heartbeat without a GTID, or with one of another domain, proves nothing for that domain.</li>
 * </ol>
 * The second way covers partitions that had no change of their own: after a write, a floor on a cache whose
 * topics have several partitions, or whose tables the write did not touch, is proven by the next heartbeat plus a
 * position check (about {@code heartbeat.interval} + {@code position-check-interval}). A topic that does not exist
 * proves nothing until a check confirms it (with {@code require-topics: false} only).
 *
 * <p><b>Limit.</b> Partitions added to an existing change topic are found at the next position check; until then
 * a change on a new partition is not waited for by proofs of the first kind. Adding partitions to a change topic
 * also breaks the per-row order the contract relies on: do not.
 *
 * <p>Written by the consumer thread ({@link #eventApplied}, {@link #heartbeatApplied}, {@link #checkStarted},
 * {@link #checkCompleted}, {@link #publish}); what it proves is published as an immutable snapshot per cache
 * after each poll batch and each check, read by any thread ({@link #isProven}, {@link #awaitProven}).
 */
@Internal
public final class ProvenPositions {

    /** What one cache has proven, published as a whole. */
    private record Proof(Map<String, Long> byDomain, Map<String, Long> bySource) {

        static final Proof NOTHING = new Proof(Map.of(), Map.of());

        boolean covers(CommitPosition position) {
            for (CommitPosition.Component c : position.components()) {
                long proven = Math.max(bySource.getOrDefault(c.source(), -1L), byDomain.getOrDefault(c.domain(), -1L));
                if (proven < c.sequence()) {
                    return false;
                }
            }
            return true;
        }
    }

    /** Each cache's topics. */
    private final Map<String, List<String>> topicsByCache;
    /** Consumer thread: per topic, per partition, per source, the highest sequence applied from that partition. */
    private final Map<String, Map<Integer, Map<String, Long>>> events = new HashMap<>();
    /** Consumer thread: per connector identity, per domain, the highest sequence of its heartbeats applied. */
    private final Map<String, Map<String, Long>> heartbeats = new HashMap<>();
    /** Consumer thread: per topic, per domain, what completed position checks proved. */
    private final Map<String, Map<String, Long>> checked = new HashMap<>();
    /** Consumer thread: the partitions of each topic, as of the latest publish. */
    private Map<String, Set<Integer>> partitions = Map.of();
    /** Consumer thread: topics found compacted, whose own changes prove nothing (see {@link #compacted}). */
    private Set<String> compacted = Set.of();
    private boolean dirty;
    private volatile Map<String, Proof> published;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition moved = lock.newCondition();
    private volatile int waiters;
    /** Told of every (cache, domain) pair once, when first proven (consumer thread): metrics. */
    private volatile BiConsumer<String, String> newDomain = (cache, domain) -> { };
    /** Consumer thread: the (cache, domain) pairs already told. */
    private final Set<String> toldDomains = new HashSet<>();

    /** @param topicsByCache each cache's topics (every topic its sources read) */
    public ProvenPositions(Map<String, ? extends Collection<String>> topicsByCache) {
        Map<String, List<String>> copy = new HashMap<>();
        Map<String, Proof> empty = new HashMap<>();
        topicsByCache.forEach((cache, topics) -> {
            copy.put(cache, List.copyOf(new HashSet<>(topics)));
            empty.put(cache, Proof.NOTHING);
        });
        this.topicsByCache = Map.copyOf(copy);
        this.published = Map.copyOf(empty);
    }

    /**
     * Consumer thread: a change with {@code gtid} was applied from {@code topic}/{@code partition}, its evictions
     * done. {@code null} or unparsable GTIDs (snapshot reads, a server without GTIDs) prove nothing.
     */
    public void eventApplied(String topic, int partition, String gtid) {
        CommitPosition.Component c = gtid == null ? null : CommitPosition.component(gtid);
        if (c == null) {
            return;
        }
        Map<String, Long> sources = events.computeIfAbsent(topic, t -> new HashMap<>())
                .computeIfAbsent(partition, p -> new HashMap<>());
        Long before = sources.get(c.source());
        if (before == null || before < c.sequence()) {
            sources.put(c.source(), c.sequence());
            dirty = true;
        }
    }

    /** Consumer thread: an accepted heartbeat of {@code connector} (its identity in the coverage) with {@code gtid}. */
    public void heartbeatApplied(String connector, String gtid) {
        CommitPosition.Component c = gtid == null ? null : CommitPosition.component(gtid);
        if (c != null) {
            heartbeats.computeIfAbsent(connector, k -> new HashMap<>()).merge(c.domain(), c.sequence(), Math::max);
        }
    }

    /**
     * Consumer thread, when a position check starts (before it looks up the log end offsets): per topic, what the
     * check will prove once it completes, from the heartbeats applied so far of the connectors feeding it.
     *
     * @param feeders the connector identities feeding a topic (empty if none is known)
     */
    public Map<String, Map<String, Long>> checkStarted(Collection<String> topics,
            Function<String, ? extends Collection<String>> feeders) {
        Map<String, Map<String, Long>> atStart = new HashMap<>();
        for (String topic : topics) {
            Map<String, Long> least = null;
            for (String connector : feeders.apply(topic)) {
                least = least(least, heartbeats.getOrDefault(connector, Map.of()));
            }
            if (least != null && !least.isEmpty()) {
                atStart.put(topic, Map.copyOf(least));
            }
        }
        return atStart;
    }

    /**
     * Consumer thread: a position check completed; {@code confirmed} are the topics it read to the log end looked
     * up at its start, {@code atStart} what {@link #checkStarted} returned for it.
     */
    public void checkCompleted(Set<String> confirmed, Map<String, Map<String, Long>> atStart) {
        for (String topic : confirmed) {
            Map<String, Long> proven = atStart.get(topic);
            if (proven != null) {
                Map<String, Long> domains = checked.computeIfAbsent(topic, t -> new HashMap<>());
                proven.forEach((domain, sequence) -> {
                    Long before = domains.get(domain);
                    if (before == null || before < sequence) {
                        domains.put(domain, sequence);
                        dirty = true;
                    }
                });
            }
        }
    }

    /**
     * Consumer thread: the bound topics currently found compacted (replaces the previous set). A change applied from
     * a partition of such a topic proves nothing of the changes before it: compaction may have removed an earlier
     * change of a row in favour of a later one the consumer has not reached yet, so the record of that earlier write
     * is never read while changes after it are. (A position check does not prove them either: the consumer leaves
     * compacted topics out of what a check confirms.) Reads under a floor on their caches bypass them.
     */
    public void compacted(Set<String> topics) {
        if (!topics.equals(compacted)) {
            compacted = Set.copyOf(topics);
            dirty = true;
        }
    }

    /**
     * Consumer thread: publishes what each cache proves now, if anything changed, and wakes the readers waiting.
     *
     * @param assigned the partitions of each topic being read
     */
    public void publish(Map<String, Set<Integer>> assigned) {
        if (!dirty && assigned.equals(partitions)) {
            return;
        }
        partitions = assigned;
        dirty = false;
        Map<String, Proof> next = new HashMap<>();
        topicsByCache.forEach((cache, topics) -> next.put(cache, prove(topics)));
        published = Map.copyOf(next);
        next.forEach((cache, proof) -> proof.byDomain().keySet().forEach(domain -> {
            if (toldDomains.add(cache + '\n' + domain)) {
                newDomain.accept(cache, domain);
            }
        }));
        if (waiters > 0) {
            lock.lock();
            try {
                moved.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    private Proof prove(List<String> topics) {
        Map<String, Long> byDomain = null;
        Set<String> sources = new HashSet<>();
        for (String topic : topics) {
            byDomain = least(byDomain, checked.getOrDefault(topic, Map.of()));
            events.getOrDefault(topic, Map.of()).values().forEach(bySource -> sources.addAll(bySource.keySet()));
        }
        Map<String, Long> bySource = new HashMap<>();
        for (String source : sources) {
            String domain = domainOf(source);
            long least = Long.MAX_VALUE;
            for (String topic : topics) {
                long viaCheck = checked.getOrDefault(topic, Map.of()).getOrDefault(domain, -1L);
                Set<Integer> its = partitions.getOrDefault(topic, Set.of());
                if (its.isEmpty()) {
                    least = Math.min(least, viaCheck); // nothing read from it: only a check proves it
                }
                Map<Integer, Map<String, Long>> byPartition = compacted.contains(topic) ? Map.of()
                        : events.getOrDefault(topic, Map.of());
                for (int partition : its) {
                    long viaEvents = byPartition.getOrDefault(partition, Map.of()).getOrDefault(source, -1L);
                    least = Math.min(least, Math.max(viaCheck, viaEvents));
                }
            }
            if (least >= 0 && least != Long.MAX_VALUE) {
                bySource.put(source, least);
            }
        }
        return new Proof(byDomain == null ? Map.of() : Map.copyOf(byDomain), Map.copyOf(bySource));
    }

    /**
     * What two proofs prove together, per domain: the lesser sequence, and nothing for a domain only one proves.
     * {@code soFar} is {@code null} before the first proof (and is then replaced by a copy).
     */
    private static Map<String, Long> least(Map<String, Long> soFar, Map<String, Long> next) {
        if (soFar == null) {
            return new HashMap<>(next);
        }
        soFar.keySet().retainAll(next.keySet());
        soFar.replaceAll((domain, sequence) -> Math.min(sequence, next.get(domain)));
        return soFar;
    }

    /** The domain of a source: MariaDB {@code domain-server} -> {@code domain}; a MySQL UUID is its own. */
    private static String domainOf(String source) {
        int dash = source.indexOf('-');
        return source.length() == 36 || dash < 0 ? source : source.substring(0, dash);
    }

    /** Whether {@code cache} has proven every component of {@code position} applied (no wait). */
    public boolean isProven(String cache, CommitPosition position) {
        return position.isEmpty() || proofOf(cache).covers(position);
    }

    /**
     * Waits until {@code cache} has proven {@code position} applied, at most {@code maxWaitNanos}.
     *
     * @return whether it has; {@code false} also if interrupted (the interrupt stays set)
     */
    public boolean awaitProven(String cache, CommitPosition position, long maxWaitNanos) {
        if (isProven(cache, position)) {
            return true;
        }
        long remaining = maxWaitNanos;
        lock.lock();
        waiters++;
        try {
            while (!isProven(cache, position)) {
                if (remaining <= 0) {
                    return false;
                }
                remaining = moved.awaitNanos(remaining);
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            waiters--;
            lock.unlock();
        }
    }

    private Proof proofOf(String cache) {
        Proof proof = published.get(cache);
        if (proof == null) {
            throw new IllegalArgumentException("No cache '" + cache + "'; configured: " + topicsByCache.keySet());
        }
        return proof;
    }

    /**
     * What {@code cache} has proven by position checks, per domain (MariaDB domain id, MySQL server UUID): the
     * sequence up to which every change is applied on every partition of its topics. Changes seen on the
     * partitions themselves may prove more for their own server; this is the floor every partition shares.
     */
    public Map<String, Long> provenByDomain(String cache) {
        return new TreeMap<>(proofOf(cache).byDomain());
    }

    /** The sequence of {@code domain} proven applied to {@code cache} by position checks, or -1. */
    public long provenSequence(String cache, String domain) {
        return proofOf(cache).byDomain().getOrDefault(domain, -1L);
    }

    /**
     * Creates the read-your-writes front of these positions: its metrics ({@code cdc.client.read.floor},
     * {@code cdc.client.read.floor.wait}, and {@code cdc.client.position.applied} per cache and domain as domains
     * are proven) are registered in {@code metrics}. Call once, before the consumer starts.
     */
    public ReadYourWrites readYourWrites(Duration maxWait, ClientMetrics metrics) {
        newDomain = (cache, domain) -> metrics.bindAppliedPosition(cache, domain, () -> provenSequence(cache, domain));
        return new ReadYourWrites(this, maxWait, metrics);
    }

    /** The gate {@code cache} asks on every read (see {@link ReadYourWrites}). */
    public static ReadGate gate(ReadYourWrites readYourWrites, String cache) {
        return readYourWrites.gate(cache);
    }

    /** The caches, for metrics and health. */
    public Set<String> caches() {
        return topicsByCache.keySet();
    }
}
