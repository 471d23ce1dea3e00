package dev.cdccache.connector.startup;

import dev.cdccache.connector.config.CapturedTable;
import dev.cdccache.connector.config.ConnectorProperties;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Refuses masking, hashing or truncation of a column that cache keys are built from. Clients evict by the key
 * values in an event's {@code before} and {@code after}: with a masked key column they would evict
 * {@code ********} (or a hash, or a prefix) and keep serving the entry of the real key, while the heartbeats prove
 * the table fresh. The key columns are every captured table's primary key and unique keys, as the database reports
 * them, and the columns named in {@code cdc.connector.columns.cache-keys} (other columns cache keys are built from).
 *
 * <p>It also refuses a projection ({@code columns.include} or {@code columns.exclude}) that leaves out a primary-key
 * or {@code cache-keys} column: clients keyed by it would find it missing from every event and evict their whole
 * cache on each change. Unique keys may be left out (a unique e-mail is often the personal data a projection is
 * for); clients keyed by one evict conservatively and report the missing column.
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
    /** {@code columns.include}, lower-case: table ({@code database.table}) to the columns that travel. */
    private final Map<String, Set<String>> included;
    /** {@code columns.exclude}, lower-case {@code database.table.column}. */
    private final Set<String> excluded;

    KeyColumnCheck(List<ColumnRewrite> rewrites, List<CapturedTable> tables, List<String> cacheKeyColumns) {
        this(rewrites, tables, cacheKeyColumns, List.of(), List.of());
    }

    KeyColumnCheck(List<ColumnRewrite> rewrites, List<CapturedTable> tables, List<String> cacheKeyColumns,
            List<String> include, List<String> exclude) {
        this.rewrites = rewrites;
        this.tables = tables;
        this.cacheKeyColumns = cacheKeyColumns;
        Map<String, Set<String>> byTable = new HashMap<>();
        for (String column : include) {
            String c = column.trim().toLowerCase(Locale.ROOT);
            byTable.computeIfAbsent(c.substring(0, c.lastIndexOf('.')), t -> new HashSet<>()).add(c);
        }
        this.included = byTable;
        Set<String> dropped = new HashSet<>();
        exclude.forEach(c -> dropped.add(c.trim().toLowerCase(Locale.ROOT)));
        this.excluded = dropped;
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
        ConnectorProperties.Columns columns = properties.getColumns();
        return new KeyColumnCheck(rewrites, tables, columns.getCacheKeys().stream().map(String::trim).toList(),
                columns.getInclude(), columns.getExclude());
    }

    /** Whether any setting rewrites column values or leaves columns out, i.e. whether there is anything to check. */
    public boolean hasRewrites() {
        return !rewrites.isEmpty() || !included.isEmpty() || !excluded.isEmpty();
    }

    /** Whether the projection ({@code columns.include} / {@code columns.exclude}) leaves {@code column} out of events. */
    private boolean leftOut(String qualifiedColumn) {
        String c = qualifiedColumn.toLowerCase(Locale.ROOT);
        Set<String> kept = included.get(c.substring(0, c.lastIndexOf('.')));
        return excluded.contains(c) || (kept != null && !kept.contains(c));
    }

    /**
     * Reads the captured tables' primary and unique keys and refuses every rewrite of a key column, and a projection
     * that leaves out a primary-key or cache-keys column.
     *
     * @throws StartupCheckException naming each setting and the key columns it would rewrite
     */
    public void verify(Connection connection) throws SQLException {
        if (!hasRewrites()) {
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
                            + " pattern that matches a key). A unique-key column that must not travel, and that is neither the"
                            + " primary key nor in cdc.connector.columns.cache-keys, can be left out instead"
                            + " (cdc.connector.columns.exclude, or columns.include without it): clients keyed by it"
                            + " then evict their whole cache on each change and report the missing column.");
        }
        List<String> leftOut = keyColumns.entrySet().stream()
                .filter(key -> !key.getValue().startsWith("unique key") && leftOut(key.getKey()))
                .map(key -> key.getKey() + " (" + key.getValue() + ")").toList();
        if (!leftOut.isEmpty()) {
            throw new StartupCheckException("cdc.connector.columns." + (excluded.isEmpty() ? "include" : "exclude")
                    + " leaves the key column(s) " + String.join(", ", leftOut) + " out of the events. Clients keyed by"
                    + " them could not tell which entries a change concerns and would evict their whole cache on every"
                    + " change.", excluded.isEmpty()
                            ? "Add these columns to cdc.connector.columns.include: a projection keeps the primary key"
                                    + " and every cache-keys column of the tables it names."
                            : "Take these columns out of cdc.connector.columns.exclude.");
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
