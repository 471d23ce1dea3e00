package dev.cdccache.client.keymapping;

import java.util.Arrays;
import java.util.List;

/**
 * The key of a cache keyed by several columns: the converted column values in the configured order. Two
 * keys are equal when their components are equal in order, so an application builds the key it looks up
 * with {@code CompositeKey.of(placeId, code)} for {@code key-columns: [place_id, code]}.
 */
public final class CompositeKey {

    private final Object[] components;
    private final int hash;

    private CompositeKey(Object[] components) {
        this.components = components;
        this.hash = Arrays.hashCode(components);
    }

    public static CompositeKey of(Object... components) {
        return new CompositeKey(components.clone());
    }

    public static CompositeKey of(List<?> components) {
        return new CompositeKey(components.toArray());
    }

    /** The components in key-column order. */
    public List<Object> components() {
        return Arrays.asList(components.clone());
    }

    @Override
    public boolean equals(Object o) {
        return this == o || (o instanceof CompositeKey other && hash == other.hash
                && Arrays.equals(components, other.components));
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "CompositeKey" + Arrays.toString(components);
    }
}
