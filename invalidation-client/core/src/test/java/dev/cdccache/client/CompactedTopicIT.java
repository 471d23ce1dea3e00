package dev.cdccache.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.cdccache.client.staleness.FreshnessProblem;
import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.kafka.KafkaBroker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A change topic with {@code cleanup.policy=compact} on a real broker: the client reads its policy through an
 * admin client, refuses it as a configuration problem (health DOWN) and says so in a WARN naming it, and stops
 * proving its caches, while a topic with the default policy next to it is not reported and stays fresh.
 */
class CompactedTopicIT {

    @Test
    void aCompactedChangeTopicIsAConfigurationProblemNamedInAWarning() throws Exception {
        KafkaBroker kafka = LocalStack.shared().kafka();
        String prefix = "compact" + ProcessHandle.current().pid() + "x" + System.nanoTime();
        String compacted = prefix + ".shop.item";
        String deleting = prefix + ".shop.tag";
        try (Admin admin = kafka.admin()) {
            admin.createTopics(List.of(
                    new NewTopic(compacted, 1, (short) 1)
                            .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT)),
                    new NewTopic(deleting, 1, (short) 1),
                    new NewTopic(prefix + ".cdc_meta.heartbeat", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        Logger logger = (Logger) LoggerFactory.getLogger("dev.cdccache.client.consuming");
        logger.addAppender(log);
        try (InvalidationClient client = new InvalidationClient(InvalidationClientConfig.builder()
                .bootstrapServers(kafka.bootstrapServers())
                .topicPrefix(prefix)
                .heartbeatRequired(false)
                .cache(CacheDefinition.builder("items").table("shop.item").keyColumns("id").build())
                .cache(CacheDefinition.builder("tags").table("shop.tag").keyColumns("item_id").build())
                .build())) {
            client.start();
            assertThat(client.awaitReady(Duration.ofSeconds(30))).isTrue();

            await().atMost(Duration.ofSeconds(30)).until(() -> client.problems().stream()
                    .anyMatch(p -> p.kind() == FreshnessProblem.Kind.COMPACTED_TOPIC));
            assertThat(client.problems()).filteredOn(p -> p.kind() == FreshnessProblem.Kind.COMPACTED_TOPIC)
                    .singleElement().satisfies(p -> {
                        assertThat(p.subject()).isEqualTo(compacted);
                        assertThat(p.caches()).containsExactly("items");
                    });
            assertThat(client.status().misconfigured()).isTrue();
            assertThat(log.list).filteredOn(e -> e.getLevel() == Level.WARN)
                    .extracting(ILoggingEvent::getFormattedMessage)
                    .anySatisfy(line -> assertThat(line).contains(compacted).contains("cleanup.policy=compact")
                            .doesNotContain(deleting));
            // Reading it to its end proves nothing any more: once its last proof is older than the bound, it is
            // not fresh, while the other topic's cache stays fresh.
            await().atMost(Duration.ofSeconds(30)).until(() -> !client.cacheStatus("items").fresh());
            assertThat(client.cacheStatus("tags").fresh()).isTrue();
        } finally {
            logger.detachAppender(log);
        }
    }
}
