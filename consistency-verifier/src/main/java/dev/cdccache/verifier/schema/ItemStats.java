package dev.cdccache.verifier.schema;

/**
 * The aggregate the evict-all cache holds: {@code COUNT(*)} and {@code SUM(version)} over the table.
 *
 * @param count rows
 * @param versionSum sum of their versions
 */
public record ItemStats(long count, long versionSum) {
}
