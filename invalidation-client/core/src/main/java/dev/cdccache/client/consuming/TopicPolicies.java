package dev.cdccache.client.consuming;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;

/**
 * Looks up the {@code cleanup.policy} of topics, so that the client can refuse compacted change topics. Lookups
 * are asynchronous: the consumer thread never waits for them, and a failing lookup (Kafka down, no
 * {@code DescribeConfigs} permission) never stops consumption.
 */
public interface TopicPolicies extends AutoCloseable {

    /**
     * Starts looking up the {@code cleanup.policy} of {@code topics}.
     *
     * @return completes with each topic's policy (topics that do not exist are left out), or fails
     */
    CompletableFuture<Map<String, String>> cleanupPolicies(Set<String> topics);

    /** Releases the lookups' resources; pending lookups may fail. */
    @Override
    void close();

    /**
     * Lookups through a Kafka {@link Admin} client made from {@code clientProperties} (the consumer's
     * connection and security settings: only the ones an admin client knows are passed on). The client is
     * created on first use, on a thread of its own, so that an unreachable or unresolvable cluster does not hold
     * up the caller.
     */
    static TopicPolicies admin(Map<String, Object> clientProperties, long timeoutMillis) {
        Map<String, Object> properties = new HashMap<>();
        clientProperties.forEach((key, value) -> {
            if (AdminClientConfig.configNames().contains(key)) {
                properties.put(key, value);
            }
        });
        return new AdminTopicPolicies(properties, timeoutMillis);
    }

    /** The {@link Admin}-backed lookups of {@link #admin}. */
    final class AdminTopicPolicies implements TopicPolicies {
        private final Map<String, Object> properties;
        private final int timeoutMillis;
        private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
            Thread thread = new Thread(r, "cdc-invalidation-topic-policies");
            thread.setDaemon(true);
            return thread;
        });
        private Admin admin; // executor thread only

        private AdminTopicPolicies(Map<String, Object> properties, long timeoutMillis) {
            this.properties = Map.copyOf(properties);
            this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, timeoutMillis);
        }

        @Override
        public CompletableFuture<Map<String, String>> cleanupPolicies(Set<String> topics) {
            return CompletableFuture.supplyAsync(() -> describe(topics), executor);
        }

        private Map<String, String> describe(Set<String> topics) {
            if (admin == null) {
                admin = Admin.create(properties);
            }
            List<ConfigResource> resources = new ArrayList<>();
            topics.forEach(topic -> resources.add(new ConfigResource(ConfigResource.Type.TOPIC, topic)));
            Map<ConfigResource, Config> configs;
            try {
                configs = admin.describeConfigs(resources, new DescribeConfigsOptions().timeoutMs(timeoutMillis))
                        .all().get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            } catch (java.util.concurrent.ExecutionException e) {
                if (e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException) {
                    return Map.of(); // a topic deleted meanwhile: looked up again if it comes back
                }
                throw new IllegalStateException(e.getCause());
            }
            Map<String, String> policies = new HashMap<>();
            configs.forEach((resource, config) -> {
                ConfigEntry policy = config.get(TopicConfig.CLEANUP_POLICY_CONFIG);
                policies.put(resource.name(), policy == null || policy.value() == null
                        ? TopicConfig.CLEANUP_POLICY_DELETE : policy.value());
            });
            return policies;
        }

        @Override
        public void close() {
            executor.execute(() -> {
                if (admin != null) {
                    admin.close(java.time.Duration.ofSeconds(2));
                }
            });
            executor.shutdown();
        }
    }
}
