package dev.cdccache.connector.continuity;

import com.github.shyiko.mysql.binlog.event.EventType;
import java.util.regex.Pattern;

/**
 * The forms in which the binlog can hold a row change that Debezium does not turn into row events: an SQL statement
 * (a writer whose session logs STATEMENT or MIXED), an event type it has no handler for (MariaDB's compressed row
 * events, {@code LOAD DATA} logged as a statement), the commit of a prepared XA transaction, whose rows Debezium
 * published at {@code XA PREPARE}, or a schema change that may rewrite a table's rows. Pure classification, used by {@link StatementEventDetector} on
 * the thread that reads the binlog, so every method here is linear in its input and allocates nothing.
 */
final class UnreadableChangeClassifier {

    private UnreadableChangeClassifier() {
    }

    /**
     * What an event of {@code type}, which Debezium ignores for lack of a handler, may have changed (a statement for
     * {@code LOAD DATA}, an unreadable event otherwise), or {@code null} if an event of that type changes no rows. A
     * type the binlog reader does not know arrives as {@code UNKNOWN} (or without one): MariaDB writes compressed query
     * and row events with {@code log_bin_compress=ON}, and the reader decodes neither. Where the event stands tells
     * them apart: a row event follows the table map events of its statement ({@link TableMapWindow}), so one outside
     * that stretch is a query event, which may be a schema change.
     *
     * @param afterTableMap whether the event came after a table map of its event group, with no query event between
     */
    static UnreadableChange ignoredEvent(EventType type, boolean afterTableMap) {
        if (type == null || type == EventType.UNKNOWN) {
            return afterTableMap
                    ? unreadable("an event of a type the binlog reader cannot decode among a table's row events (a"
                            + " compressed row event: MariaDB writes them while log_bin_compress=ON; or a type newer"
                            + " than the reader)")
                    : new UnreadableChange(UnreadableChange.Kind.UNREADABLE_QUERY_EVENT, "an event of a type the binlog"
                            + " reader cannot decode outside a table's row events (a compressed query event, which"
                            + " MariaDB writes while log_bin_compress=ON: a schema change or a statement; or a type"
                            + " newer than the reader)");
        }
        return switch (type) {
            case EXECUTE_LOAD_QUERY, EXEC_LOAD, NEW_LOAD, LOAD ->
                    new UnreadableChange(UnreadableChange.Kind.STATEMENT, "LOAD DATA logged as a statement");
            case PRE_GA_WRITE_ROWS, PRE_GA_UPDATE_ROWS, PRE_GA_DELETE_ROWS -> unreadable("rows in a pre-5.1 event format");
            case PARTIAL_UPDATE_ROWS_EVENT -> unreadable("partial JSON updates (binlog_row_value_options=PARTIAL_JSON)");
            default -> null;
        };
    }

    private static UnreadableChange unreadable(String what) {
        return new UnreadableChange(UnreadableChange.Kind.UNREADABLE_EVENT, what);
    }

    /**
     * Whether {@code sql}, the text of a query event, commits a prepared XA transaction ({@code XA COMMIT xid}, not
     * {@code ... ONE PHASE}, which the binlog holds as an ordinary transaction with its rows).
     */
    static boolean isXaCommitOfPrepared(String sql) {
        int i = skipSpaceAndComments(sql, 0);
        if (!sql.regionMatches(true, i, "XA", 0, 2) || i + 2 >= sql.length()
                || !Character.isWhitespace(sql.charAt(i + 2))) {
            return false;
        }
        i = skipSpaceAndComments(sql, i + 2);
        if (!sql.regionMatches(true, i, "COMMIT", 0, 6) || isWordChar(sql, i + 6)) {
            return false;
        }
        int end = sql.length();
        while (end > i && (Character.isWhitespace(sql.charAt(end - 1)) || sql.charAt(end - 1) == ';')) {
            end--;
        }
        int phase = end - "PHASE".length();
        if (phase > i && sql.regionMatches(true, phase, "PHASE", 0, 5)) {
            int one = phase;
            while (one > i && Character.isWhitespace(sql.charAt(one - 1))) {
                one--;
            }
            return !(one - 3 > i && sql.regionMatches(true, one - 3, "ONE", 0, 3));
        }
        return true;
    }

