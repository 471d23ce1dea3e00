package dev.cdccache.connector.startup;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates every change topic up front, so that clients can subscribe before the first change is
 * committed, with {@code cleanup.policy=delete}; and refuses to publish to an existing change topic whose
 * cleanup policy compacts it. Compaction keeps only the latest record per key (and drops a delete's records once
 * its tombstone is old enough): a client that reads compacted segments, after a restart or while catching up, misses
 * changes and deletes of rows whose later records survived, and would keep their stale entries. Existing topics
 * are otherwise left as they are.
 */
public final class TopicProvisioner {

    private static final Logger log = LoggerFactory.getLogger(TopicProvisioner.class);
    /** Change topics only ever delete old segments; see the class comment. */
    static final Map<String, String> CHANGE_TOPIC_CONFIG = Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE);

    private final Admin admin;
    private final int partitions;
    private final short replicationFactor;
    private final Duration timeout;

    public TopicProvisioner(Admin admin, int partitions, short replicationFactor, Duration timeout) {
        this.admin = admin;
        this.partitions = partitions;
        this.replicationFactor = replicationFactor;
        this.timeout = timeout;
    }

    /** Creates the topics that do not exist yet; returns the names it created. */
    public List<String> createMissing(Collection<String> topics) throws InterruptedException {
        try {
            Set<String> existing = admin.listTopics().names().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            List<NewTopic> missing = topics.stream().distinct().filter(t -> !existing.contains(t))
                    .map(t -> new NewTopic(t, partitions, replicationFactor).configs(CHANGE_TOPIC_CONFIG)).toList();
            List<String> created = new ArrayList<>();
            for (Map.Entry<String, KafkaFuture<Void>> result : admin.createTopics(missing).values().entrySet()) {
                try {
                    result.getValue().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                    created.add(result.getKey());
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e; // another instance creating it concurrently is fine, anything else is not
                    }
                }
            }
            if (!created.isEmpty()) {
                log.info("Created change topics {} ({} partitions, replication factor {})", created, partitions, replicationFactor);
            }
            warnAboutFewerPartitions(topics);
            refuseCompactedTopics(topics);
            return created;
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new StartupCheckException("Could not create the change topics " + topics + ": " + cause,
                    "Give the connector's Kafka principal CREATE and DESCRIBE on these topics, or create them yourself with"
                            + " cdc.connector.topic-partitions partitions; check cdc.connector.topic-replication-factor"
                            + " against the number of brokers.",
                    cause);
        }
    }

    /**
     * Fails when a change topic's {@code cleanup.policy} includes {@code compact} (as the broker reports it); the
     * topics must exist.
     */
    public void refuseCompactedTopics(Collection<String> topics) throws InterruptedException {
        List<ConfigResource> resources = topics.stream().distinct()
                .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
        Map<ConfigResource, Config> configs;
        try {
            configs = describeConfigs(resources);
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new StartupCheckException("Could not read the cleanup.policy of the change topics " + topics + ": " + cause,
                    "Give the connector's Kafka principal DESCRIBE_CONFIGS on these topics: a compacted change topic would"
                            + " make clients miss changes, so the connector checks it before it publishes.", cause);
        }
        List<String> compacted = new ArrayList<>();
        configs.forEach((resource, config) -> {
            ConfigEntry policy = config.get(TopicConfig.CLEANUP_POLICY_CONFIG);
            if (policy != null && policy.value() != null && policy.value().contains(TopicConfig.CLEANUP_POLICY_COMPACT)) {
                compacted.add(resource.name() + " (cleanup.policy=" + policy.value() + ")");
            }
        });
        if (!compacted.isEmpty()) {
            compacted.sort(null);
            throw new StartupCheckException("Change topic(s) " + String.join(", ", compacted) + " are compacted: compaction"
                    + " removes older changes of a key, so a client that reads compacted segments misses changes and deletes"
                    + " and keeps serving stale entries.",
                    "Set the topics' cleanup.policy to delete, e.g. kafka-configs.sh --bootstrap-server <broker> --alter"
                            + " --entity-type topics --entity-name <topic> --add-config cleanup.policy=delete (retention as"
                            + " retention.ms), or delete the topics and let the connector create them; then restart.");
        }
    }

    /**
     * The topics' configurations. A topic created a moment ago may not be in the answering broker's metadata yet
     * (UnknownTopicOrPartition, seen while the cluster was busy creating its transaction log): asked again until the
     * timeout, then the failure stands.
     */
    private Map<ConfigResource, Config> describeConfigs(List<ConfigResource> resources)
            throws ExecutionException, TimeoutException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long remainingMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
            try {
                return admin.describeConfigs(resources).all().get(remainingMillis, TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || System.nanoTime() > deadline - 200_000_000L) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    private void warnAboutFewerPartitions(Collection<String> topics) {
        try {
            Map<String, TopicDescription> descriptions = admin.describeTopics(topics).allTopicNames()
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            descriptions.values().stream().filter(d -> d.partitions().size() != partitions).forEach(d ->
                    log.warn("Topic {} has {} partitions, cdc.connector.topic-partitions says {}; left unchanged",
                            d.name(), d.partitions().size(), partitions));
        } catch (ExecutionException | TimeoutException e) {
            log.debug("Could not describe topics {}", topics, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
