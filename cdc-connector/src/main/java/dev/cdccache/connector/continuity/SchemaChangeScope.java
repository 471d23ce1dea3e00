package dev.cdccache.connector.continuity;

import dev.cdccache.connector.config.CapturedTable;
import java.util.Collection;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Decides whether a schema change the binlog holds concerns the captured tables: whether it names one of them (or,
 * for {@code DROP DATABASE}, one of their databases) as a word, with or without backquotes and a database in front.
 * Deliberately broad: a column that shares a captured table's name makes a statement concern it too, which costs the
 * clients one drop of their caches, while a missed one would leave them serving rows a swapped-in table replaced.
 */
public final class SchemaChangeScope {

    private final Pattern tables;
    private final Pattern databases;

    /** @param captured the tables whose rows clients cache (not the heartbeat table) */
    public SchemaChangeScope(Collection<CapturedTable> captured) {
        this.tables = anyWord(captured.stream().map(CapturedTable::table).collect(Collectors.toSet()));
        this.databases = anyWord(captured.stream().map(CapturedTable::database).collect(Collectors.toSet()));
    }

    private static Pattern anyWord(Collection<String> names) {
        String alternatives = names.stream().map(Pattern::quote).collect(Collectors.joining("|"));
        // a name is a word of its own: not part of a longer identifier, backquoted or not
        return Pattern.compile("(?<![\\w$])(?:" + (alternatives.isEmpty() ? "(?!)" : alternatives) + ")(?![\\w$])",
                Pattern.CASE_INSENSITIVE);
    }

    /** Whether {@code sql} is a schema change that may rewrite the rows of a captured table. */
    public boolean concernsCaptured(String sql) {
        return switch (UnreadableChangeClassifier.schemaChangeOf(sql)) {
            case NONE -> false;
            case TABLES -> tables.matcher(sql).find();
            case DATABASE -> databases.matcher(sql).find();
        };
    }
}
