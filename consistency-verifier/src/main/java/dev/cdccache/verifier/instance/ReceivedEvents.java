package dev.cdccache.verifier.instance;

import dev.cdccache.verifier.history.LongList;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What one client instance applied, across all its incarnations: per row id the events
 * ({@code +version} for an insert or update, {@code -version} for a delete, duplicates included), and the
 * times truncations were applied, and the transactions whose rest arrived as one table-wide (coalesced) eviction.
 */
public final class ReceivedEvents {

    private final LongList[] byId;
    private final LongList truncations = new LongList();
    /**
     * When each coalesced eviction was applied and how many row events it says came before it, as pairs, by
     * transaction (a connector restart may publish one again).
     */
    private final Map<String, LongList> coalesced = new ConcurrentHashMap<>();

    public ReceivedEvents(int idSpace) {
        byId = new LongList[idSpace + 1];
        for (int id = 0; id <= idSpace; id++) {
            byId[id] = new LongList();
        }
    }

    /** Records an applied event of row {@code id}: {@code +version} (insert, update) or {@code -version} (delete). */
    public void event(long id, long eventCode) {
        if (id > 0 && id < byId.length) {
            byId[(int) id].add(eventCode);
        }
    }

    /** Records a TRUNCATE applied at {@code appliedAt} (a {@code RunClock} stamp). */
    public void truncation(long appliedAt) {
        truncations.add(appliedAt);
    }

    /**
     * Records a coalesced eviction applied at {@code appliedAt} (a {@code RunClock} stamp) for {@code transaction}
     * (its GTID; empty when the event names none), after {@code rowsPublished} row events of the transaction, as the
     * connector counted them ({@code -1}: not said).
     */
    public void coalescedEviction(String transaction, long appliedAt, long rowsPublished) {
        if (!transaction.isEmpty()) {
            coalesced.computeIfAbsent(transaction, t -> new LongList()).add(appliedAt, rowsPublished);
        }
    }

    /**
     * The most row events any coalesced eviction of {@code transaction} applied between {@code from} and {@code to}
     * (inclusive) says came before it ({@code 0} where it does not say); {@link #NOT_EVICTED} if none was applied
     * then, or for {@code null}. One applied by a later incarnation does not deliver a change owed to an earlier.
     */
    public long coalescedAfterRows(String transaction, long from, long to) {
        LongList applied = transaction == null ? null : coalesced.get(transaction);
        if (applied == null) {
            return NOT_EVICTED;
        }
        long rows = NOT_EVICTED;
        long[] pairs = applied.toArray();
        for (int i = 0; i < pairs.length; i += 2) {
            if (pairs[i] >= from && pairs[i] <= to) {
                rows = Math.max(rows, Math.max(0, pairs[i + 1]));
            }
        }
        return rows;
    }

    /** {@link #coalescedAfterRows}: no coalesced eviction of the transaction was applied in the window. */
    public static final long NOT_EVICTED = -1;

    public long[] events(long id) {
        return byId[(int) id].toArray();
    }

    public long[] truncations() {
        return truncations.toArray();
    }

    public long total() {
        long n = 0;
        for (LongList list : byId) {
            n += list.size();
        }
        return n;
    }
}
