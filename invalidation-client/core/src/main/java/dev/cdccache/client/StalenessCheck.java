package dev.cdccache.client;

/**
 * How a cache hit checks the staleness bound (see {@link StalenessPolicy} for what happens to an entry that
 * fails it).
 */
public enum StalenessCheck {
    /**
     * The default: every hit compares the entry's age with the bound against the clock. The bound holds at
     * every hit whatever the scheduler does; the price is one clock read per hit (tens of nanoseconds on
     * virtual machines, more than a Caffeine lookup itself).
     */
    EVERY_HIT,
    /**
     * A background thread recomputes, several times a second, the oldest load time that stays servable
     * for the next {@code staleness-check-slack}; a hit compares with that value and reads no clock. The
     * bound holds as long as that thread is never later than the slack; a run later than that is counted
     * ({@code cdc.client.staleness.check.overruns}), and until it runs entries may be served up to that much
     * past the bound. While the client is behind, entries are served for {@code max-staleness} minus the
     * slack instead of the full bound.
     */
    SCHEDULED
}
