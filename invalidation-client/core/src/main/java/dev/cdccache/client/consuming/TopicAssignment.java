package dev.cdccache.client.consuming;

import dev.cdccache.client.eviction.EvictionRouter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which partitions the consumer reads, as Kafka's metadata says: it assigns new partitions (at their end at the
 * first listing, from their beginning afterwards), drops topics deleted while being read, and looks up the log
 * end offsets of the assigned partitions while telling one topic without a leader from Kafka being down. Changes
 * when the way topics and partitions are found changes; what the positions prove is {@link PositionProver}'s.
 * Consumer thread only.
 */
final class TopicAssignment {

    private static final Logger LOG = LoggerFactory.getLogger(ChangeConsumer.class);

    /** What one listing of the subscribed topics found. */
    record Listing(Set<String> missing, List<TopicPartition> discovered, Set<String> deleted) {
    }

    private final Consumer<byte[], byte[]> consumer;
    private final EvictionRouter router;
    private final Set<String> subscribed;
    private final Duration requestTimeout;
    private final long unavailableRetryMillis;
    private final Set<TopicPartition> assigned = new LinkedHashSet<>();
    /** Topics deleted while assigned (until they exist again). */
    private final Set<String> deletedTopics = new TreeSet<>();
    /** Topics whose log end could not be looked up, with when to try again. */
    private final Map<String, Long> unavailableRetryAt = new TreeMap<>();
    private boolean initialListingDone;

    TopicAssignment(Consumer<byte[], byte[]> consumer, EvictionRouter router, Set<String> subscribed,
            Duration requestTimeout, long unavailableRetryMillis) {
        this.consumer = consumer;
        this.router = router;
        this.subscribed = Set.copyOf(subscribed);
        this.requestTimeout = requestTimeout;
        this.unavailableRetryMillis = unavailableRetryMillis;
    }

    /** The topics read: every bound table's topic and the heartbeat topic. */
    Set<String> subscribed() {
        return subscribed;
    }

    Set<TopicPartition> assigned() {
        return Collections.unmodifiableSet(assigned);
    }

    Set<String> deletedTopics() {
        return Collections.unmodifiableSet(deletedTopics);
    }

    /** Topics whose partitions' log end cannot be looked up at the moment. */
    Set<String> unavailableTopics() {
        return Collections.unmodifiableSet(unavailableRetryAt.keySet());
    }

    /** Assigned topics whose log end was looked up (the ones a check can confirm). */
    Set<String> checkableTopics() {
        Set<String> topics = new TreeSet<>();
        assigned.forEach(tp -> topics.add(tp.topic()));
        topics.removeAll(unavailableRetryAt.keySet());
        return topics;
    }

    /**
     * Lists the subscribed topics and brings the assignment up to date: a topic deleted while being read is
     * dropped and its caches evicted (its events may be gone with it; it is read from its beginning if it comes
     * back); partitions found at the first listing start at their end, later ones at their beginning (everything
     * in them was written after this client started). Their positions are resolved before this returns.
     */
    Listing refresh() {
        Map<String, List<PartitionInfo>> topics = consumer.listTopics(requestTimeout);
        Set<String> missing = new TreeSet<>();
        List<TopicPartition> discovered = new ArrayList<>();
        for (String topic : subscribed) {
            List<PartitionInfo> partitions = topics.get(topic);
            if (partitions == null || partitions.isEmpty()) {
                missing.add(topic);
                continue;
            }
            for (PartitionInfo info : partitions) {
                TopicPartition tp = new TopicPartition(info.topic(), info.partition());
                if (!assigned.contains(tp)) {
                    discovered.add(tp);
                }
            }
        }
        Set<String> deleted = new TreeSet<>();
        for (TopicPartition tp : assigned) {
            if (missing.contains(tp.topic())) {
                deleted.add(tp.topic());
            }
        }
        if (!deleted.isEmpty()) {
            assigned.removeIf(tp -> deleted.contains(tp.topic()));
            consumer.assign(assigned);
            deletedTopics.addAll(deleted);
            unavailableRetryAt.keySet().removeAll(deleted);
            deleted.forEach(router::evictAllOf);
            LOG.warn("Topics deleted while being read: {}. Their caches were evicted and are not fresh until the "
                    + "topics exist again; other tables are unaffected", deleted);
        }
        if (!discovered.isEmpty()) {
            assigned.addAll(discovered);
            consumer.assign(assigned);
            if (initialListingDone) {
                consumer.seekToBeginning(discovered);
                LOG.info("Reading new partitions from their beginning: {}", discovered);
            } else {
                consumer.seekToEnd(discovered);
            }
            discovered.forEach(tp -> deletedTopics.remove(tp.topic()));
            // Resolve the positions now: what was produced before this point is not needed.
            for (TopicPartition tp : discovered) {
                consumer.position(tp, requestTimeout);
            }
        }
        initialListingDone = true;
        return new Listing(missing, List.copyOf(discovered), deleted);
    }

