package dev.cdccache.contract;

import java.util.UUID;

/**
 * A connector's continuity epoch (docs/contract.md, "Epochs"), carried in its heartbeat row. The epoch stays the
 * same for as long as the connector can prove that it resumes exactly where it stopped; it changes whenever changes
 * may have been missed (its stored binlog position was purged, its offsets were lost, it was renamed). A client that
 * sees a known connector's epoch change cannot prove its cached entries of that connector's tables, so it evicts
 * them. An unchanged epoch promises nothing was skipped; a new one promises nothing about the past.
 */
public final class Epoch {

    /** Longest epoch, the width of the heartbeat table's {@code epoch} column. */
    public static final int MAX_LENGTH = 64;

    private Epoch() {
    }

    /** A new epoch, unique with overwhelming probability: a random UUID. */
    public static String next() {
        return UUID.randomUUID().toString();
    }
}
