/**
 * Keeping the connector's secrets (database password, Kafka SASL password, trust store passwords) out of
 * Actuator's output; see docs/connector.md, "Security settings", for where secrets come from.
 */
package dev.cdccache.connector.secrets;
