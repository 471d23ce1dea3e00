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
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates every change topic up front, so that clients can subscribe before the first change is
 * committed. Existing topics are left as they are.
 */
public final class TopicProvisioner {

    private static final Logger log = LoggerFactory.getLogger(TopicProvisioner.class);

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
                    .map(t -> new NewTopic(t, partitions, replicationFactor)).toList();
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
