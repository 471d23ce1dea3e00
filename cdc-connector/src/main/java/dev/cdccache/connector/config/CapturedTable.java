package dev.cdccache.connector.config;

import dev.cdccache.contract.ChangeTopics;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A captured table, named {@code database.table}, and the topic its changes go to.
 *
 * @param database the database (schema) name
 * @param table the table name
 */
public record CapturedTable(String database, String table) {

    private static final Pattern REGEX_SPECIALS = Pattern.compile("[\\\\^$.|?*+()\\[\\]{}]");

    public CapturedTable {
        Objects.requireNonNull(database, "database");
        Objects.requireNonNull(table, "table");
    }

    /**
     * Parses {@code database.table}.
     *
     * @throws IllegalArgumentException if the name is not exactly two dot-separated parts
     */
    public static CapturedTable parse(String qualifiedName) {
        String[] parts = qualifiedName.trim().split("\\.", -1);
        if (parts.length != 2 || parts[0].isEmpty() || parts[1].isEmpty()) {
            throw new IllegalArgumentException("'" + qualifiedName + "' is not of the form database.table");
        }
        return new CapturedTable(parts[0], parts[1]);
    }

    /** {@code database.table}. */
    public String qualifiedName() {
        return database + "." + table;
    }

    /** The change topic, {@code <prefix>.<database>.<table>} (Debezium's default topic naming). */
    public String topic(String topicPrefix) {
        return ChangeTopics.of(topicPrefix, database, table);
    }

    /** The name as an exact-match regular expression, as Debezium's include lists expect. */
    public String includeListPattern() {
        return escapeRegex(qualifiedName());
    }

    /** Escapes regex metacharacters so that a literal name matches only itself. */
    static String escapeRegex(String literal) {
        return REGEX_SPECIALS.matcher(literal).replaceAll("\\\\$0");
    }

    @Override
    public String toString() {
        return qualifiedName();
    }
}
