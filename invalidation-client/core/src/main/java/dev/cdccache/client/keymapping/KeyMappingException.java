package dev.cdccache.client.keymapping;

import dev.cdccache.client.Internal;

/** A row from which a cache key cannot be derived (missing column, value of the wrong type). */
@Internal
public final class KeyMappingException extends Exception {

    private final transient String missingColumn;

    public KeyMappingException(String message) {
        this(message, null);
    }

    private KeyMappingException(String message, String missingColumn) {
        super(message, null, false, false);
        this.missingColumn = missingColumn;
    }

    /** The row lacks {@code column} altogether (not a null value): the connector did not send it. */
    public static KeyMappingException missing(String column) {
        return new KeyMappingException("column '" + column + "' is missing from the row", column);
    }

    /** The column the row lacks, or {@code null} when the failure is another one (null value, wrong type). */
    public String missingColumn() {
        return missingColumn;
    }
}
