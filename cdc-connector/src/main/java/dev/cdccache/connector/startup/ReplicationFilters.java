package dev.cdccache.connector.startup;

import dev.cdccache.connector.config.CapturedTable;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The filters a server applies to row changes before they reach the binlog the connector reads: a replica's
 * {@code replicate-*} rules (which replicated changes it applies at all) or a server's {@code binlog-do-db} /
 * {@code binlog-ignore-db} (which changes it logs). A change to a filtered table never reaches the connector, while
 * the heartbeat table, if not filtered too, goes on proving that every change before its time was published: clients
 * would call a cache fresh that is not. So a filter that may skip a captured table must stop the connector.
 *
 * <p>Evaluated as the servers do for row-based changes (the database is the changed table's own): the database
 * rules first ({@code do-db} if any, else {@code ignore-db}), then the table rules in the order {@code do-table},
 * {@code ignore-table}, {@code wild-do-table}, {@code wild-ignore-table}, and a table no rule names is skipped when a
 * {@code do-table} or {@code wild-do-table} rule exists. How names compare differs (MySQL by
 * {@code lower_case_table_names}; MariaDB's table rules without case or accents, its database rules exactly), so
 * the rules are read twice, as shown and folded (trimmed, without case or accents), and a table counts as skipped
 * if either reading skips it: the check errs on the side of refusing.
 *
 * <p>Not covered here: DDL and {@code TRUNCATE} are logged as statements even with {@code binlog_format=ROW}, and
 * the database rules filter statements by the session's default database, not by the table's; see
 * {@link #hasDatabaseRules()}.
 */
public record ReplicationFilters(List<String> doDbs, List<String> ignoreDbs, List<String> doTables,
        List<String> ignoreTables, List<String> wildDoTables, List<String> wildIgnoreTables) {

    /** No filter at all. */
    public static final ReplicationFilters NONE = new ReplicationFilters(List.of(), List.of(), List.of(), List.of(),
            List.of(), List.of());
    private static final Pattern ACCENTS = Pattern.compile("\\p{M}+");

    public ReplicationFilters {
        doDbs = List.copyOf(doDbs);
        ignoreDbs = List.copyOf(ignoreDbs);
        doTables = List.copyOf(doTables);
        ignoreTables = List.copyOf(ignoreTables);
        wildDoTables = List.copyOf(wildDoTables);
        wildIgnoreTables = List.copyOf(wildIgnoreTables);
    }

    /** A server's binlog filters, from the {@code Binlog_Do_DB} and {@code Binlog_Ignore_DB} of its binlog status. */
    public static ReplicationFilters binlog(String doDbs, String ignoreDbs) {
        return new ReplicationFilters(list(doDbs), list(ignoreDbs), List.of(), List.of(), List.of(), List.of());
    }

    /** A replica's filters, from the comma-separated {@code Replicate_*} columns of its replication status. */
    public static ReplicationFilters replica(String doDbs, String ignoreDbs, String doTables, String ignoreTables,
            String wildDoTables, String wildIgnoreTables) {
        return new ReplicationFilters(list(doDbs), list(ignoreDbs), list(doTables), list(ignoreTables),
                list(wildDoTables), list(wildIgnoreTables));
    }

    /** Whether no rule is set. */
    public boolean isEmpty() {
        return equals(NONE);
    }

    /**
     * Whether a database rule is set: it filters a statement-logged change (DDL, {@code TRUNCATE}) of any table by
     * the default database of the session that ran it, so even one that names no captured database may drop a
     * {@code RENAME TABLE} or {@code TRUNCATE} of a captured table run under another default database.
     */
    public boolean hasDatabaseRules() {
        return !doDbs.isEmpty() || !ignoreDbs.isEmpty();
    }

    /**
     * The rule that makes the server skip row changes of {@code database.table}, or empty when they pass every rule
     * whether names compare with case or not.
     */
    public Optional<String> skipping(String database, String table) {
        Optional<String> exact = skipping(database, table, false);
        return exact.isPresent() ? exact : skipping(database, table, true);
    }

    /** Each of {@code tables} these filters skip, as {@code db.table (rule)}, in order. */
    public List<String> skipped(Collection<CapturedTable> tables) {
        List<String> skipped = new ArrayList<>();
        for (CapturedTable table : tables) {
            skipping(table.database(), table.table())
                    .ifPresent(rule -> skipped.add(table.qualifiedName() + " (" + rule + ")"));
        }
        return skipped;
    }

    private Optional<String> skipping(String database, String table, boolean folded) {
        if (!doDbs.isEmpty()) {
            if (doDbs.stream().noneMatch(db -> same(db, database, folded))) {
                return Optional.of("do-db " + String.join(",", doDbs) + " does not name " + database);
            }
        } else {
            for (String db : ignoreDbs) {
                if (same(db, database, folded)) {
                    return Optional.of("ignore-db names " + db);
                }
            }
        }
        String qualified = database + "." + table;
        if (doTables.stream().anyMatch(t -> same(t, qualified, folded))) {
            return Optional.empty();
        }
        for (String t : ignoreTables) {
            if (same(t, qualified, folded)) {
                return Optional.of("ignore-table names " + t);
            }
        }
        if (wildDoTables.stream().anyMatch(p -> like(p, qualified, folded))) {
            return Optional.empty();
        }
        for (String p : wildIgnoreTables) {
            if (like(p, qualified, folded)) {
                return Optional.of("wild-ignore-table " + p + " matches it");
            }
        }
        if (!doTables.isEmpty() || !wildDoTables.isEmpty()) {
            return Optional.of("do-table/wild-do-table " + String.join(",", concat(doTables, wildDoTables))
                    + " names other tables only");
        }
        return Optional.empty();
    }

    private static boolean same(String a, String b, boolean folded) {
        return folded ? fold(a).equals(fold(b)) : a.equals(b);
    }

    /** Trimmed, lower case, without accents: the loosest way a server may compare two names. */
    static String fold(String name) {
        return ACCENTS.matcher(Normalizer.normalize(name.trim(), Normalizer.Form.NFD)).replaceAll("")
                .toLowerCase(Locale.ROOT);
    }

    /** A {@code wild-*-table} pattern: {@code db.table} with SQL LIKE's {@code %} and {@code _}, {@code \} escaping. */
    static boolean like(String pattern, String name, boolean folded) {
        if (folded) {
            pattern = fold(pattern);
            name = fold(name);
        }
        StringBuilder regex = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c == '\\' && i + 1 < pattern.length()) {
                regex.append(Pattern.quote(String.valueOf(pattern.charAt(++i))));
            } else if (c == '%') {
                regex.append(".*");
            } else if (c == '_') {
                regex.append('.');
            } else {
                regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(regex.toString(), Pattern.DOTALL).matcher(name).matches();
    }

    private static List<String> concat(List<String> a, List<String> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }

    /**
     * A comma-separated status column as a list, each name as shown (a stored name may end in a space; the folded
     * reading trims it); {@code null} or blank is none.
     */
    static List<String> list(String column) {
        if (column == null || column.isBlank()) {
            return List.of();
        }
        return Arrays.stream(column.split(",")).filter(s -> !s.isBlank()).toList();
    }

    /** The rules that are set, e.g. {@code ignore-db shop,audit; wild-ignore-table shop.tmp%}. */
    @Override
    public String toString() {
        StringBuilder rules = new StringBuilder();
        append(rules, "do-db", doDbs);
        append(rules, "ignore-db", ignoreDbs);
        append(rules, "do-table", doTables);
        append(rules, "ignore-table", ignoreTables);
        append(rules, "wild-do-table", wildDoTables);
        append(rules, "wild-ignore-table", wildIgnoreTables);
        return rules.isEmpty() ? "no filters" : rules.toString();
    }

    private static void append(StringBuilder rules, String rule, List<String> names) {
        if (!names.isEmpty()) {
            rules.append(rules.isEmpty() ? "" : "; ").append(rule).append(' ').append(String.join(",", names));
        }
    }
}
