package dev.cdccache.connector.publish;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.ObjIntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts, record by record in binlog order, the rows each transaction changes per table, and decides which row
 * events are published: the first {@code threshold} rows of a table in one transaction are published as they are;
 * the next one is replaced by one table-wide eviction ({@link Decision#EVICT_TABLE}); every later row event (and
 * tombstone) of that table in that transaction is suppressed. A table whose threshold is 0 is never coalesced.
 *
 * <p>A transaction is recognised by the key its records share (the binlog connectors' resume offset: the file and
 * position of the transaction's start stay the same for all its rows). A new key ends the previous transaction; its
 * coalesced tables are then logged at INFO. The counts start at zero for every transaction, also for one the
 * connector resumes in the middle of after a restart: rows before the resume point were published or covered by an
 * eviction Kafka acknowledged before their offsets were stored, and the rows after it are counted anew.
 *
 * <p>Not thread-safe: the engine's polling thread only.
 */
public final class TransactionCoalescer {

    /** What happens to one record. */
    enum Decision {
        /** Publish the row event as it is. */
        PUBLISH,
        /** This row is one too many: publish one table-wide eviction instead of it and of the table's later rows. */
        EVICT_TABLE,
        /** The table was already evicted for this transaction: publish nothing. */
        SUPPRESS
    }

    private static final Logger log = LoggerFactory.getLogger(TransactionCoalescer.class);

    private final int defaultThreshold;
    private final Map<String, Integer> thresholds;
    /** The current transaction's key, {@code null} before the first record. */
    private Object transaction;
    private String transactionName;
    /** Per table (as published, {@code database.table}): rows of the current transaction. */
    private final Map<String, Counts> counts = new HashMap<>();
    /** Per table: rows suppressed since the last {@link #drainSuppressed}. */
    private final Map<String, Integer> suppressedSinceDrain = new LinkedHashMap<>();

    /**
     * @param defaultThreshold rows per table and transaction published before the rest is replaced; 0 never
     * @param thresholds per lower-case {@code database.table}: its own threshold, over the default
     */
    public TransactionCoalescer(int defaultThreshold, Map<String, Integer> thresholds) {
        if (defaultThreshold < 0 || thresholds.values().stream().anyMatch(t -> t == null || t < 0)) {
            throw new IllegalArgumentException("thresholds must be 0 (never) or a number of rows: " + defaultThreshold
                    + ", " + thresholds);
        }
        this.defaultThreshold = defaultThreshold;
        Map<String, Integer> byTable = new HashMap<>();
        thresholds.forEach((table, rows) -> byTable.put(table.toLowerCase(Locale.ROOT), rows));
        this.thresholds = Map.copyOf(byTable);
    }

    /** A coalescer that never coalesces. */
    public static TransactionCoalescer never() {
        return new TransactionCoalescer(0, Map.of());
    }

    /** Whether any table may be coalesced. */
    boolean enabled() {
        return defaultThreshold > 0 || thresholds.values().stream().anyMatch(t -> t > 0);
    }

    /** The threshold of {@code table} ({@code database.table}); 0 never. */
    int threshold(String table) {
        return thresholds.getOrDefault(table.toLowerCase(Locale.ROOT), defaultThreshold);
    }

    /**
     * Notes the transaction of the next record (any record, heartbeats included: a new key ends the transaction
     * before). {@code key == null} (a record without a resume offset) is a transaction of its own.
     */
    void transaction(Object key) {
        if (key == null || !key.equals(transaction)) {
            endTransaction();
            transaction = key;
            transactionName = null;
        }
    }

    /** How the log line at the end of the current transaction names it (its GTID, or file:pos). */
    void nameTransaction(String name) {
        transactionName = name;
    }

    /**
     * Decides for one record of {@code table} in the current transaction.
     *
     * @param tombstone a delete's tombstone (a {@code null} value): not a row of its own, it follows its delete
     */
    Decision decide(String table, boolean tombstone) {
        Counts c = counts.get(table);
        if (c != null && c.evicted) {
            if (!tombstone) {
                c.suppressed++;
                suppressedSinceDrain.merge(table, 1, Integer::sum);
            }
            return Decision.SUPPRESS;
        }
        if (tombstone) {
            return Decision.PUBLISH;
        }
        int threshold = threshold(table);
        if (threshold <= 0) {
            return Decision.PUBLISH;
        }
        if (c == null) {
            c = new Counts();
            counts.put(table, c);
        }
        if (c.published < threshold) {
            c.published++;
            return Decision.PUBLISH;
        }
        c.evicted = true;
        c.suppressed++;
        suppressedSinceDrain.merge(table, 1, Integer::sum);
        return Decision.EVICT_TABLE;
    }

    /** Row events of {@code table} the current transaction published so far. */
    int published(String table) {
        Counts c = counts.get(table);
        return c == null ? 0 : c.published;
    }

    /** Hands over the rows suppressed per table since the last call, and forgets them. */
    void drainSuppressed(ObjIntConsumer<String> suppressed) {
        if (!suppressedSinceDrain.isEmpty()) {
            suppressedSinceDrain.forEach(suppressed::accept);
            suppressedSinceDrain.clear();
        }
    }

    private void endTransaction() {
        if (counts.isEmpty()) {
            return;
        }
        counts.forEach((table, c) -> {
            if (c.evicted) {
                log.info("Transaction {} changed more than {} rows of {}: published {} row events and one table-wide"
                        + " eviction, suppressed the other {} row events of it",
                        transactionName != null ? transactionName : transaction, threshold(table),
                        table, c.published, c.suppressed);
            }
        });
        counts.clear();
    }

    /** The rows of one table in the current transaction. */
    private static final class Counts {
        int published;
        int suppressed;
        boolean evicted;
    }

    @Override
    public String toString() {
        return "TransactionCoalescer{default=" + defaultThreshold + ", tables=" + thresholds + ", transaction="
                + Objects.toString(transactionName) + "}";
    }
}
