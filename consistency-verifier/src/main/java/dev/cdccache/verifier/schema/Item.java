package dev.cdccache.verifier.schema;

/**
 * A row of {@code verifier_db.item}, as the caches hold it.
 *
 * @param id primary key
 * @param code unique secondary key
 * @param grp group (the list cache's key)
 * @param version unique per write: the writer gives every row it writes a new version
 * @param payload a value derived from the version
 */
public record Item(long id, String code, long grp, long version, String payload) {

    /** The payload the writer stores with a version, so a mixed-up row is visible. */
    public static String payloadOf(long version) {
        return "p" + version;
    }
}
