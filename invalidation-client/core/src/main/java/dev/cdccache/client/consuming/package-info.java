/**
 * The Kafka consumer loop: assigned to every partition (broadcast), positioned at the end at start, proving its position against the log end for the staleness watermark.
 */
package dev.cdccache.client.consuming;
