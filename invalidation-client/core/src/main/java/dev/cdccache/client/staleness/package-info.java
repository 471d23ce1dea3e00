/**
 * What the client can prove about how far behind it is, and which entries may therefore be served.
 */
package dev.cdccache.client.staleness;
