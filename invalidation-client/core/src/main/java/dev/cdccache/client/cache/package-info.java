/**
 * The caches and their no-stale-populate protocol (load stamps checked against invalidation generations).
 */
package dev.cdccache.client.cache;
