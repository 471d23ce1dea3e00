package dev.cdccache.verifier.check;

import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.cache.CachedValue;
import dev.cdccache.verifier.instance.Caches;
import dev.cdccache.verifier.instance.ClientInstance;
import dev.cdccache.verifier.schema.Item;
import dev.cdccache.verifier.schema.ItemStats;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Compares every entry of every cache of every instance with the database (a snapshot taken after the
 * last write): the "zero cached values differ" criterion. Entries are read from Caffeine directly, so an
 * entry the staleness guard would hide still counts.
 */
public final class CacheComparison {

    /** One cached value that differs from the database. */
    public record Mismatch(String instance, String cache, Object key, Object cached, Object database) {
        @Override
        public String toString() {
            return instance + " " + cache + "[" + key + "] cached " + cached + " but the database has " + database;
        }
    }

    /** The outcome of one comparison. */
    public record Result(Map<String, Long> entriesCompared, List<Mismatch> mismatches) {
        public long total() {
            return entriesCompared.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    private final Map<Long, Item> rowsById;
    private final Map<String, Item> rowsByCode = new HashMap<>();
    private final Map<Long, List<Item>> rowsByGroup = new HashMap<>();
    private final ItemStats stats;

    /** @param rows every row of the table, by id, read after the last write */
    public CacheComparison(Map<Long, Item> rows) {
        this.rowsById = rows;
        long sum = 0;
        for (Item item : rows.values()) {
            rowsByCode.put(item.code(), item);
            rowsByGroup.computeIfAbsent(item.grp(), g -> new ArrayList<>()).add(item);
            sum += item.version();
        }
        rowsByGroup.values().forEach(list -> list.sort(Comparator.comparingLong(Item::id)));
        this.stats = new ItemStats(rows.size(), sum);
    }

    public Result compare(List<ClientInstance> instances) {
        Map<String, Long> compared = new HashMap<>();
        List<Mismatch> mismatches = new ArrayList<>();
        for (ClientInstance instance : instances) {
            instance.read(client -> {
                compare(instance.name(), client, compared, mismatches);
                return Boolean.TRUE;
            });
        }
        return new Result(compared, mismatches);
    }

    private void compare(String instance, InvalidationClient client, Map<String, Long> compared, List<Mismatch> out) {
        InvalidatingCache<Long, Item> byId = client.cache(Caches.BY_ID);
        for (Map.Entry<Long, Object> e : byId.caffeine().asMap().entrySet()) {
            check(instance, Caches.BY_ID, e.getKey(), CachedValue.valueOf(e.getValue()), rowsById.get(e.getKey()),
                    compared, out);
        }
        InvalidatingCache<String, Item> byCode = client.cache(Caches.BY_CODE);
        for (Map.Entry<String, Object> e : byCode.caffeine().asMap().entrySet()) {
            check(instance, Caches.BY_CODE, e.getKey(), CachedValue.valueOf(e.getValue()), rowsByCode.get(e.getKey()),
                    compared, out);
        }
        InvalidatingCache<Long, List<Item>> byGroup = client.cache(Caches.BY_GROUP);
        for (Map.Entry<Long, Object> e : byGroup.caffeine().asMap().entrySet()) {
            check(instance, Caches.BY_GROUP, e.getKey(), CachedValue.valueOf(e.getValue()),
                    rowsByGroup.getOrDefault(e.getKey(), List.of()), compared, out);
        }
        InvalidatingCache<String, ItemStats> stats = client.cache(Caches.STATS);
        for (Map.Entry<String, Object> e : stats.caffeine().asMap().entrySet()) {
            check(instance, Caches.STATS, e.getKey(), CachedValue.valueOf(e.getValue()), this.stats, compared, out);
        }
    }

    private static void check(String instance, String cache, Object key, Object cached, Object database,
            Map<String, Long> compared, List<Mismatch> out) {
        compared.merge(instance + " " + cache, 1L, Long::sum);
        if (!Objects.equals(cached, database)) {
            out.add(new Mismatch(instance, cache, key, cached, database));
        }
    }
}
