package dev.cdccache.client.staleness;

import dev.cdccache.client.Internal;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which connectors prove which tables and topics fresh (docs/client.md, "Per-connector freshness"; the contract is
 * docs/contract.md). Each connector writes its own heartbeat row ({@code id} = its name, {@code ts}, {@code epoch},
 * {@code tables} it captures) and stamps every record with the Kafka header {@code cdc-connector}. A heartbeat
 * proves only what the connector that sent it publishes, so one connector's heartbeats can never keep the caches
 * of a stopped one looking fresh.
 *
 * <ul>
 *   <li>Accepted only if {@code after.id} equals the header; otherwise rejected (another writer of the row, or
 *       a connector publishing under a wrong name).</li>
 *   <li>Legacy heartbeats (no header and no {@code tables}, or the old row shape: numeric id, no
 *       {@code epoch}/{@code tables}) cover every table, with one WARN. A new-shape row without the header is
 *       held to the tables it lists (never more than its connector claims).</li>
 *   <li>A topic is fed by every connector whose heartbeat lists one of its bound tables, and by every connector
 *       whose header its data records carry (several connectors can publish one table name into one topic:
 *       shards sharing a schema, rerouted topics). It is proven only as far as the least recent heartbeat of
 *       those connectors ({@link #coverageOfTopic}); a feeder with no heartbeat yet proves nothing. Feeders are
 *       learned from what this client reads after it starts, and never forgotten while it runs: a connector
 *       retired for good keeps its topics from being proven until the client restarts.</li>
 *   <li>A heartbeat dated ahead of this host's clock proves nothing beyond this host's "now" minus the
 *       measured skew of its connector's database clock ({@link ClockSkew}): {@code min(ts, now) - skew}.</li>
 *   <li>After the client is ready, an epoch change of a known connector, or a connector (or table) covered for
 *       the first time, means the entries of those tables cannot be proven (the connector may have skipped part
 *       of the binlog): {@link Outcome#resetTables()} names them for eviction; a connector first seen feeding a
 *       topic does the same for that topic ({@link #fedBy}).</li>
 * </ul>
 * Used by the consumer thread only; not thread-safe.
 */
@Internal
public final class HeartbeatCoverage {

    private static final Logger LOG = LoggerFactory.getLogger(HeartbeatCoverage.class);

    /** Coverage of a table no accepted heartbeat covers. */
    public static final long UNCOVERED = Long.MIN_VALUE;

    /** A parsed heartbeat row; {@code epoch}/{@code tables} are {@code null} in the old row shape. */
    public record Heartbeat(String id, boolean numericId, long tsMillis, String epoch, Set<String> tables) {
    }

    /** What accepting a heartbeat did. */
    public enum Status { ACCEPTED, REJECTED }

    /** Why caches must be evicted after a heartbeat. */
    public enum ResetReason {
        /** A known connector changed its epoch: it could not prove continuity (purged binlog, lost offsets...). */
        EPOCH_CHANGE("epoch_change"),
        /** A connector, or a table of a known connector, began to be covered after the client was ready. */
        NEW_COVERAGE("new_coverage");

        private final String tag;

        ResetReason(String tag) {
            this.tag = tag;
        }

        public String tag() {
            return tag;
        }
    }

    /**
     * @param status accepted or rejected
     * @param connector the connector identity the heartbeat was attributed to
     * @param tsMillis what the heartbeat proves: {@code min(ts, now) - skewMillis}
     * @param aheadMillis how far {@code ts} was ahead of this host's clock when received (0 if not ahead)
     * @param skewMillis the measured skew of the connector's database clock, this heartbeat included
     * @param resetTables bound tables whose caches must be evicted now (empty if none)
     * @param resetReason why, or {@code null}
     */
    public record Outcome(Status status, String connector, long tsMillis, long aheadMillis, long skewMillis,
            Set<String> resetTables, ResetReason resetReason) {
    }

    private record Connector(String epoch, Set<String> tables, long tsMillis) {
        boolean covers(String table) {
            return tables == null || tables.contains(table);
        }
    }

    private final Set<String> boundTables;
    /** Each bound topic's tables (lower-case). */
    private final Map<String, Set<String>> tablesByTopic;
    private final Map<String, Connector> connectors = new HashMap<>();
    /** Per bound topic: the connectors its data records named in their header. */
    private final Map<String, Set<String>> headerFeeders = new HashMap<>();
    private final ClockSkew skew = new ClockSkew();
    private final Set<String> warnedRejected = new HashSet<>();
    private boolean warnedLegacy;
    private boolean ready;

    /**
     * @param boundTablesByTopic each topic caches are bound to, with the {@code database.table} names read from it
     *        (compared case-insensitively)
     */
    public HeartbeatCoverage(Map<String, Set<String>> boundTablesByTopic) {
        Set<String> all = new TreeSet<>();
        Map<String, Set<String>> byTopic = new HashMap<>();
        boundTablesByTopic.forEach((topic, tables) -> {
            Set<String> normalized = new TreeSet<>();
            tables.forEach(t -> normalized.add(normalize(t)));
            byTopic.put(topic, Set.copyOf(normalized));
            all.addAll(normalized);
        });
        this.boundTables = Set.copyOf(all);
        this.tablesByTopic = Map.copyOf(byTopic);
    }

    private static String normalize(String table) {
        return table.trim().toLowerCase(Locale.ROOT);
    }

    /** From now on, new coverage and epoch changes reset the caches of their tables (before, nothing is cached). */
    public void markReady() {
        ready = true;
    }

    /**
     * Applies one heartbeat.
     *
     * @param header the {@code cdc-connector} header of the record, or {@code null} if absent
     * @param nowMillis this host's clock when the heartbeat was received
     */
    public Outcome accept(String header, Heartbeat heartbeat, long nowMillis) {
        boolean oldShape = heartbeat.numericId() || heartbeat.epoch() == null || heartbeat.tables() == null;
        String identity;
        Set<String> tables;
        if (oldShape || header == null) {
            if (!warnedLegacy) {
                warnedLegacy = true;
                LOG.warn("Legacy connector heartbeat (id {}{}): accepted as {}. Upgrade the connector so that each "
                        + "connector proves only its own tables (docs/client.md, per-connector freshness)",
                        heartbeat.id(), header == null ? ", no cdc-connector header" : ", old heartbeat row shape",
                        oldShape ? "covering every table" : "covering the tables it lists");
            }
            identity = "legacy:" + (header != null ? header : heartbeat.id());
            tables = oldShape ? null : normalizeAll(heartbeat.tables());
        } else if (!header.equals(heartbeat.id())) {
            if (warnedRejected.add(heartbeat.id() + "|" + header)) {
                LOG.warn("Rejected a heartbeat of row id '{}' published by connector '{}' (header cdc-connector): a "
                        + "connector proves freshness only with its own row. Another connector or a manual UPDATE "
                        + "wrote it; give every connector its own name", heartbeat.id(), header);
            }
            return new Outcome(Status.REJECTED, header, heartbeat.tsMillis(), 0, 0, Set.of(), null);
        } else {
            identity = header;
            tables = normalizeAll(heartbeat.tables());
        }
        // It cannot have been written after it was received: a lead is the database clock's, at least. What the
        // heartbeat proves is this host's time, less that skew: never a moment not yet reached here.
        long measuredSkew = skew.record(identity, heartbeat.tsMillis(), nowMillis);
        long ts = Math.min(heartbeat.tsMillis(), nowMillis) - measuredSkew;
        Connector previous = connectors.get(identity);
        Set<String> reset = new TreeSet<>();
        ResetReason reason = null;
        if (previous == null) {
            if (ready) {
                reset.addAll(coveredBound(tables));
                reason = ResetReason.NEW_COVERAGE;
                LOG.info("Connector '{}' now proves {}; evicting the caches of those tables (entries loaded before "
                        + "could not be proven)", identity, reset);
            }
        } else if (heartbeat.epoch() != null && previous.epoch() != null && !heartbeat.epoch().equals(previous.epoch())) {
            if (ready) {
                reset.addAll(coveredBound(previous.tables()));
                reset.addAll(coveredBound(tables));
                reason = ResetReason.EPOCH_CHANGE;
                LOG.warn("Connector '{}' changed its epoch ({} -> {}): it could not prove it read the binlog without "
                        + "a gap (see its log and health). Evicting the caches of {}", identity, previous.epoch(),
                        heartbeat.epoch(), reset);
            }
        } else if (ready) {
            Set<String> added = new TreeSet<>(coveredBound(tables));
            added.removeAll(coveredBound(previous.tables()));
            if (!added.isEmpty()) {
                reset.addAll(added);
                reason = ResetReason.NEW_COVERAGE;
                LOG.info("Connector '{}' now also proves {}; evicting the caches of those tables", identity, added);
            }
        }
        long newTs = previous == null ? ts : Math.max(previous.tsMillis(), ts);
        connectors.put(identity, new Connector(heartbeat.epoch(), tables, newTs));
        return new Outcome(Status.ACCEPTED, identity, ts, Math.max(0, heartbeat.tsMillis() - nowMillis), measuredSkew,
                Set.copyOf(reset), reset.isEmpty() ? null : reason);
    }

    private static Set<String> normalizeAll(Set<String> tables) {
        Set<String> normalized = new HashSet<>();
        for (String table : tables) {
            if (!table.isBlank()) {
                normalized.add(normalize(table));
            }
        }
        return normalized;
    }

    private Set<String> coveredBound(Set<String> tables) {
        if (tables == null) {
            return boundTables;
        }
        Set<String> covered = new TreeSet<>(tables);
        covered.retainAll(boundTables);
        return covered;
    }

    /** The coverage of {@code table}: the latest accepted heartbeat time of a connector listing it, or {@link #UNCOVERED}. */
    public long coverage(String table) {
        String t = normalize(table);
        long best = UNCOVERED;
        for (Connector connector : connectors.values()) {
            if (connector.covers(t) && connector.tsMillis() > best) {
                best = connector.tsMillis();
            }
        }
        return best;
    }

    /** The coverage of every bound table (lower-case names), {@link #UNCOVERED} where none. */
    public Map<String, Long> coverageOfBoundTables() {
        Map<String, Long> coverage = new HashMap<>();
        for (String table : boundTables) {
            coverage.put(table, coverage(table));
        }
        return coverage;
    }

    /**
     * A data record of {@code topic} carried the header of {@code connector}: it feeds that topic, whose proof
     * from now on waits for its heartbeats too.
     *
     * @return whether it is a new feeder of the topic after the client became ready: entries of the topic's caches
     *         loaded before cannot be proven (nothing said that connector's changes were being waited for)
     */
    public boolean fedBy(String topic, String connector) {
        Set<String> known = headerFeeders.computeIfAbsent(topic, t -> new HashSet<>());
        if (known.contains(connector)) {
            return false;
        }
        boolean listed = feeders(topic).containsKey(resolve(connector));
        known.add(connector);
        if (listed) {
            return false;
        }
        LOG.info("Connector '{}' publishes into {}: its caches are proven fresh only as far as its heartbeats too",
                connector, topic);
        return ready;
    }

    /**
     * How far {@code topic} is proven: the least recent heartbeat of the connectors feeding it, or
     * {@link #UNCOVERED} if none feeds it or one of them has sent no heartbeat yet.
     */
    public long coverageOfTopic(String topic) {
        Map<String, Long> feeders = feeders(topic);
        if (feeders.isEmpty()) {
            return UNCOVERED;
        }
        long least = Long.MAX_VALUE;
        for (long ts : feeders.values()) {
            if (ts == UNCOVERED) {
                return UNCOVERED;
            }
            least = Math.min(least, ts);
        }
        return least;
    }

    /** The coverage of every bound topic ({@link #coverageOfTopic}). */
    public Map<String, Long> coverageOfBoundTopics() {
        Map<String, Long> coverage = new HashMap<>();
        for (String topic : tablesByTopic.keySet()) {
            coverage.put(topic, coverageOfTopic(topic));
        }
        return coverage;
    }

    /**
     * The connectors feeding {@code topic} (those whose heartbeat lists one of its bound tables, or covers every
     * table, and those named by the header of its data records), each with its latest proven time, or
     * {@link #UNCOVERED} for one with no heartbeat yet; sorted by name.
     */
    public Map<String, Long> feeders(String topic) {
        Map<String, Long> feeders = new TreeMap<>();
        Set<String> tables = tablesByTopic.getOrDefault(topic, Set.of());
        connectors.forEach((identity, connector) -> {
            if (connector.tables() == null || tables.stream().anyMatch(connector::covers)) {
                feeders.put(identity, connector.tsMillis());
            }
        });
        for (String name : headerFeeders.getOrDefault(topic, Set.of())) {
            String identity = resolve(name);
            Connector connector = connectors.get(identity);
            feeders.put(identity, connector == null ? UNCOVERED : connector.tsMillis());
        }
        return feeders;
    }

    /** The identity heartbeats of the connector named {@code name} in headers are accepted under. */
    private String resolve(String name) {
        return connectors.containsKey(name) || !connectors.containsKey("legacy:" + name) ? name : "legacy:" + name;
    }

    /** Every connector whose database clock is measurably ahead of this host's at {@code nowMillis}, by name. */
    public Map<String, Long> clockSkews(long nowMillis) {
        return skew.ahead(nowMillis);
    }
}
