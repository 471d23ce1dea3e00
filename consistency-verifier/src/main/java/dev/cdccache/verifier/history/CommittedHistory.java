package dev.cdccache.verifier.history;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Everything the writer committed, per cache key, with commit times: the ground truth every served value
 * and every delivered event is judged against.
 *
 * <p>For each cache there is one {@link KeyHistory} per key: by id, by code, by group, and one for the
 * table-wide aggregate. Besides, the <em>delivery ledger</em> lists, per row id, the change events every
 * client instance must receive: {@code +version} for an insert or update, {@code -version} (the version
 * removed) for a delete; truncations are listed separately because they produce one event per table.
 */
public final class CommittedHistory {

    private final KeyHistory[] byId;
    private final Map<String, KeyHistory> byCode = new ConcurrentHashMap<>();
    private final KeyHistory[] byGroup;
    private final KeyHistory stats;
    private final LongList[] expectedEvents;
    private final LongList truncations = new LongList();
    /** Committed transactions a connector may coalesce, by their commit start (unique per commit). */
    private final Map<Long, Coalescible> coalescible = new ConcurrentHashMap<>();

    /**
     * A transaction of several row changes that a connector may coalesce.
     *
     * @param gtid its GTID, which its coalesced eviction names
     * @param rows the rows of the table it changed: each is one row event in the binlog
     */
    public record Coalescible(String gtid, int rows) {
    }

    /**
     * @param idSpace ids are 1..idSpace
     * @param groups groups are 0..groups-1
     */
    public CommittedHistory(int idSpace, int groups) {
        byId = new KeyHistory[idSpace + 1];
        expectedEvents = new LongList[idSpace + 1];
        for (int id = 1; id <= idSpace; id++) {
            byId[id] = new KeyHistory(Tokens.ABSENT, true);
            expectedEvents[id] = new LongList();
        }
        byGroup = new KeyHistory[groups];
        for (int g = 0; g < groups; g++) {
            byGroup[g] = new KeyHistory(Tokens.emptyGroup(), false);
        }
        stats = new KeyHistory(Tokens.ofStats(0, 0), false);
    }

    public int idSpace() {
        return byId.length - 1;
    }

    public int groups() {
        return byGroup.length;
    }

    public KeyHistory ofId(long id) {
        return byId[(int) id];
    }

    public KeyHistory ofCode(String code) {
        return byCode.computeIfAbsent(code, c -> new KeyHistory(Tokens.ABSENT, true));
    }

    public KeyHistory ofGroup(long grp) {
        return byGroup[(int) grp];
    }

    public KeyHistory ofStats() {
        return stats;
    }

    /** Records that a committed change of row {@code id} must reach every instance. */
    public void expectEvent(long id, long eventCode, long commitStart, long commitEnd) {
        LongList list = expectedEvents[(int) id];
        synchronized (list) {
            list.add(eventCode, commitStart);
            list.add(commitEnd);
        }
    }

    /** {@code [eventCode, commitStart, commitEnd]} triples of row {@code id}, in commit order. */
    public long[] expectedEvents(long id) {
        return expectedEvents[(int) id].toArray();
    }

    /**
     * Records the GTID of the committed transaction that started at {@code commitStart}: a connector may publish its
     * row changes after the first ones as one table-wide eviction (docs/connector.md, "Large transactions"), which
     * delivers every change of the transaction that did not arrive as a row event.
     */
    public void expectCoalescible(long commitStart, String gtid, int rows) {
        coalescible.put(commitStart, new Coalescible(gtid, rows));
    }

    /** The coalescible transaction that started at {@code commitStart}, or {@code null}. */
    public Coalescible coalescibleTransaction(long commitStart) {
        return coalescible.get(commitStart);
    }

    public void expectTruncation(long commitStart, long commitEnd) {
        truncations.add(commitStart, commitEnd);
    }

    /** {@code [commitStart, commitEnd]} pairs of every TRUNCATE. */
    public long[] truncations() {
        return truncations.toArray();
    }

    /** Number of committed row changes the ledger holds. */
    public long expectedEventCount() {
        long n = 0;
        for (int id = 1; id < expectedEvents.length; id++) {
            n += expectedEvents[id].size() / 3;
        }
        return n;
    }

    /** Entries of a commit in flight, completed or discarded together. */
    public static final class PendingCommit {
        private final List<KeyHistory> histories = new ArrayList<>();
        private final LongList indexes = new LongList();
        private final long commitStart;

        public PendingCommit(long commitStart) {
            this.commitStart = commitStart;
        }

        public long commitStart() {
            return commitStart;
        }

        public void append(KeyHistory history, long token) {
            histories.add(history);
            indexes.add(history.appendPending(token, commitStart));
        }

        public void complete(long commitEnd) {
            for (int i = 0; i < histories.size(); i++) {
                histories.get(i).complete((int) indexes.get(i), commitEnd);
            }
        }

        public void discard() {
            for (int i = histories.size() - 1; i >= 0; i--) {
                histories.get(i).discard((int) indexes.get(i));
            }
        }
    }
}
