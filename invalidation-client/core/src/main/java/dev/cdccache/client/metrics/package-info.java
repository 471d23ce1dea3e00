/**
 * Micrometer meters of the consumer and load paths, and rate-limited logging of bad input.
 */
package dev.cdccache.client.metrics;