    /** What a schema change statement may rewrite the rows of: {@link #schemaChangeOf}. */
    enum SchemaChange {
        /** Not a statement that replaces or rewrites a table's rows. */
        NONE,
        /** The tables it names: {@code ALTER TABLE}, {@code RENAME TABLE}, {@code DROP TABLE}, {@code CREATE OR REPLACE TABLE}. */
        TABLES,
        /** Every table of the databases it names: {@code DROP DATABASE}, {@code DROP SCHEMA}. */
        DATABASE
    }

    /**
     * Whether {@code sql}, the text of a query event, is a schema change that may replace or rewrite the rows of the
     * tables, or databases, it names. A temporary table's is not: it is never captured.
     */
    static SchemaChange schemaChangeOf(String sql) {
        int i = skipSpaceAndComments(sql, 0);
        i = skipSpaceAndComments(sql, afterSetStatement(sql, i));
        if (word(sql, i, "ALTER")) {
            i = nextWord(sql, i + 5);
            for (int m = 0; m < 2; m++) { // ONLINE and IGNORE, in either order
                for (String modifier : new String[] {"ONLINE", "IGNORE"}) {
                    if (word(sql, i, modifier)) {
                        i = nextWord(sql, i + modifier.length());
                    }
                }
            }
            return tableOrTables(sql, i) ? SchemaChange.TABLES : SchemaChange.NONE;
        }
        if (word(sql, i, "RENAME")) {
            return tableOrTables(sql, nextWord(sql, i + 6)) ? SchemaChange.TABLES : SchemaChange.NONE;
        }
        if (word(sql, i, "DROP")) {
            i = nextWord(sql, i + 4);
            if (tableOrTables(sql, i)) {
                return SchemaChange.TABLES;
            }
            return word(sql, i, "DATABASE") || word(sql, i, "SCHEMA") ? SchemaChange.DATABASE : SchemaChange.NONE;
        }
        if (word(sql, i, "CREATE")) {
            i = nextWord(sql, i + 6);
            if (word(sql, i, "OR")) {
                i = nextWord(sql, i + 2);
                if (word(sql, i, "REPLACE") && word(sql, nextWord(sql, i + 7), "TABLE")) {
                    return SchemaChange.TABLES;
                }
            }
        }
        return SchemaChange.NONE;
    }

    /** Where {@code sql}'s statement starts: past white space, comments and a {@code SET STATEMENT ... FOR} prefix. */
    static int statementStart(String sql) {
        return skipSpaceAndComments(sql, afterSetStatement(sql, skipSpaceAndComments(sql, 0)));
    }

    /** {@code TABLE} or {@code TABLES} (both servers take {@code RENAME TABLES}, {@code DROP TABLES}). */
    private static boolean tableOrTables(String sql, int i) {
        return word(sql, i, "TABLE") || word(sql, i, "TABLES");
    }

    /** Whether the word {@code word} (any case) stands at {@code i}, not as the start of a longer one. */
    private static boolean word(String sql, int i, String word) {
        return sql.regionMatches(true, i, word, 0, word.length()) && !isWordChar(sql, i + word.length());
    }

    /** The start of the next word after {@code i}, past white space and comments. */
    private static int nextWord(String sql, int i) {
        return skipSpaceAndComments(sql, i);
    }

    /** Whether {@code sql} starts an XA transaction ({@code XA START} or {@code XA BEGIN}). */
    static boolean isXaStart(String sql) {
        int i = skipSpaceAndComments(sql, 0);
        if (!word(sql, i, "XA")) {
            return false;
        }
        i = nextWord(sql, i + 2);
        return word(sql, i, "START") || word(sql, i, "BEGIN");
    }

