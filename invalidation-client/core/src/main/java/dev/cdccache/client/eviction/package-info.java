/**
 * Which caches a table's change evicts, and how (keys of the row before and after, or everything).
 */
package dev.cdccache.client.eviction;
