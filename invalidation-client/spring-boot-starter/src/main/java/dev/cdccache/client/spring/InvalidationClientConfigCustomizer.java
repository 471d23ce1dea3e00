package dev.cdccache.client.spring;

import dev.cdccache.client.InvalidationClientConfig;

/**
 * Adjusts the client configuration built from {@code cdc.invalidation.*} before the client is created (e.g. to
 * add an {@link dev.cdccache.client.InvalidationListener}, a refresh executor, or caches defined in code).
 */
@FunctionalInterface
public interface InvalidationClientConfigCustomizer {

    void customize(InvalidationClientConfig.Builder builder);
}
