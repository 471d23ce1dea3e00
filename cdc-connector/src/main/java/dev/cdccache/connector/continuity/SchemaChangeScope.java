package dev.cdccache.connector.continuity;

import dev.cdccache.connector.config.CapturedTable;
import java.util.Collection;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Decides whether a schema change the binlog holds concerns the captured tables: whether it names one of them (or,
 * for {@code DROP DATABASE}, one of their databases) as a word, with or without backquotes. A name qualified with a
 * database counts when that database and table are captured; an unqualified one when the statement's default
 * database (its session's {@code USE}) and the table are, or when the default database is unknown. Deliberately
 * broad otherwise: a column of a captured table's database that shares a captured table's name makes a statement
 * concern it too, which costs the clients one drop of their caches, while a missed one would leave them serving rows
 * a swapped-in table replaced.
 */
public final class SchemaChangeScope {

    private final java.util.Set<String> captured;
    private final Pattern tables;
    private final Pattern databases;

    /** @param captured the tables whose rows clients cache (not the heartbeat table) */
    public SchemaChangeScope(Collection<CapturedTable> captured) {
        this.captured = captured.stream().map(t -> key(t.database(), t.table())).collect(Collectors.toSet());
        String names = captured.stream().map(CapturedTable::table).distinct().map(Pattern::quote)
                .collect(Collectors.joining("|"));
        // an optional database in front, then the table, neither part of a longer identifier
        this.tables = Pattern.compile("(?<![\\w$])(?:`?([\\w$]+)`?\\s*\\.\\s*)?`?(" + (names.isEmpty() ? "(?!)" : names)
                + ")`?(?![\\w$])", Pattern.CASE_INSENSITIVE);
        this.databases = anyWord(captured.stream().map(CapturedTable::database).collect(Collectors.toSet()));
    }

    private static String key(String database, String table) {
        return database.toLowerCase(java.util.Locale.ROOT) + "." + table.toLowerCase(java.util.Locale.ROOT);
    }

    private static Pattern anyWord(Collection<String> names) {
        String alternatives = names.stream().map(Pattern::quote).collect(Collectors.joining("|"));
        return Pattern.compile("(?<![\\w$])(?:" + (alternatives.isEmpty() ? "(?!)" : alternatives) + ")(?![\\w$])",
                Pattern.CASE_INSENSITIVE);
    }

    /** Whether {@code sql} is a schema change that may rewrite the rows of a captured table (no default database). */
    public boolean concernsCaptured(String sql) {
        return concernsCaptured(sql, "");
    }

    /**
     * Whether {@code sql} is a schema change that may rewrite the rows of a captured table.
     *
     * @param defaultDatabase the statement's default database, empty when unknown
     */
    public boolean concernsCaptured(String sql, String defaultDatabase) {
        return switch (UnreadableChangeClassifier.schemaChangeOf(sql)) {
            case NONE -> false;
            case TABLES -> namesCapturedTable(sql, defaultDatabase);
            case DATABASE -> databases.matcher(sql).find();
        };
    }

    /**
     * Whether {@code sql} is a plain {@code CREATE TABLE} (not a temporary one) of a captured table: the table it creates,
     * not one it copies or refers to ({@code LIKE}, {@code REFERENCES}, {@code AS SELECT}).
     */
    boolean createsCapturedTable(String sql, String defaultDatabase) {
        java.util.regex.Matcher m = CREATE_TABLE.matcher(sql).region(UnreadableChangeClassifier.statementStart(sql),
                sql.length());
        if (!m.lookingAt()) {
            return false;
        }
        String database = m.group(1) != null ? m.group(1) : defaultDatabase;
        return captured.contains(key(database, m.group(2)))
                || database.isEmpty() && captured.stream().anyMatch(t -> t.endsWith("." + m.group(2).toLowerCase(java.util.Locale.ROOT)));
    }

    /** {@code CREATE TABLE [IF NOT EXISTS] [db.]table}: the database (or null) and the table. */
    private static final Pattern CREATE_TABLE = Pattern.compile("CREATE\\s+TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?"
            + "(?:`?([\\w$]+)`?\\s*\\.\\s*)?`?([\\w$]+)`?", Pattern.CASE_INSENSITIVE);

    private boolean namesCapturedTable(String sql, String defaultDatabase) {
        java.util.regex.Matcher m = tables.matcher(sql);
        while (m.find()) {
            String database = m.group(1) != null ? m.group(1) : defaultDatabase;
            if (database.isEmpty() || captured.contains(key(database, m.group(2)))) {
                return true;
            }
        }
        return false;
    }
}
