package dev.cdccache.client.eviction;

import dev.cdccache.client.Internal;
import dev.cdccache.client.keymapping.KeyMappingException;
import dev.cdccache.client.metrics.BadInputLog;
import dev.cdccache.client.metrics.ClientMetrics;
import dev.cdccache.client.metrics.ErrorReason;
import dev.cdccache.client.metrics.TableEvictionReason;
import dev.cdccache.client.parsing.ChangeEvent;
import dev.cdccache.client.parsing.Operation;
import dev.cdccache.client.position.AppliedPositions;
import dev.cdccache.contract.ReducedEvent;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * Applies change events to the caches bound to their topic: the keys of the row before and after the change
 * are evicted (so a changed secondary key evicts the old and the new key); evict-all bindings, truncates,
 * table-wide evictions of large transactions and rows whose key cannot be derived evict the whole cache. Used by
 * the consumer thread only.
 */
@Internal
public final class EvictionRouter {

    /**
     * A key column a cache reads that the last event of its topic did not carry at all: the connector's column
     * projection ({@code columns.include} / {@code columns.exclude}) leaves it out, or the column was dropped or
     * renamed. Each such event evicts the whole cache; this is what health reports meanwhile.
     *
     * @param topic the change topic
     * @param cache the cache whose key mapping reads the column
     * @param column the missing column
     */
    public record MissingColumn(String topic, String cache, String column) {
    }

    private static final Logger LOG = LoggerFactory.getLogger(EvictionRouter.class);

