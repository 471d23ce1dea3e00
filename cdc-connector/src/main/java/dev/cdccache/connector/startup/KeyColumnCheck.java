package dev.cdccache.connector.startup;

import dev.cdccache.connector.config.CapturedTable;
import dev.cdccache.connector.config.ConnectorProperties;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Refuses masking, hashing or truncation of a column that cache keys are built from. Clients evict by the key
 * values in an event's {@code before} and {@code after}: with a masked key column they would evict
 * {@code ********} (or a hash, or a prefix) and keep serving the entry of the real key, while the heartbeats prove
 * the table fresh. The key columns are every captured table's primary key and unique keys, as the database reports
 * them, and the columns named in {@code cdc.connector.columns.cache-keys} (other columns cache keys are built from).
 */
public final class KeyColumnCheck {

    /**
     * One setting that rewrites column values.
     *
     * @param setting the full setting name, e.g. {@code cdc.connector.columns.mask}
     * @param columns the columns it applies to: Debezium's case-insensitive regular expressions over
     *     {@code database.table.column}
     */
    record ColumnRewrite(String setting, List<Pattern> columns) {
    }

    private final List<ColumnRewrite> rewrites;
    private final List<CapturedTable> tables;
    private final List<String> cacheKeyColumns;

    KeyColumnCheck(List<ColumnRewrite> rewrites, List<CapturedTable> tables, List<String> cacheKeyColumns) {
        this.rewrites = rewrites;
        this.tables = tables;
        this.cacheKeyColumns = cacheKeyColumns;
    }

    /**
     * The check for a configuration: its {@code columns.mask} and the column masks, hashes and truncations among its
     * Debezium overrides, against the primary keys of {@code tables} and the configured cache-key columns.
     *
     * @throws StartupCheckException if an override's column list is not a valid regular expression
     */
    public static KeyColumnCheck of(ConnectorProperties properties, List<CapturedTable> tables) {
        List<ColumnRewrite> rewrites = new ArrayList<>();
        List<Pattern> masked = properties.getColumns().getMask().stream()
                .map(c -> Pattern.compile(Pattern.quote(c.trim()), Pattern.CASE_INSENSITIVE)).toList();
        if (!masked.isEmpty()) {
            rewrites.add(new ColumnRewrite("cdc.connector.columns.mask", masked));
        }
        properties.getDebezium().forEach((property, value) -> {
            if (DebeziumOverrideCheck.isColumnTransform(property.trim())) {
                String setting = "cdc.connector.debezium." + property.trim();
                List<Pattern> patterns = new ArrayList<>();
                for (String regex : value.split(",")) {
                    if (!regex.isBlank()) {
                        try {
                            patterns.add(Pattern.compile(regex.trim(), Pattern.CASE_INSENSITIVE));
                        } catch (PatternSyntaxException e) {
                            throw new StartupCheckException(setting + " is not a list of regular expressions: " + e.getDescription()
                                    + " in '" + regex.trim() + "'.", "Fix " + setting + ": comma-separated regular expressions"
                                    + " matching database.table.column.", e);
                        }
                    }
                }
                rewrites.add(new ColumnRewrite(setting, patterns));
            }
        });
        return new KeyColumnCheck(rewrites, tables, properties.getColumns().getCacheKeys().stream().map(String::trim).toList());
    }

    /** Whether any setting rewrites column values, i.e. whether there is anything to check. */
    public boolean hasRewrites() {
        return !rewrites.isEmpty();
    }

    /**
     * Reads the captured tables' primary and unique keys and refuses every rewrite of a key column.
     *
     * @throws StartupCheckException naming each setting and the key columns it would rewrite
     */
    public void verify(Connection connection) throws SQLException {
        if (rewrites.isEmpty()) {
            return;
        }
        Map<String, String> keyColumns = new LinkedHashMap<>(); // database.table.column -> why it is a key
        // Unique keys too: a cache keyed by a secondary key (code, email) is as common as one by id, and a masked value
        // of it would be evicted instead of the real one. A unique column that no cache uses can be excluded instead.
        // KEY_COLUMN_USAGE alone: MariaDB shows TABLE_CONSTRAINTS only to users with more than SELECT. Its rows without a
        // referenced table are the primary and unique keys.
        try (PreparedStatement query = connection.prepareStatement("SELECT COLUMN_NAME, CONSTRAINT_NAME"
                + " FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?"
                + " AND REFERENCED_TABLE_NAME IS NULL ORDER BY CONSTRAINT_NAME <> 'PRIMARY', CONSTRAINT_NAME, ORDINAL_POSITION")) {
            for (CapturedTable table : tables) {
                query.setString(1, table.database());
                query.setString(2, table.table());
                try (ResultSet rs = query.executeQuery()) {
                    while (rs.next()) {
                        String why = "PRIMARY".equals(rs.getString(2)) ? "primary key" : "unique key " + rs.getString(2);
                        keyColumns.putIfAbsent(table.qualifiedName() + "." + rs.getString(1), why);
                    }
                }
            }
        }
        cacheKeyColumns.forEach(c -> keyColumns.putIfAbsent(c, "cdc.connector.columns.cache-keys"));
        verify(keyColumns);
    }

    /** The check itself, against known key columns ({@code database.table.column} to why it is a key). */
    void verify(Map<String, String> keyColumns) {
        List<String> problems = new ArrayList<>();
        for (ColumnRewrite rewrite : rewrites) {
            List<String> hit = keyColumns.entrySet().stream()
                    .filter(key -> rewrite.columns().stream().anyMatch(p -> p.matcher(key.getKey()).matches()))
                    .map(key -> key.getKey() + " (" + key.getValue() + ")").toList();
            if (!hit.isEmpty()) {
                problems.add(rewrite.setting() + " " + verb(rewrite.setting()) + " the key column(s) " + String.join(", ", hit));
            }
        }
        if (!problems.isEmpty()) {
            throw new StartupCheckException(String.join("; ", problems) + ". Clients evict cached entries by these"
                    + " columns' values: they would evict the rewritten value and keep serving the real key's entry.",
                    "Take the key columns out of these settings (name the columns to rewrite one by one instead of a"
                            + " pattern that matches a key). A column that must not travel can be left out instead"
                            + " (cdc.connector.columns.exclude, or columns.include with only the key columns): clients"
                            + " then evict safely.");
        }
    }

    private static String verb(String setting) {
        String s = setting.toLowerCase(Locale.ROOT);
        if (s.contains("truncate")) {
            return "truncates";
        }
        return s.contains("hash") ? "hashes" : "masks";
    }
}
