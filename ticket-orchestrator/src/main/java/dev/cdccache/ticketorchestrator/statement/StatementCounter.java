package dev.cdccache.ticketorchestrator.statement;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Counts the SQL statements this service executes, per table (the first table the statement names after
 * {@code FROM}, {@code INTO} or {@code UPDATE}), so tests and load tests count queries instead of assuming
 * them. Thread-safe; counting costs one map lookup and one adder increment per statement.
 */
public final class StatementCounter {

    /** Label for statements whose table could not be recognised (DDL, {@code SELECT 1}...). */
    public static final String OTHER = "other";

    private static final Pattern TABLE = Pattern.compile(
            "\\b(?:from|into|update)\\s+`?(?:\\w+`?\\.`?)?(\\w+)`?", Pattern.CASE_INSENSITIVE);

    private final Map<String, LongAdder> byTable = new ConcurrentHashMap<>();
    private final Map<String, String> tableOfSql = new ConcurrentHashMap<>();

    /** Records one executed statement. */
    public void executed(String sql) {
        String table = sql == null ? OTHER : tableOfSql.computeIfAbsent(sql, StatementCounter::tableOf);
        byTable.computeIfAbsent(table, t -> new LongAdder()).increment();
    }

    /** @return statements executed so far against {@code table} */
    public long count(String table) {
        LongAdder adder = byTable.get(table);
        return adder == null ? 0 : adder.sum();
    }

    /** @return statements executed so far, by table (a copy) */
    public Map<String, Long> snapshot() {
        Map<String, Long> copy = new TreeMap<>();
        byTable.forEach((table, adder) -> copy.put(table, adder.sum()));
        return copy;
    }

    static String tableOf(String sql) {
        Matcher matcher = TABLE.matcher(sql);
        return matcher.find() ? matcher.group(1).toLowerCase(Locale.ROOT) : OTHER;
    }
}