    /**
     * The first word of a statement that changes rows or may (a function call logged as {@code SELECT} or {@code DO},
     * a common table expression before {@code UPDATE} or {@code DELETE}): such statements reach the binlog as query
     * events only when it holds statements. Not one whose target is a bookkeeping table of the managed services
     * ({@code rds_heartbeat2}, {@code rds_sysinfo}, {@code rds_monitor}), which Debezium's default DDL filter exists
     * for.
     */
    private static final Pattern ROW_CHANGE_START = Pattern.compile(
            "(?:INSERT|UPDATE|DELETE|REPLACE|WITH|SELECT|DO)\\b"
                    + "(?!(?:\\s++(?:LOW_PRIORITY|DELAYED|HIGH_PRIORITY|QUICK|IGNORE)\\b)*+(?:\\s++(?:INTO|FROM)\\b)?+"
                    + "\\s++`?(?:mysql`?\\.`?)?rds_(?:heartbeat2|sysinfo|monitor)\\b)",
            Pattern.CASE_INSENSITIVE);

    /**
     * Whether {@code sql}, the text of a query event, is a statement that changes rows (see {@link #ROW_CHANGE_START}),
     * in any form: leading comments and white space, executable comments, a {@code SET STATEMENT ... FOR} prefix.
     */
    static boolean isRowChangeStatement(String sql) {
        int start = skipSpaceAndComments(sql, 0);
        start = skipSpaceAndComments(sql, afterSetStatement(sql, start));
        return ROW_CHANGE_START.matcher(sql).region(start, sql.length()).lookingAt();
    }

    /**
     * After a {@code SET STATEMENT var=value[, ...] FOR} prefix at {@code from} (any case, quoted values included:
     * the first {@code FOR} outside quotes ends it), or {@code from} if there is none. Written out, not a regular
     * expression: it runs on the binlog thread for every query event, and must stay linear and shallow on any input.
     */
    private static int afterSetStatement(String sql, int from) {
        int n = sql.length();
        if (!sql.regionMatches(true, from, "SET", 0, 3) || from + 3 >= n
                || !Character.isWhitespace(sql.charAt(from + 3))) {
            return from;
        }
        int i = from + 3;
        while (i < n && Character.isWhitespace(sql.charAt(i))) {
            i++;
        }
        if (!sql.regionMatches(true, i, "STATEMENT", 0, 9)) {
            return from;
        }
        char quote = 0;
        for (i += 9; i < n; i++) {
            char c = sql.charAt(i);
            if (quote != 0) {
                if (c == '\\') {
                    i++; // an escaped character, the quote included
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"' || c == '`') {
                quote = c;
            } else if (sql.regionMatches(true, i, "FOR", 0, 3) && !isWordChar(sql, i - 1) && !isWordChar(sql, i + 3)) {
                return i + 3;
            }
        }
        return from;
    }

    private static boolean isWordChar(String sql, int i) {
        return i >= 0 && i < sql.length() && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_');
    }

    /**
     * The index of the first character at or after {@code from} that is not white space or a comment; the body of an
     * executable comment ({@code /*!50000 ... *}{@code /}, {@code /*M!100100 ... *}{@code /}) counts as code.
     */
    private static int skipSpaceAndComments(String sql, int from) {
        int i = from;
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (sql.startsWith("/*!", i) || sql.startsWith("/*M!", i)) {
                i = sql.indexOf('!', i) + 1;
                while (i < n && Character.isDigit(sql.charAt(i))) {
                    i++;
                }
            } else if (sql.startsWith("/*", i)) {
                int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else if (c == '#'
                    || sql.startsWith("--", i) && (i + 2 == n || Character.isWhitespace(sql.charAt(i + 2)))) {
                int end = sql.indexOf('\n', i);
                i = end < 0 ? n : end + 1;
            } else {
                break;
            }
        }
        return i;
    }
}
