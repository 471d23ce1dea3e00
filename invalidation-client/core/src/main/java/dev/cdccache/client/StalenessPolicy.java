package dev.cdccache.client;

/** What a cache does with an entry when the client cannot show that it is within {@code max-staleness}. */
public enum StalenessPolicy {
    /**
     * The default and the safe choice: an entry whose database read started more than {@code max-staleness}
     * before now is treated as a miss (and reloaded), unless the client can show it has applied every change
     * up to {@code max-staleness} ago. The cache then behaves like a cache with a time-to-live of
     * {@code max-staleness} until the client is fresh again.
     */
    BYPASS_CACHE,
    /** Serve entries regardless; the state is still reported in health and metrics. */
    SERVE_STALE
}
