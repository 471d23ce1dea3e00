package dev.cdccache.connector.continuity;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.UUID;

/**
 * Epochs a connector starts while streaming keep the epoch it started with as their root: {@code <root>+<12 hex>}.
 * Clients compare epochs only for equality; the root is for the connector's next start, which then tells its own
 * renewal (written into the heartbeat row after the stored offsets' origin was recorded) from an epoch another process
 * wrote, and resumes the renewed epoch instead of starting one more.
 *
 * <p>Resuming a renewed epoch loses nothing: the stored position is either past the renewal's cause (the clients
 * dropped their caches for it already) or before it (the engine reads the cause again and renews again).
 */
final class EpochLineage {

    private static final char SEPARATOR = '+';
    private static final SecureRandom RANDOM = new SecureRandom();

    private EpochLineage() {
    }

    /** A new epoch of the same root as {@code current}: {@code <root>+<12 random hex digits>}; a new root if blank. */
    static String renewalOf(String current) {
        if (current == null || current.isBlank()) {
            return UUID.randomUUID().toString();
        }
        byte[] suffix = new byte[6];
        RANDOM.nextBytes(suffix);
        return rootOf(current) + SEPARATOR + HexFormat.of().formatHex(suffix);
    }

    /**
     * Whether {@code rowEpoch} (the heartbeat row's) is {@code offsetsEpoch} (the stored offsets' origin's) or one of
     * its renewals while streaming: not a bare root, which only a start decides.
     */
    static boolean continues(String offsetsEpoch, String rowEpoch) {
        if (offsetsEpoch.equals(rowEpoch)) {
            return true;
        }
        return !offsetsEpoch.isBlank() && rowEpoch.indexOf(SEPARATOR) > 0
                && rootOf(rowEpoch).equals(rootOf(offsetsEpoch));
    }

    /** Starts the epochs recorded with the offsets by {@link #unresumable}. */
    private static final String UNRESUMABLE = "unresumable-";
    /** Follows {@link #UNRESUMABLE} where a replica skipped changes ({@link #needsResync}). */
    private static final String RESYNC = "resync-";

    /**
     * An epoch for the offsets' record that no heartbeat row ever carries, so that the next start resumes no epoch
     * ({@link StoredOffsets#recordUnresumable}); it tells why ({@link #isUnresumable}, {@link #needsResync}).
     *
     * @param resync whether the replica the connector reads skipped changes and must be re-synced first
     */
    static String unresumable(boolean resync) {
        return UNRESUMABLE + (resync ? RESYNC : "") + UUID.randomUUID();
    }

    /** Whether {@code offsetsEpoch} was recorded by {@link StoredOffsets#recordUnresumable}. */
    static boolean isUnresumable(String offsetsEpoch) {
        return offsetsEpoch.startsWith(UNRESUMABLE);
    }

    /** Whether {@code offsetsEpoch} was recorded for a replica that skipped changes and must be re-synced. */
    static boolean needsResync(String offsetsEpoch) {
        return offsetsEpoch.startsWith(UNRESUMABLE + RESYNC);
    }

    private static String rootOf(String epoch) {
        int at = epoch.indexOf(SEPARATOR);
        return at < 0 ? epoch : epoch.substring(0, at);
    }
}