    private final Map<String, List<CacheBinding>> bindingsByTopic;
    /**
     * Per cache, the column its last event lacked; removed when an event carries all of it again. Written by the
     * consumer thread, read by the position check.
     */
    private final Map<String, MissingColumn> missingColumns = new ConcurrentHashMap<>();
    private final ClientMetrics metrics;
    private final BadInputLog badInput;
    private final AppliedPositions positions;
    /**
     * The latest table-wide evictions applied (topic and eviction id), so that their copies on the other partitions
     * evict nothing more. Bounded: a copy read after its entry was dropped evicts once more, which is only a cost.
     */
    private final Set<String> recentEvictions = Collections.newSetFromMap(new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > RECENT_EVICTIONS;
        }
    });
    private static final int RECENT_EVICTIONS = 1024;

    public EvictionRouter(Map<String, List<CacheBinding>> bindingsByTopic, ClientMetrics metrics, BadInputLog badInput) {
        this(bindingsByTopic, metrics, badInput, new AppliedPositions());
    }

    /** @param positions where each event's commit position is recorded before its evictions */
    public EvictionRouter(Map<String, List<CacheBinding>> bindingsByTopic, ClientMetrics metrics, BadInputLog badInput,
            AppliedPositions positions) {
        this.bindingsByTopic = Map.copyOf(bindingsByTopic);
        this.metrics = metrics;
        this.badInput = badInput;
        this.positions = positions;
    }

    /** The data topics caches are bound to. */
    public Set<String> topics() {
        return bindingsByTopic.keySet();
    }

    /**
     * The configured table ({@code database.table}) read from {@code topic}, or {@code null} if none: a bounded
     * value for metric tags, unlike the {@code source} block of an event, which is payload.
     */
    public String tableOf(String topic) {
        List<CacheBinding> bindings = bindingsByTopic.get(topic);
        return bindings == null || bindings.isEmpty() ? null : bindings.get(0).table();
    }

    public boolean isBound(String topic) {
        return bindingsByTopic.containsKey(topic);
    }

    /**
     * The columns the caches bound to {@code topic} derive keys from: all that {@link #apply} reads of a row
     * (evict-all bindings read none). Empty for a topic no cache is bound to.
     */
    public Set<String> keyColumnsOf(String topic) {
        Set<String> columns = new HashSet<>();
        for (CacheBinding binding : bindingsByTopic.getOrDefault(topic, List.of())) {
            if (!binding.evictAll()) {
                columns.addAll(binding.keyMapper().columns());
            }
        }
        return columns;
    }

    /** The key columns the latest events lacked, one per cache (health reports them as problems). */
    public Collection<MissingColumn> missingColumns() {
        return List.copyOf(missingColumns.values());
    }

    /** Applies one parsed event. */
    public void apply(ChangeEvent event) {
        // Before any eviction: a load stamped after one must find the position of its change (replica reads).
        positions.advance(event.gtid());
        List<CacheBinding> bindings = bindingsByTopic.get(event.topic());
        if (bindings == null) {
            metrics.error(ErrorReason.UNKNOWN_TABLE);
            badInput.log(ErrorReason.UNKNOWN_TABLE, event.topic(), event.partition(), event.offset(),
                    "no cache is bound to this topic");
            return;
        }
        if (event.coalesced() != null) {
            applyCoalesced(event);
            return;
        }
        Operation op = event.operation();
        if (op == Operation.TRUNCATE) {
            metrics.tableEvicted(bindings.get(0).table(), TableEvictionReason.TRUNCATE);
        }
        for (CacheBinding binding : bindings) {
            if (binding.evictAll() || op == Operation.TRUNCATE) {
                evictAll(binding);
                continue;
            }
            if (event.truncated() && lostKeyColumns(binding, event)) {
                // An oversized event reduced by the connector (docs/contract.md, "Oversized events"): this cache's key columns were removed,
                // so the keys it concerns are unknown.
                metrics.error(ErrorReason.TRUNCATED);
                badInput.log(ErrorReason.TRUNCATED, event.topic(), event.partition(), event.offset(), "cache "
                        + binding.cache().name() + " " + binding.keyMapper().columns() + ": the connector removed "
                        + event.truncatedColumns() + " from this oversized event; evicted the whole cache");
                evictAll(binding);
                continue;
            }
            switch (op) {
                case READ, CREATE -> evictKeys(binding, event, event.after() == null ? null : event.after(),
                        event.before(), event.after() == null);
                case UPDATE -> evictKeys(binding, event, event.before(), event.after(),
                        event.before() == null || event.after() == null);
                case DELETE -> evictKeys(binding, event, event.before(), event.after(), event.before() == null);
                case MESSAGE -> {
                    // Carries no row: nothing is cached from it.
                }
                default -> evictAll(binding);
            }
        }
    }

    /**
     * A table-wide eviction that stands for the remaining rows of a large transaction (docs/contract.md, "Large
     * transactions"): every cache bound to the topic is evicted once. The connector publishes a copy on each
     * partition; only the first copy read evicts: the transaction had committed before the connector read it, so
     * whatever is loaded after that first eviction already reflects it. The other copies evict nothing more; they
     * are still applied positions of their partitions (the caller records them), so no partition proves a position
     * past the transaction before its own copy was read. A copy without an eviction id evicts.
     */
    private void applyCoalesced(ChangeEvent event) {
        String eviction = event.coalesced().eviction();
        if (!eviction.isEmpty() && !recentEvictions.add(event.topic() + '\n' + eviction)) {
            if (LOG.isDebugEnabled()) {
                LOG.debug("Copy of table-wide eviction {} (transaction {}) on {}-{}@{}: already applied",
                        eviction, event.coalesced().transaction(), event.topic(), event.partition(), event.offset());
            }
            return;
        }
        Set<String> evicted = evictAllOf(event.topic());
        String table = tableOf(event.topic());
        metrics.tableEvicted(table, TableEvictionReason.COALESCED_TRANSACTION);
        LOG.info("Transaction {} changed more rows of {} than the connector publishes one by one: evicted caches {}"
                + " entirely (table-wide eviction {} read from {}-{}@{})", event.coalesced().transaction(), table,
                evicted, eviction, event.topic(), event.partition(), event.offset());
    }

    private static boolean lostKeyColumns(CacheBinding binding, ChangeEvent event) {
        if (event.truncatedColumns().contains(ReducedEvent.UNKNOWN_COLUMNS)) {
            return true;
        }
        for (String column : binding.keyMapper().columns()) {
            if (event.truncatedColumns().contains(column)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Evicts entirely every cache bound to one of {@code tables} ({@code database.table}, compared
     * case-insensitively): their entries cannot be proven (a connector's epoch changed, new coverage).
     *
     * @return the names of the caches evicted
     */
    public Set<String> evictAllOfTables(Set<String> tables) {
        Set<String> evicted = new TreeSet<>();
        for (List<CacheBinding> bindings : bindingsByTopic.values()) {
            for (CacheBinding binding : bindings) {
                if (tables.contains(binding.table().toLowerCase(Locale.ROOT)) && evicted.add(binding.cache().name())) {
                    evictAll(binding);
                }
            }
        }
        return evicted;
    }

    /**
     * Evicts every cache bound to {@code topic} entirely (bad input, lost events, entries that cannot be proven).
     *
     * @return the names of the caches evicted
     */
    public Set<String> evictAllOf(String topic) {
        Set<String> evicted = new TreeSet<>();
        for (CacheBinding binding : bindingsByTopic.getOrDefault(topic, List.of())) {
            if (evicted.add(binding.cache().name())) {
                evictAll(binding);
            }
        }
        return evicted;
    }

    private void evictKeys(CacheBinding binding, ChangeEvent event, JsonNode first, JsonNode second,
            boolean requiredImageMissing) {
        if (requiredImageMissing) {
            unmappable(binding, event, "the " + event.operation().name().toLowerCase()
                    + " event lacks the row image needed to find every affected key");
            return;
        }
        Object firstKey;
        Object secondKey;
        try {
            firstKey = first == null ? null : binding.keyMapper().keyOf(first);
            secondKey = second == null ? null : binding.keyMapper().keyOf(second);
        } catch (KeyMappingException e) {
            if (e.missingColumn() != null) {
                MissingColumn missing = new MissingColumn(event.topic(), binding.cache().name(), e.missingColumn());
                if (!missing.equals(missingColumns.put(binding.cache().name(), missing))) {
                    // once per column, beside the rate-limited bad-input log: the remedy is a setting, not the data
                    LOG.warn("Events of {} lack column '{}', which cache {} derives its keys from: every change of the"
                            + " table evicts the whole cache and the cache is not fresh until events carry the column"
                            + " again. Add it to the connector's cdc.connector.columns.include (or take it out of"
                            + " columns.exclude), or fix the cache's key-columns", event.topic(), e.missingColumn(),
                            binding.cache().name());
                }
            }
            unmappable(binding, event, e.getMessage());
            return;
        }
        if (!missingColumns.isEmpty() && missingColumns.remove(binding.cache().name()) != null) {
            LOG.info("Events of {} carry the key columns of cache {} again", event.topic(), binding.cache().name());
        }
        if (firstKey != null) {
            binding.cache().invalidate(firstKey);
            metrics.keyEvicted(binding.cache().name());
        }
        if (secondKey != null && !secondKey.equals(firstKey)) {
            binding.cache().invalidate(secondKey);
            metrics.keyEvicted(binding.cache().name());
        }
    }

    private void unmappable(CacheBinding binding, ChangeEvent event, String detail) {
        metrics.error(ErrorReason.UNMAPPABLE_KEY);
        badInput.log(ErrorReason.UNMAPPABLE_KEY, event.topic(), event.partition(), event.offset(),
                "cache " + binding.cache().name() + " " + binding.keyMapper().columns() + ": " + detail
                        + "; evicted the whole cache");
        evictAll(binding);
    }

    private void evictAll(CacheBinding binding) {
        binding.cache().invalidateAll();
        metrics.allEvicted(binding.cache().name());
    }
}
