package dev.cdccache.connector.check;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * What the connector's Kafka principal may do with the topics it uses, asked of the brokers without changing
 * anything: for an existing topic its authorized operations, for a missing one a validate-only creation (which
 * also checks the partitions and replication factor against the brokers).
 */
final class KafkaAccess {

    /** Why the connector uses a topic, and what it therefore needs on it. */
    enum Use {
        /** Change topics and the heartbeat topic: written, their cleanup.policy read. */
        CHANGES(EnumSet.of(AclOperation.DESCRIBE, AclOperation.WRITE, AclOperation.DESCRIBE_CONFIGS)),
        /** Offsets and schema history: written and read back at start. */
        STATE(EnumSet.of(AclOperation.DESCRIBE, AclOperation.READ, AclOperation.WRITE));

        final Set<AclOperation> needs;

        Use(Set<AclOperation> needs) {
            this.needs = needs;
        }
    }

    /** One topic's verdict: a problem (with fix) or null, and what was found. */
    record Finding(String topic, boolean exists, String problem, String fix, String detail) {
    }

    private final Admin admin;
    private final Duration timeout;

    KafkaAccess(Admin admin, Duration timeout) {
        this.admin = admin;
        this.timeout = timeout;
    }

    List<Finding> check(Map<String, Use> topics, int partitions, short replicationFactor) throws InterruptedException {
        List<Finding> findings = new ArrayList<>();
        Set<String> existing;
        try {
            existing = admin.listTopics().names().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            findings.add(new Finding("*", false, "could not list topics: " + cause(e),
                    "give the connector's principal DESCRIBE on its topics", null));
            return findings;
        }
        Map<String, Use> present = new LinkedHashMap<>();
        topics.forEach((topic, use) -> {
            if (existing.contains(topic)) {
                present.put(topic, use);
            }
        });
        if (!present.isEmpty()) {
            try {
                Map<String, TopicDescription> descriptions = admin.describeTopics(present.keySet(),
                        new DescribeTopicsOptions().includeAuthorizedOperations(true)).allTopicNames()
                        .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                present.forEach((topic, use) -> findings.add(judge(descriptions.get(topic), use, replicationFactor)));
            } catch (ExecutionException | TimeoutException e) {
                findings.add(new Finding(String.join(", ", present.keySet()), true, "could not describe: " + cause(e),
                        "give the connector's principal DESCRIBE on these topics", null));
            }
        }
        for (Map.Entry<String, Use> missing : topics.entrySet()) {
            if (present.containsKey(missing.getKey())) {
                continue;
            }
            String topic = missing.getKey();
            // the connector creates change topics with the configured partitions, its own state topics with one
            int topicPartitions = missing.getValue() == Use.CHANGES ? partitions : 1;
            try {
                admin.createTopics(List.of(new NewTopic(topic, topicPartitions, replicationFactor)),
                        new CreateTopicsOptions().validateOnly(true)).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                findings.add(new Finding(topic, false, null, null, "does not exist yet; the connector may create it ("
                        + topicPartitions + " partition(s), replication factor " + replicationFactor + ")"));
            } catch (ExecutionException e) {
                if (e.getCause() instanceof TopicExistsException) {
                    findings.add(new Finding(topic, true, "exists, but the connector's principal may not DESCRIBE it",
                            "grant DESCRIBE, WRITE and DESCRIBE_CONFIGS (READ for offsets and schema history)", null));
                } else {
                    findings.add(new Finding(topic, false, "the connector could not create it: " + cause(e),
                            "grant CREATE on the topic (or the cluster), or create it yourself with " + partitions
                                    + " partition(s) and cleanup.policy=delete; check cdc.connector.topic-replication-factor"
                                    + " against the number of brokers", null));
                }
            } catch (TimeoutException e) {
                findings.add(new Finding(topic, false, "no answer to a validate-only creation within " + timeout.toSeconds()
                        + " s", "check the brokers", null));
            }
        }
        return findings;
    }

    private static Finding judge(TopicDescription description, Use use, short replicationFactor) {
        String topic = description.name();
        int replicas = description.partitions().isEmpty() ? 0 : description.partitions().get(0).replicas().size();
        String detail = description.partitions().size() + " partition(s), replication factor " + replicas;
        Set<AclOperation> allowed = description.authorizedOperations();
        if (allowed != null && !allowed.contains(AclOperation.ALL)) {
            Set<AclOperation> missing = EnumSet.copyOf(use.needs);
            missing.removeAll(allowed);
            if (!missing.isEmpty()) {
                return new Finding(topic, true, "the connector's principal lacks " + missing + " (it may " + allowed + ")",
                        "kafka-acls.sh --add --allow-principal User:<connector> --topic " + topic + " "
                                + missing.stream().map(o -> "--operation " + o.name()).reduce((a, b) -> a + " " + b).orElse(""),
                        detail);
            }
        }
        if (replicas < replicationFactor) {
            return new Finding(topic, true, detail + ", below cdc.connector.topic-replication-factor " + replicationFactor
                    + ": one broker's loss can lose changes", "reassign the partitions to more brokers, or re-create the"
                    + " topic while no connector runs", detail);
        }
        return new Finding(topic, true, null, null, detail);
    }

    private static String cause(Exception e) {
        Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        return cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }
}
