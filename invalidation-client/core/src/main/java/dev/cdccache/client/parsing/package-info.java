/**
 * Debezium's JSON change-event envelope, with or without embedded schema.
 */
package dev.cdccache.client.parsing;