    /**
     * The log end offsets of the assigned partitions. One lookup for all topics; if it fails while some topics
     * answer on their own, the others are marked unavailable (their caches stop being proven, the rest go on) and
     * asked again on their own, with a shorter timeout, every {@code unavailableRetryMillis} — so one partition
     * without a leader neither stops nor slows down the checks of every other table. If no topic answers, Kafka
     * itself is the problem and the failure is rethrown.
     */
    Map<TopicPartition, Long> endOffsets(long now) {
        Map<String, List<TopicPartition>> byTopic = new TreeMap<>();
        for (TopicPartition tp : assigned) {
            byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp);
        }
        Map<TopicPartition, Long> ends = new HashMap<>();
        List<TopicPartition> healthy = new ArrayList<>();
        List<String> retry = new ArrayList<>();
        byTopic.forEach((topic, partitions) -> {
            Long retryAt = unavailableRetryAt.get(topic);
            if (retryAt == null) {
                healthy.addAll(partitions);
            } else if (now >= retryAt) {
                retry.add(topic);
            }
        });
        if (!healthy.isEmpty()) {
            try {
                ends.putAll(consumer.endOffsets(healthy, requestTimeout));
            } catch (WakeupException | InterruptException e) {
                throw e;
            } catch (RuntimeException e) {
                Set<String> healthyTopics = new TreeSet<>();
                healthy.forEach(tp -> healthyTopics.add(tp.topic()));
                if (healthyTopics.size() == 1 && unavailableRetryAt.isEmpty()) {
                    throw e; // nothing to tell a partition problem from a Kafka problem by
                }
                int answered = 0;
                for (String topic : healthyTopics) {
                    if (lookUpOnItsOwn(topic, byTopic.get(topic), now, ends)) {
                        answered++;
                    }
                }
                if (answered == 0) {
                    healthyTopics.forEach(unavailableRetryAt::remove);
                    throw e;
                }
            }
        }
        for (String topic : retry) {
            lookUpOnItsOwn(topic, byTopic.get(topic), now, ends);
        }
        return ends;
    }

    private boolean lookUpOnItsOwn(String topic, List<TopicPartition> partitions, long now,
            Map<TopicPartition, Long> ends) {
        try {
            ends.putAll(consumer.endOffsets(partitions, requestTimeout.dividedBy(2)));
            if (unavailableRetryAt.remove(topic) != null) {
                LOG.info("The log end of {} can be looked up again", topic);
            }
            return true;
        } catch (WakeupException | InterruptException e) {
            throw e;
        } catch (RuntimeException e) {
            if (unavailableRetryAt.put(topic, now + unavailableRetryMillis) == null) {
                // INFO: with Kafka down every topic says this at once; health and cdc.client.problems carry the state
                LOG.info("Partitions of {} are unavailable ({}); its caches are not fresh until they are back, "
                        + "other tables are unaffected", topic, e.toString());
            }
            return false;
        }
    }
}
