package dev.cdccache.connector.continuity;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The connector's current {@link Continuity}, set by {@link ContinuityCheck} before the engine starts and read by
 * the heartbeat writer and health. Thread-safe.
 */
public final class ContinuityState {

    private final AtomicReference<Continuity> current = new AtomicReference<>();
    private final AtomicReference<String> engineFailure = new AtomicReference<>();

    /** Records the verdict of a start-up check. */
    public void set(Continuity continuity) {
        current.set(continuity);
        engineFailure.set(null);
    }

    /** The verdict of the last start-up check, empty before the first. */
    public Optional<Continuity> current() {
        return Optional.ofNullable(current.get());
    }

    /** The epoch heartbeats carry; null until the start-up check decided it (no heartbeat is written before). */
    public String epochOrNull() {
        Continuity c = current.get();
        return c == null ? null : c.epoch();
    }

    /** Records that the engine refused to go on: its position is gone, or its lease was lost (message and remedy). */
    public void engineFailed(String explanation) {
        engineFailure.set(explanation);
    }

    /** Why the engine stopped on a lost position or lease, if it did. */
    public Optional<String> engineFailure() {
        return Optional.ofNullable(engineFailure.get());
    }
}
