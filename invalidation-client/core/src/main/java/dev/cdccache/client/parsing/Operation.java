package dev.cdccache.client.parsing;

/** Debezium's {@code op} codes. */
public enum Operation {
    /** {@code r}: a row read by a snapshot. */
    READ,
    /** {@code c}: insert. */
    CREATE,
    /** {@code u}: update. */
    UPDATE,
    /** {@code d}: delete. */
    DELETE,
    /** {@code t}: TRUNCATE TABLE. */
    TRUNCATE,
    /** {@code m}: a logical-decoding message (PostgreSQL); carries no row. */
    MESSAGE;

    /** The operation of a Debezium code, or {@code null} if the code is unknown. */
    public static Operation ofCode(String code) {
        if (code == null || code.length() != 1) {
            return null;
        }
        return switch (code.charAt(0)) {
            case 'r' -> READ;
            case 'c' -> CREATE;
            case 'u' -> UPDATE;
            case 'd' -> DELETE;
            case 't' -> TRUNCATE;
            case 'm' -> MESSAGE;
            default -> null;
        };
    }
}
