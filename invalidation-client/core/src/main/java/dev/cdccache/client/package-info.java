/**
 * The invalidation client: {@link dev.cdccache.client.InvalidationClient} keeps Caffeine caches ({@link dev.cdccache.client.InvalidatingCache}) consistent with the database by consuming the connector's change topics. Configuration: {@link dev.cdccache.client.InvalidationClientConfig}, {@link dev.cdccache.client.CacheDefinition}.
 */
package dev.cdccache.client;
