/**
 * The wire contract between {@code cdc-connector} and the invalidation client, as types and constants both
 * sides compile against instead of two copies of a string: topic naming ({@link dev.cdccache.contract.ChangeTopics}),
 * the header naming the publishing connector ({@link dev.cdccache.contract.ConnectorHeader}), the change-event
 * envelope's fields ({@link dev.cdccache.contract.Envelope}), the heartbeat table and its row
 * ({@link dev.cdccache.contract.HeartbeatTable}), continuity epochs ({@link dev.cdccache.contract.Epoch}), the
 * markers of an oversized event ({@link dev.cdccache.contract.ReducedEvent}) and the Kafka security settings both
 * sides accept ({@link dev.cdccache.contract.KafkaSecurity}).
 *
 * <p>The document for users and maintainers is {@code docs/contract.md}: what each record looks like and what a
 * client does with it. Plain Java 17, no dependencies, no Spring.
 */
package dev.cdccache.contract;
