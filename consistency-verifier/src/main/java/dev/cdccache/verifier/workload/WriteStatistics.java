package dev.cdccache.verifier.workload;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** Counts of what the writer committed. */
public final class WriteStatistics {

    private final Map<WriteKind, AtomicLong> transactions = new EnumMap<>(WriteKind.class);
    private final Map<WriteKind, AtomicLong> rows = new EnumMap<>(WriteKind.class);
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong ambiguousCommitted = new AtomicLong();

    public WriteStatistics() {
        for (WriteKind kind : WriteKind.values()) {
            transactions.put(kind, new AtomicLong());
            rows.put(kind, new AtomicLong());
        }
    }

    void committed(WriteKind kind, int rowChanges) {
        transactions.get(kind).incrementAndGet();
        rows.get(kind).addAndGet(rowChanges);
    }

    void failed() {
        failures.incrementAndGet();
    }

    void ambiguousButCommitted() {
        ambiguousCommitted.incrementAndGet();
    }

    public long transactions(WriteKind kind) {
        return transactions.get(kind).get();
    }

    /** Rows changed (for rolled-back transactions: rows changed and then rolled back). */
    public long rows(WriteKind kind) {
        return rows.get(kind).get();
    }

    public long totalTransactions() {
        return transactions.values().stream().mapToLong(AtomicLong::get).sum()
                - transactions(WriteKind.ROLLED_BACK);
    }

    public long totalRowChanges() {
        return rows.entrySet().stream().filter(e -> e.getKey() != WriteKind.ROLLED_BACK)
                .mapToLong(e -> e.getValue().get()).sum();
    }

    /** Transactions whose commit threw (the outcome was then read back from the database). */
    public long failures() {
        return failures.get();
    }

    /** Of {@link #failures()}, those that had committed nonetheless. */
    public long ambiguousCommitted() {
        return ambiguousCommitted.get();
    }
}
