package dev.cdccache.client;

/**
 * How a cache hit checks the staleness bound (see {@link StalenessPolicy} for what happens to an entry that
 * fails it).
 */
public enum StalenessCheck {
    /**
     * Every hit compares the entry's age with the bound against the clock. The bound holds at every hit whatever
     * the scheduler does; the price is one clock read per hit (tens of nanoseconds on virtual machines, more than
     * a Caffeine lookup itself). For deployments where a thread of the JVM can be starved for longer than
     * {@code staleness-check-slack} while others serve hits.
     */
    EVERY_HIT,
    /**
     * The default. The oldest load time that stays servable for the next {@code staleness-check-slack} is
     * recomputed by a background thread every {@code min(100 ms, slack / 10)}, by the consumer thread after
     * every poll, and by any load or health check that finds it out of date; a hit compares with that value
     * and reads no clock. The bound holds as long as one of them recomputes it within the slack (a recomputation
     * later than that is counted, {@code cdc.client.staleness.check.overruns}, and logged, and until it runs
     * entries may be served up to that much past the bound). While the client is behind, entries are served for
     * {@code max-staleness} minus the slack instead of the full bound: the slack is folded into the bound, not
     * added to it.
     */
    SCHEDULED
}
