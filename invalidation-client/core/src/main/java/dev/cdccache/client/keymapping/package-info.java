/**
 * From a row's key columns to a cache key of the cache's key type.
 */
package dev.cdccache.client.keymapping;
