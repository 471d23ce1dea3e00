/**
 * Commit positions: the GTIDs of the changes the client has applied, and the replica fence that keeps a value read
 * from a lagging replica out of the cache.
 */
package dev.cdccache.client.position;
