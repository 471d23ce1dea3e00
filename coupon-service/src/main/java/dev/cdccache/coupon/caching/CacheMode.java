package dev.cdccache.coupon.caching;

/** How the read path caches coupon metadata and places ({@code coupon.cache.mode}). */
public enum CacheMode {
    /** No cache: the database on every read. The baseline. */
    NONE,
    /** In-process Caffeine caches kept consistent by CDC invalidation (this platform). */
    LOCAL,
    /** A shared remote cache in Redis with TTL expiry: the usual approach, stale up to the TTL. */
    REDIS,
    /**
     * JPA entities in Hibernate's second-level cache (a usual setup of such a service), whose regions are the invalidation
     * client's caches, kept consistent by the change stream ({@code invalidation-client-hibernate}).
     */
    HIBERNATE
}
