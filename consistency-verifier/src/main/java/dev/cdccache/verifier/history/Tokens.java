package dev.cdccache.verifier.history;

import dev.cdccache.verifier.schema.Item;
import dev.cdccache.verifier.schema.ItemStats;
import java.util.List;

/**
 * Reduces a cached value to a 64-bit token that the writer can compute from its model of the table and a
 * reader from what it was served. Row versions are unique per write, so a row's version names its whole
 * state; lists and aggregates are hashed.
 */
public final class Tokens {

    /** The token of a missing row (a cached absence). */
    public static final long ABSENT = 0;

    private static final long EMPTY_GROUP = 0x6a09e667f3bcc909L;

    private Tokens() {
    }

    /** A row: its version, or {@link #ABSENT}. */
    public static long of(Item item) {
        return item == null ? ABSENT : item.version();
    }

    /** A list of rows in id order. */
    public static long ofGroup(List<Item> items) {
        long h = EMPTY_GROUP;
        for (Item item : items) {
            h = groupStep(h, item.id(), item.version());
        }
        return h;
    }

    /** One step of {@link #ofGroup}, for the writer that walks its model in id order. */
    public static long groupStep(long hash, long id, long version) {
        return mix(hash * 31 + mix(id * 0x9E3779B97F4A7C15L + version));
    }

    /** The hash of an empty group. */
    public static long emptyGroup() {
        return EMPTY_GROUP;
    }

    /** The aggregate over the whole table. */
    public static long ofStats(ItemStats stats) {
        return ofStats(stats.count(), stats.versionSum());
    }

    public static long ofStats(long count, long versionSum) {
        return mix(mix(count) ^ versionSum);
    }

    /** SplitMix64's finaliser. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
