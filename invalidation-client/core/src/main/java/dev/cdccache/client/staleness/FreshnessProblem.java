package dev.cdccache.client.staleness;

import java.util.Set;

/**
 * Something that keeps caches from being proven fresh, as reported by {@link StalenessStatus#problems()}: the
 * caches it concerns are not fresh (their entries are served only within {@code max-staleness} of their load,
 * under the default policy) until it is gone. Problems are recomputed at every position check, so one that is
 * fixed (a topic created, a connector started) disappears by itself.
 *
 * @param kind what is wrong
 * @param subject the topic or table concerned
 * @param caches the names of the caches it concerns; empty if it concerns every cache
 * @param message a sentence saying what is wrong and what to do, for logs and health details
 */
public record FreshnessProblem(Kind kind, String subject, Set<String> caches, String message) {

    public FreshnessProblem {
        caches = Set.copyOf(caches);
    }

    /** What is wrong; {@link #configuration()} tells a misconfiguration from an outage. */
    public enum Kind {
        /**
         * A cache is bound to a topic that does not exist: a misspelled {@code topic-prefix} or table, or a table
         * the connector does not capture. A configuration error: nothing will ever invalidate that cache.
         */
        MISSING_TOPIC(true),
        /**
         * No accepted connector heartbeat covers a bound table (no connector lists it in its heartbeat's
         * {@code tables}): nothing proves its changes are flowing. A configuration error when it lasts (a table
         * not captured, the wrong connector); also true for the first heartbeat interval after start.
         */
        UNCOVERED_TABLE(true),
        /** A topic the client was reading has been deleted; its caches were evicted. An outage. */
        TOPIC_DELETED(false),
        /** The log end of some partitions of a topic cannot be looked up (no leader, broker down). An outage. */
        PARTITIONS_UNAVAILABLE(false),
        /** The consumer loop failed and is restarting. An outage. */
        CONSUMER_FAILING(false),
        /**
         * A connector feeding a topic (its heartbeat lists one of the topic's tables, or the topic's records carry
         * its {@code cdc-connector} header) has sent no heartbeat for longer than max-staleness, or none yet: the
         * topic's caches are not fresh, whatever the other connectors feeding it say. An outage while the connector
         * is down; a connector retired for good stays a feeder until the client restarts (docs/client.md).
         */
        SILENT_CONNECTOR(false),
        /**
         * A connector's database clock is ahead of this host's by more than {@code max-clock-skew}. Its heartbeats
         * prove only up to this host's time minus the measured skew (caches stay correct, but look less fresh);
         * fix the time synchronisation of the two hosts.
         */
        CLOCK_SKEW(false),
        /**
         * A change topic has {@code cleanup.policy=compact}: compaction removes delete events and their keys'
         * earlier changes, so a client reading compacted segments would miss evictions. A configuration error: use
         * {@code cleanup.policy=delete} for change topics.
         */
        COMPACTED_TOPIC(true),
        /**
         * The events of a bound topic lack a column a cache derives its keys from (the connector's column projection
         * leaves it out, or the column was dropped or renamed): every change evicts that whole cache. A
         * configuration error: send the column, or fix the cache's key columns. Gone with the first event that
         * carries the column again.
         */
        MISSING_COLUMN(true);

        private final boolean configuration;

        Kind(boolean configuration) {
            this.configuration = configuration;
        }

        /** Whether this is a configuration error (fix the settings) rather than an outage (wait, or fix the system). */
        public boolean configuration() {
            return configuration;
        }
    }
}
