package dev.cdccache.connector.startup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.junit.LocalStackExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Against a real broker: change topics are created with {@code cleanup.policy=delete}, and a compacted one is refused. */
@ExtendWith(LocalStackExtension.class)
class TopicProvisionerIT {

    private Admin admin;
    private TopicProvisioner provisioner;

    @BeforeEach
    void connect(LocalStack stack) {
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka().bootstrapServers()));
        provisioner = new TopicProvisioner(admin, 2, (short) 1, Duration.ofSeconds(15));
    }

    @AfterEach
    void close() {
        admin.close();
    }

    private String cleanupPolicy(String topic) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        return admin.describeConfigs(List.of(resource)).all().get(15, TimeUnit.SECONDS).get(resource)
                .get(TopicConfig.CLEANUP_POLICY_CONFIG).value();
    }

    private void createTopic(String topic, String cleanupPolicy) throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, cleanupPolicy))))
                .all().get(15, TimeUnit.SECONDS);
    }

    @Test
    void changeTopicsAreCreatedWithTheDeletePolicyEvenWhereTheBrokerDefaultCompacts() throws Exception {
        ConfigResource cluster = new ConfigResource(ConfigResource.Type.BROKER, ""); // cluster-wide default
        setClusterDefault(cluster, new AlterConfigOp(new ConfigEntry("log.cleanup.policy", "compact"), AlterConfigOp.OpType.SET));
        try {
            List<String> created = provisioner.createMissing(List.of("provision.shop.coupon", "provision.shop.place"));

            assertThat(created).containsExactlyInAnyOrder("provision.shop.coupon", "provision.shop.place");
            assertThat(cleanupPolicy("provision.shop.coupon")).isEqualTo("delete");
            assertThat(cleanupPolicy("provision.shop.place")).isEqualTo("delete");
        } finally {
            setClusterDefault(cluster, new AlterConfigOp(new ConfigEntry("log.cleanup.policy", ""), AlterConfigOp.OpType.DELETE));
        }
    }

    private void setClusterDefault(ConfigResource cluster, AlterConfigOp op) throws Exception {
        admin.incrementalAlterConfigs(Map.of(cluster, List.of(op))).all().get(15, TimeUnit.SECONDS);
    }

    @Test
    void anExistingCompactedChangeTopicStopsStartUpWithHowToFixIt() throws Exception {
        createTopic("compacted.shop.coupon", "compact");
        createTopic("compacted.shop.both", "compact,delete");
        createTopic("compacted.shop.fine", "delete");

        StartupCheckException failure = catchThrowableOfType(StartupCheckException.class, () -> provisioner.createMissing(
                List.of("compacted.shop.coupon", "compacted.shop.both", "compacted.shop.fine", "compacted.shop.new")));

        assertThat(failure).isNotNull();
        assertThat(failure.getMessage()).contains("compacted.shop.coupon (cleanup.policy=compact)")
                .contains("compacted.shop.both (cleanup.policy=compact,delete)").doesNotContain("compacted.shop.fine")
                .contains("misses changes and deletes");
        assertThat(failure.fix()).contains("--add-config cleanup.policy=delete").contains("restart");
    }

    @Test
    void anExistingDeletePolicyTopicIsAccepted() throws Exception {
        createTopic("kept.shop.coupon", "delete");

        assertThat(provisioner.createMissing(List.of("kept.shop.coupon", "kept.shop.place"))).containsExactly("kept.shop.place");
        assertThat(cleanupPolicy("kept.shop.place")).isEqualTo("delete");
    }
}
