package dev.cdccache.client.consuming;

import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds bound change topics with {@code cleanup.policy=compact}: compaction removes a deleted row's delete event
 * (and the changes before it), so a client reading compacted segments would never evict that row. Each bound
 * topic is looked up when it first appears, and a compacted one again every {@link #RECHECK_MILLIS} (so that a
 * fixed policy clears the problem without a restart). The lookups run in the background ({@link TopicPolicies});
 * this class is polled at every position check and never blocks. A failing lookup is retried every
 * {@link #RETRY_MILLIS} and logged once per run of failures: it must not stop consumption. Consumer thread only.
 */
final class TopicPolicyCheck {

    /** A logger of its own: the topic configuration is looked up apart from the consumer, by an admin client. */
    private static final Logger LOG = LoggerFactory.getLogger(TopicPolicyCheck.class);
    static final long RETRY_MILLIS = 5_000;
    static final long RECHECK_MILLIS = 60_000;

    private final TopicPolicies policies;
    private final Set<String> boundTopics;
    private final Set<String> unverified = new TreeSet<>();
    private final Set<String> compacted = new TreeSet<>();
    private CompletableFuture<Map<String, String>> pending;
    private Set<String> pendingTopics = Set.of();
    private long nextAttemptAt;
    private long recheckAt = Long.MAX_VALUE;
    private boolean failing;

    TopicPolicyCheck(TopicPolicies policies, Set<String> boundTopics) {
        this.policies = policies;
        this.boundTopics = Set.copyOf(boundTopics);
    }

    /** Topics that appeared (at start, or created later): the bound ones are looked up. */
    void topicsAppeared(Collection<String> topics) {
        for (String topic : topics) {
            if (boundTopics.contains(topic)) {
                unverified.add(topic);
            }
        }
    }

    /** Collects a completed lookup and starts the next one if one is due. */
    void poll(long now) {
        if (pending != null && pending.isDone()) {
            collect(now);
        }
        if (now >= recheckAt) {
            unverified.addAll(compacted);
            recheckAt = Long.MAX_VALUE;
        }
        if (pending == null && !unverified.isEmpty() && now >= nextAttemptAt) {
            pendingTopics = Set.copyOf(unverified);
            try {
                pending = policies.cleanupPolicies(pendingTopics);
            } catch (RuntimeException e) {
                pending = CompletableFuture.failedFuture(e);
            }
        }
    }

    /** The bound topics found compacted (until a lookup finds them otherwise). */
    Set<String> compacted() {
        return Collections.unmodifiableSet(compacted);
    }

    void close() {
        policies.close();
    }

    private void collect(long now) {
        Map<String, String> found;
        try {
            found = pending.join();
        } catch (CompletionException | java.util.concurrent.CancellationException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            pending = null;
            nextAttemptAt = now + RETRY_MILLIS;
            if (!failing) {
                failing = true;
                LOG.warn("Cannot read the cleanup.policy of {} ({}); compacted change topics are not detected until "
                        + "it can (the client's Kafka user needs DescribeConfigs on its topics). Retrying every {} ms; "
                        + "consumption goes on", pendingTopics, cause.toString(), RETRY_MILLIS);
            }
            return;
        }
        pending = null;
        if (failing) {
            failing = false;
            LOG.info("The cleanup.policy of the change topics can be read again");
        }
        Set<String> newlyCompacted = new TreeSet<>();
        for (String topic : pendingTopics) {
            String policy = found.get(topic);
            unverified.remove(topic);
            if (policy == null) {
                continue; // deleted meanwhile: looked up again when it reappears
            }
            if (policy.contains("compact")) {
                if (compacted.add(topic)) {
                    newlyCompacted.add(topic);
                }
            } else if (compacted.remove(topic)) {
                LOG.info("Topic {} is no longer compacted (cleanup.policy={})", topic, policy);
            }
        }
        if (!newlyCompacted.isEmpty()) {
            LOG.warn("Change topics {} have cleanup.policy=compact: compaction removes delete events, so deleted rows "
                    + "would never be evicted. Their caches are not proven fresh; set cleanup.policy=delete on them",
                    newlyCompacted);
        }
        if (!compacted.isEmpty()) {
            recheckAt = now + RECHECK_MILLIS;
        }
    }
}
