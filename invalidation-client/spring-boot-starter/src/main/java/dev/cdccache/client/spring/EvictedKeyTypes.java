package dev.cdccache.client.spring;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.KeyType;
import dev.cdccache.client.SourceDefinition;
import java.util.List;
import java.util.stream.Collectors;
import org.springframework.cache.interceptor.SimpleKey;
import org.springframework.util.ClassUtils;

/**
 * The Java types of the keys change events evict from one cache (what {@code KeyMapper} builds for its
 * {@link KeyType} with the starter's {@link SimpleKey} composite keys), and whether a key of some type can ever
 * be {@code equals} to one of them. Immutable.
 */
final class EvictedKeyTypes {

    private final CacheDefinition definition;
    private final SourceDefinition keyed;
    private final boolean composite;
    private final List<Class<?>> types;

    private EvictedKeyTypes(CacheDefinition definition, SourceDefinition keyed) {
        this.definition = definition;
        this.keyed = keyed;
        int columns = keyed == null ? 0 : keyed.keyColumns().size();
        this.composite = definition.keyType() == KeyType.COMPOSITE || (definition.keyType() == KeyType.AUTO && columns > 1);
        this.types = keyed == null ? List.of(Object.class) : composite ? List.of(SimpleKey.class) : switch (definition.keyType()) {
            case LONG -> List.of(Long.class);
            case INTEGER -> List.of(Integer.class);
            case STRING -> List.of(String.class);
            default -> List.of(Long.class, String.class, Boolean.class); // auto: integer, text or boolean column
        };
    }

    static EvictedKeyTypes of(CacheDefinition definition) {
        // Evict-all sources evict everything whatever the key; only keyed sources constrain the key type.
        SourceDefinition keyed = definition.sources().stream().filter(s -> !s.evictAll()).findFirst().orElse(null);
        return new EvictedKeyTypes(definition, keyed);
    }

    /** Whether a key declared (or found) as {@code type} can ever equal a key events evict. */
    boolean canMatch(Class<?> type) {
        Class<?> boxed = ClassUtils.resolvePrimitiveIfNecessary(type);
        for (Class<?> evicted : types) {
            if (evicted.isAssignableFrom(boxed) || boxed.isAssignableFrom(evicted)) {
                return true;
            }
        }
        return false;
    }

    /** Why keys of {@code type}, used by {@code user}, are never evicted, and what to change. */
    String mismatch(String user, Class<?> type) {
        String names = types.stream().map(Class::getName).collect(Collectors.joining(" or "));
        return user + " caches under keys of type " + type.getName() + ", but change events of " + keyed.table() + " "
                + keyed.keyColumns() + " evict keys of type " + names + " (key-type "
                + definition.keyType().name().toLowerCase() + "), so its entries would never be evicted. Make the key "
                + (composite ? "the " + keyed.keyColumns().size() + " key columns as the method's parameters"
                        : "a " + names)
                + ", or set cdc.invalidation.caches." + definition.name() + ".key-type to match it";
    }
}
