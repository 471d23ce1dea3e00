package dev.cdccache.client.position;

import dev.cdccache.client.Internal;
import dev.cdccache.client.cache.ReadGate;
import dev.cdccache.client.metrics.ClientMetrics;
import dev.cdccache.client.metrics.LogThrottle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * <b>Whose numbering.</b> Heartbeat and check proofs are kept per domain AND server (the GTID's source): a
 * sequence number proves something only in the numbering that produced it. A proof of server {@code s'} covers a
 * change of another server {@code s} of the same domain only below the sequence at which this client saw
 * {@code s'} take the domain over (its first sequence, seen after another server's): those changes were
 * replicated to {@code s'} before it wrote its own. So after a lossless failover floors from before it stay
 * provable, while a lossy one's reused numbers (a promoted replica continuing at 981 where the old primary proved
 * 1000) are not proven by the old primary's proofs; a server that was already writing when this client started
 * proves only its own numbering. A numbering that starts over on the same server ({@code RESET MASTER}, a
 * restored server) is caught when a lower sequence is applied, or when this instance commits a transaction whose
 * position is already proven ({@link #freshCommit}): every proof is dropped then (see {@link #sequenceWentBack}),
 * counted in {@code cdc.client.position.resets}.
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

    private static final Logger LOG = LoggerFactory.getLogger(ProvenPositions.class);

    /**
     * What one cache has proven, published as a whole: per domain (metrics), per source from changes and checks of
     * the sources seen, and each topic's check proofs with the takeovers seen, for sources not seen at all.
     */
    private record Proof(Map<String, Long> byDomain, Map<String, Long> bySource,
            List<Map<String, Long>> checks, Map<String, Long> takeovers) {

        static final Proof NOTHING = new Proof(Map.of(), Map.of(), List.of(), Map.of());

        boolean covers(CommitPosition position) {
            for (CommitPosition.Component c : position.components()) {
                if (proven(c.source()) < c.sequence()) {
                    return false;
                }
            }
            return true;
        }

        /** The highest sequence of {@code source} proven. */
        long proven(String source) {
            long viaChecks = checks.isEmpty() ? -1 : Long.MAX_VALUE;
            for (Map<String, Long> topic : checks) {
                viaChecks = Math.min(viaChecks, checkProves(topic, source, takeovers));
            }
            return Math.max(bySource.getOrDefault(source, -1L), viaChecks);
        }
    }

    /** Each cache's topics. */
    private final Map<String, List<String>> topicsByCache;
    /** Consumer thread: the GTID {@link #component} parsed last, and what it gave ({@code null} if unparsable). */
    private String lastGtid;
    private CommitPosition.Component lastComponent;
    /** Consumer thread: per topic, per partition, per source, the highest sequence applied from that partition. */
    private final Map<String, Map<Integer, Map<String, Long>>> events = new HashMap<>();
    /** Consumer thread: per connector identity, per source, the highest sequence of its heartbeats applied. */
    private final Map<String, Map<String, Long>> heartbeats = new HashMap<>();
    /** Consumer thread: per topic, per source, what completed position checks proved. */
    private final Map<String, Map<String, Long>> checked = new HashMap<>();
    /** Consumer thread: per domain, the sources seen. */
    private final Map<String, Set<String>> seenByDomain = new HashMap<>();
    /** Consumer thread: per source that took a domain over while this client watched, its first sequence seen. */
    private final Map<String, Long> takeovers = new HashMap<>();
    /** Consumer thread: the {@link #checkStarted} results issued since the latest reset (by identity). */
    private final Set<Object> checksInFlight = Collections.newSetFromMap(new IdentityHashMap<>());
    /** A commit of this instance showed that a numbering started over: the consumer drops the proofs. */
    private volatile CommitPosition.Component resetRequested;
    /** Times the proofs were dropped because sequences went back. */
    private final LongAdder resets = new LongAdder();
    private final LogThrottle resetLog = new LogThrottle(System::currentTimeMillis, 60_000);
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
        CommitPosition.Component c = component(gtid);
        if (c == null) {
            return;
        }
        seen(c);
        Map<String, Long> sources = events.computeIfAbsent(topic, t -> new HashMap<>())
                .computeIfAbsent(partition, p -> new HashMap<>());
        Long before = sources.get(c.source());
        if (before != null && before > c.sequence()) {
            sequenceWentBack(c);
            seen(c);
            sources = events.computeIfAbsent(topic, t -> new HashMap<>()).computeIfAbsent(partition, p -> new HashMap<>());
            before = null;
        }
        if (before == null || before < c.sequence()) {
            sources.put(c.source(), c.sequence());
            dirty = true;
        }
    }

    /**
     * The parsed GTID; the last one is kept, since every row of a transaction carries the same GTID. Only the parse
     * is saved: the bookkeeping above still runs for every event, a sequence that went back included.
     */
    private CommitPosition.Component component(String gtid) {
        if (gtid == null) {
            return null;
        }
        if (!gtid.equals(lastGtid)) {
            lastComponent = CommitPosition.component(gtid);
            lastGtid = gtid;
        }
        return lastComponent;
    }

    /** Consumer thread: an accepted heartbeat of {@code connector} (its identity in the coverage) with {@code gtid}. */
    public void heartbeatApplied(String connector, String gtid) {
        CommitPosition.Component c = gtid == null ? null : CommitPosition.component(gtid);
        if (c != null) {
            seen(c);
            Long before = heartbeats.getOrDefault(connector, Map.of()).get(c.source());
            if (before != null && before > c.sequence()) {
                sequenceWentBack(c);
                seen(c);
            }
            heartbeats.computeIfAbsent(connector, k -> new HashMap<>()).merge(c.source(), c.sequence(), Math::max);
        }
    }

    /** Notes each source seen; one appearing in a domain another source was seen in took it over. */
    private void seen(CommitPosition.Component c) {
        Set<String> sources = seenByDomain.computeIfAbsent(c.domain(), d -> new HashSet<>());
        if (sources.add(c.source()) && sources.size() > 1) {
            takeovers.put(c.source(), c.sequence());
            dirty = true;
        }
    }

    /**
     * Any thread: this instance just committed a transaction at {@code committed} (a fresh commit, never a position
     * from a request). A sequence not above what is already proven for its own source means that server's numbering
     * started over ({@code RESET MASTER}, a restored server): the proofs would cover the new transaction before it is
     * applied, so they are dropped at once (reads under a floor bypass until proven again) and built again by the
     * consumer from its next publish on, as for a lower sequence applied.
     *
     * @return whether the proofs were dropped
     */
    public boolean freshCommit(CommitPosition committed) {
        for (CommitPosition.Component c : committed.components()) {
            if (c.sequence() <= highestProven(c.source())) {
                synchronized (this) {
                    resetRequested = c;
                    published = nothing();
                }
                return true;
            }
        }
        return false;
    }

    /** Any thread: the highest sequence of {@code source} that any cache has proven applied, -1 if none. */
    long highestProven(String source) {
        long highest = -1;
        for (Proof proof : published.values()) {
            highest = Math.max(highest, proof.bySource().getOrDefault(source, -1L));
        }
        return highest;
    }

    private Map<String, Proof> nothing() {
        Map<String, Proof> empty = new HashMap<>();
        topicsByCache.keySet().forEach(cache -> empty.put(cache, Proof.NOTHING));
        return Map.copyOf(empty);
    }

    /**
     * A sequence lower than one already applied from the same place: the server's sequences started over
     * ({@code RESET MASTER}, a restored or rebuilt server), or the connector replays changes after a restart. The
     * proofs recorded so far would cover the new, lower sequences of writes not applied yet, so every proof is
     * dropped and built again from what is applied from now on. Reads under a floor bypass the caches until then;
     * a floor from before a reset stays unproven until the new sequences pass it (restart the instances after a
     * reset to end that early).
     */
    private void sequenceWentBack(CommitPosition.Component c) {
        resets.increment();
        long heldBack = resetLog.admit("reset");
        if (heldBack != LogThrottle.HELD_BACK) {
            LOG.warn("Commit position {} is not above one already applied or proven (a replay after a connector"
                    + " restart, or the server's GTID sequences started over: RESET MASTER, a restored server): read"
                    + " floors are proven again from the changes and heartbeats applied from now on and bypass the"
                    + " caches until then ({} more such resets since the last report)",
                    c.source() + ":" + c.sequence(), heldBack);
        }
        events.clear();
        heartbeats.clear();
        checked.clear();
        seenByDomain.clear();
        takeovers.clear();
        checksInFlight.clear();
        dirty = true;
    }

    /** How many times the proofs were dropped because a numbering went back ({@code cdc.client.position.resets}). */
    public long resets() {
        return resets.sum();
    }

    /**
     * Consumer thread, when a position check starts (before it looks up the log end offsets): per topic, per
     * source ({@code domain-server}, or the MySQL UUID), what the check will prove once it completes, from the heartbeats applied so far of the connectors feeding it.
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
        if (checksInFlight.size() > 64) {
            checksInFlight.clear(); // checks abandoned without completing: at worst one later check proves nothing
        }
        checksInFlight.add(atStart);
        return atStart;
    }

    /**
     * Consumer thread: a position check completed; {@code confirmed} are the topics it read to the log end looked
     * up at its start, {@code atStart} the very map {@link #checkStarted} returned for it (a check started before
     * the proofs were last dropped proves nothing).
     */
    public void checkCompleted(Set<String> confirmed, Map<String, Map<String, Long>> atStart) {
        if (!checksInFlight.remove(atStart)) {
            return; // started before the proofs were dropped: its heartbeats may be of the old numbering
        }
        for (String topic : confirmed) {
            Map<String, Long> proven = atStart.get(topic);
            if (proven != null) {
                Map<String, Long> sources = checked.computeIfAbsent(topic, t -> new HashMap<>());
                proven.forEach((source, sequence) -> {
                    Long before = sources.get(source);
                    if (before == null || before < sequence) {
                        sources.put(source, sequence);
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
        CommitPosition.Component reset = resetRequested;
        if (reset != null) {
            resetRequested = null;
            sequenceWentBack(reset);
        }
        if (!dirty && assigned.equals(partitions)) {
            return;
        }
        partitions = assigned;
        dirty = false;
        Map<String, Proof> next = new HashMap<>();
        topicsByCache.forEach((cache, topics) -> next.put(cache, prove(topics)));
        synchronized (this) {
            if (resetRequested != null) {
                dirty = true; // a commit found a numbering started over meanwhile: keep nothing proven
                return;
            }
            published = Map.copyOf(next);
        }
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
        List<Map<String, Long>> checks = new ArrayList<>();
        for (String topic : topics) {
            Map<String, Long> topicChecks = checked.getOrDefault(topic, Map.of());
            Map<String, Long> domains = new HashMap<>();
            topicChecks.forEach((source, sequence) -> domains.merge(domainOf(source), sequence, Math::max));
            byDomain = least(byDomain, domains);
            checks.add(Map.copyOf(topicChecks));
            sources.addAll(topicChecks.keySet());
            events.getOrDefault(topic, Map.of()).values().forEach(bySource -> sources.addAll(bySource.keySet()));
        }
        Map<String, Long> bySource = new HashMap<>();
        for (String source : sources) {
            long least = Long.MAX_VALUE;
            for (String topic : topics) {
                long viaCheck = checkProves(checked.getOrDefault(topic, Map.of()), source, takeovers);
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
        return new Proof(byDomain == null ? Map.of() : Map.copyOf(byDomain), Map.copyOf(bySource), List.copyOf(checks),
                Map.copyOf(takeovers));
    }

    /**
     * The highest sequence of {@code source} one topic's check proofs ({@code checks}, per source) prove: its own
     * proof, or below the takeover of another server of its domain that this client saw take it over.
     */
    private static long checkProves(Map<String, Long> checks, String source, Map<String, Long> takeovers) {
        long proven = checks.getOrDefault(source, -1L);
        String domain = domainOf(source);
        for (Map.Entry<String, Long> other : checks.entrySet()) {
            Long tookOver = takeovers.get(other.getKey());
            if (tookOver != null && !other.getKey().equals(source) && domainOf(other.getKey()).equals(domain)) {
                proven = Math.max(proven, Math.min(other.getValue(), tookOver - 1));
            }
        }
        return proven;
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
     * {@code cdc.client.read.floor.wait}, {@code cdc.client.position.resets}, and {@code cdc.client.position.applied} per cache and domain as domains
     * are proven) are registered in {@code metrics}. Call once, before the consumer starts.
     */
    public ReadYourWrites readYourWrites(Duration maxWait, ClientMetrics metrics) {
        metrics.bindPositionResets(this, ProvenPositions::resets);
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
