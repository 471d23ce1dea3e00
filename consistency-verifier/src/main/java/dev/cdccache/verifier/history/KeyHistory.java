package dev.cdccache.verifier.history;

import java.util.Arrays;
import java.util.function.LongFunction;

/**
 * The committed states of one cache key over time, as the writer knows them: for each state a token
 * (what the cache value of the key is: a row version, {@link Tokens#ABSENT}, a hash of a list), the time
 * its commit started (before {@code commit()} was called) and the time it ended ({@code commit()} returned).
 *
 * <p>A reader that saw a token during a read that ran from {@code readStart} to {@code readEnd} saw a
 * <em>fresh</em> value if a state with that token could have been the committed one at some point of the
 * read: its commit had started by {@code readEnd} and the next state's commit had not ended before
 * {@code readStart}. Otherwise the value is <em>stale</em> by {@code readStart} minus the commit end of the
 * state that replaced it, or a <em>phantom</em> when no committed state ever had that token.
 *
 * <p>Thread-safe: the writer appends, readers classify concurrently.
 */
public final class KeyHistory {

    /** Marks a commit that has started but not yet returned. */
    public static final long PENDING = Long.MAX_VALUE;
    /** {@link #classify} result: the value was the committed one at some point of the read. */
    public static final long FRESH = -1;
    /** {@link #classify} result: no committed state ever had the token. */
    public static final long PHANTOM = -2;

    private long[] tokens = new long[4];
    private long[] starts = new long[4];
    private long[] ends = new long[4];
    private int size;
    private final boolean absentEquivalent;

    /**
     * @param initialToken the state since before the run (commit times {@link Long#MIN_VALUE})
     * @param absentEquivalent whether every token {@code <= 0} means the same thing (no row), as for row
     *        caches where a deletion and a truncation both leave the key absent
     */
    public KeyHistory(long initialToken, boolean absentEquivalent) {
        this.absentEquivalent = absentEquivalent;
        tokens[0] = initialToken;
        starts[0] = Long.MIN_VALUE;
        ends[0] = Long.MIN_VALUE;
        size = 1;
    }

    /** Appends a state whose commit starts now; returns its index for {@link #complete}. */
    public synchronized int appendPending(long token, long commitStart) {
        if (size == tokens.length) {
            int capacity = size * 2;
            tokens = Arrays.copyOf(tokens, capacity);
            starts = Arrays.copyOf(starts, capacity);
            ends = Arrays.copyOf(ends, capacity);
        }
        tokens[size] = token;
        starts[size] = commitStart;
        ends[size] = PENDING;
        return size++;
    }

    /** The commit of state {@code index} returned at {@code commitEnd}. */
    public synchronized void complete(int index, long commitEnd) {
        ends[index] = commitEnd;
    }

    /** Removes the last state: its transaction turned out not to be committed. */
    public synchronized void discard(int index) {
        if (index != size - 1) {
            throw new IllegalStateException("only the last state can be discarded");
        }
        size--;
    }

    /**
     * Classifies a value seen by a read.
     *
     * @return {@link #FRESH}, {@link #PHANTOM}, or the staleness in the clock's unit (>= 0)
     */
    public synchronized long classify(long token, long readStart, long readEnd) {
        for (int i = size - 1; i >= 0; i--) {
            if (starts[i] != Long.MIN_VALUE && starts[i] > readEnd) {
                continue; // committed after the read: cannot have been seen
            }
            if (!matches(tokens[i], token)) {
                continue;
            }
            long replacedAt = i + 1 < size ? ends[i + 1] : PENDING;
            return replacedAt > readStart ? FRESH : readStart - replacedAt;
        }
        return PHANTOM;
    }

    /** The commit end of the latest state with exactly {@code token}, or {@link Long#MIN_VALUE}; pending gives {@link #PENDING}. */
    public synchronized long commitEndOf(long token) {
        for (int i = size - 1; i >= 0; i--) {
            if (tokens[i] == token) {
                return ends[i];
            }
        }
        return Long.MIN_VALUE;
    }

    /** The number of states, the initial one included. */
    public synchronized int size() {
        return size;
    }

    /** The last {@code count} states, oldest first, each as "token@[start..end]" with times formatted by {@code time}. */
    public synchronized String describeLast(int count, LongFunction<String> tokenText, LongFunction<String> time) {
        StringBuilder text = new StringBuilder();
        for (int i = Math.max(0, size - count); i < size; i++) {
            if (text.length() > 0) {
                text.append(", ");
            }
            text.append(tokenText.apply(tokens[i])).append(" committed ")
                    .append(starts[i] == Long.MIN_VALUE ? "before the run" : time.apply(starts[i]) + ".."
                            + (ends[i] == PENDING ? "pending" : time.apply(ends[i])));
        }
        return text.toString();
    }

    private boolean matches(long stateToken, long seen) {
        return stateToken == seen || (absentEquivalent && stateToken <= 0 && seen <= 0);
    }
}
