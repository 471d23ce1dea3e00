package dev.cdccache.client.parsing;

import dev.cdccache.client.Internal;
import java.util.Objects;
import java.util.Set;

/**
 * Which columns of the row images ({@code before}/{@code after}) {@link EnvelopeParser} keeps in a
 * {@link ChangeEvent}. The values of the others are skipped without being decoded, which is most of the
 * parsing cost of a wide row. Immutable and thread-safe.
 *
 * <p>Keeping fewer columns never changes what an event means to the caches: a row image is still an object
 * (possibly empty) when the envelope has one, a kept column that is absent from the row stays absent, and every
 * other field of the envelope is read as before. It only changes what an {@code InvalidationListener} could see,
 * which is why the consumer keeps every column as soon as a listener is registered.
 */
@Internal
public final class RowColumns {

    private static final RowColumns ALL = new RowColumns(null);

    /** {@code null}: every column. */
    private final Set<String> names;

    private RowColumns(Set<String> names) {
        this.names = names;
    }

    /** Every column, values exactly as a JSON tree parse of the row would hold them. */
    public static RowColumns all() {
        return ALL;
    }

    /**
     * Only the columns named (compared exactly, as key mappings look columns up).
     *
     * @param names the columns to keep, not {@code null}; empty keeps none (the rows stay empty objects)
     */
    public static RowColumns only(Set<String> names) {
        return new RowColumns(Set.copyOf(names));
    }

    /** Whether the value of {@code column} is kept. */
    boolean keeps(String column) {
        return names == null || names.contains(column);
    }

    /** Whether every column is kept. */
    public boolean keepsAll() {
        return names == null;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof RowColumns that && Objects.equals(names, that.names);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(names);
    }

    @Override
    public String toString() {
        return names == null ? "all columns" : "columns " + names;
    }
}
