package dev.cdccache.ticketorchestrator.it;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

import dev.cdccache.ticketorchestrator.reference.ReferenceType;

/**
 * The statements one instance executed while an action ran, per table.
 *
 * @param byTable statements per table
 * @param result  what the action returned
 * @param <T>     result type
 */
public record StatementDelta<T>(Map<String, Long> byTable, T result) {

    /** Runs {@code action} on the test thread and counts what {@code instance} executed meanwhile. */
    public static <T> StatementDelta<T> during(OrchestratorInstance instance, Supplier<T> action) {
        Map<String, Long> before = instance.statements().snapshot();
        T result = action.get();
        Map<String, Long> after = instance.statements().snapshot();
        Map<String, Long> delta = new TreeMap<>();
        after.forEach((table, count) -> {
            long diff = count - before.getOrDefault(table, 0L);
            if (diff != 0) {
                delta.put(table, diff);
            }
        });
        return new StatementDelta<>(delta, result);
    }

    /** @return statements against {@code table} */
    public long count(String table) {
        return byTable.getOrDefault(table, 0L);
    }

    /** @return statements against the table of {@code type} */
    public long count(ReferenceType type) {
        return count(type.table());
    }

    /** @return statements against any reference table */
    public long referenceStatements() {
        long sum = 0;
        for (ReferenceType type : ReferenceType.values()) {
            sum += count(type);
        }
        return sum;
    }
}
