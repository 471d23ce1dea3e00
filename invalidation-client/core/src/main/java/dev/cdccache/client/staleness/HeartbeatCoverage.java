package dev.cdccache.client.staleness;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which connector proves which table fresh (docs/client.md, "Per-connector freshness"; the contract is
 * docs/contract.md). Each connector writes its own heartbeat row ({@code id} = its name, {@code ts}, {@code epoch},
 * {@code tables} it captures) and stamps every record with the Kafka header {@code cdc-connector}. A heartbeat
 * proves only the tables of the connector that sent it, so one connector's heartbeats can no longer keep the
 * caches of a stopped one looking fresh.
 *
 * <ul>
 *   <li>Accepted only if {@code after.id} equals the header; otherwise rejected (another writer of the row, or
 *       a connector publishing under a wrong name).</li>
 *   <li>Legacy heartbeats (no header and no {@code tables}, or the old row shape: numeric id, no
 *       {@code epoch}/{@code tables}) cover every table, with one WARN. A new-shape row without the header is
 *       held to the tables it lists (never more than its connector claims).</li>
 *   <li>A {@code ts} more than the tolerance in the future (database clock step, manual UPDATE) is clamped to
 *       now: it must not move a watermark past what has been applied.</li>
 *   <li>After the client is ready, an epoch change of a known connector, or a connector (or table) covered for
 *       the first time, means the entries of those tables cannot be proven (the connector may have skipped part
 *       of the binlog): {@link Outcome#resetTables()} names them for eviction.</li>
 * </ul>
 * The coverage of a table is the latest accepted {@code ts} of any connector that lists it. Used by the consumer
 * thread only; not thread-safe.
 */
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
     * @param tsMillis the heartbeat time used (clamped if it was in the future)
     * @param clamped whether {@code ts} was beyond the tolerance in the future and clamped to now
     * @param resetTables bound tables whose caches must be evicted now (empty if none)
     * @param resetReason why, or {@code null}
     */
    public record Outcome(Status status, String connector, long tsMillis, boolean clamped, Set<String> resetTables,
            ResetReason resetReason) {
    }

    private record Connector(String epoch, Set<String> tables, long tsMillis) {
        boolean covers(String table) {
            return tables == null || tables.contains(table);
        }
    }

    private final Set<String> boundTables;
    private final long futureToleranceMillis;
    private final Map<String, Connector> connectors = new HashMap<>();
    private final Set<String> warnedRejected = new HashSet<>();
    private boolean warnedLegacy;
    private boolean ready;

    /**
     * @param boundTables the {@code database.table} names caches are bound to (compared case-insensitively)
     * @param futureToleranceMillis how far in the future a heartbeat may be dated before it is clamped
     */
    public HeartbeatCoverage(Set<String> boundTables, long futureToleranceMillis) {
        Set<String> normalized = new TreeSet<>();
        boundTables.forEach(t -> normalized.add(normalize(t)));
        this.boundTables = Set.copyOf(normalized);
        this.futureToleranceMillis = futureToleranceMillis;
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
     * @param nowMillis this host's clock
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
            return new Outcome(Status.REJECTED, header, heartbeat.tsMillis(), false, Set.of(), null);
        } else {
            identity = header;
            tables = normalizeAll(heartbeat.tables());
        }
        long ts = heartbeat.tsMillis();
        boolean clamped = ts > nowMillis + futureToleranceMillis;
        if (clamped) {
            ts = nowMillis;
        }
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
        return new Outcome(Status.ACCEPTED, identity, ts, clamped, Set.copyOf(reset), reset.isEmpty() ? null : reason);
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
}
