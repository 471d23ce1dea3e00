package dev.cdccache.contract;

/**
 * An oversized change event (docs/contract.md, "Oversized events"). A change event larger than the producer's
 * {@code max.request.size} (or than the topic accepts) is published reduced: the same envelope, key, topic and
 * headers, but {@code before}/{@code after} keep only the primary-key columns, and a top-level
 * {@value #TRUNCATED_COLUMNS} array names the columns removed. A client evicts by key where its key columns survived
 * and evicts the whole cache otherwise.
 */
public final class ReducedEvent {

    /** Top-level field of a reduced event: the names of the columns removed from {@code before}/{@code after}. */
    public static final String TRUNCATED_COLUMNS = "truncated_columns";

    /**
     * Stands for "some columns, not known which": an entry of {@value #TRUNCATED_COLUMNS} that a reader could not
     * take as a column name (or the whole marker, when it is not an array of names). A cache whose key columns may
     * be among them is evicted whole.
     */
    public static final String UNKNOWN_COLUMNS = "*";

    private ReducedEvent() {
    }
}
