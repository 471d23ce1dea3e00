package dev.cdccache.client.consuming;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Finding compacted change topics without ever blocking the consumer thread, and surviving failed lookups. */
class TopicPolicyCheckTest {

    private static final String COUPON = "cdc.coupon_db.coupon";
    private static final String TICKET = "cdc.ticket_db.ticket";
    private static final String HEARTBEAT = "cdc.cdc_meta.heartbeat";

    /** Lookups the test completes by hand. */
    static final class ManualPolicies implements TopicPolicies {
        final List<Set<String>> requested = new ArrayList<>();
        final List<CompletableFuture<Map<String, String>>> answers = new ArrayList<>();
        boolean closed;

        @Override
        public CompletableFuture<Map<String, String>> cleanupPolicies(Set<String> topics) {
            requested.add(topics);
            CompletableFuture<Map<String, String>> answer = new CompletableFuture<>();
            answers.add(answer);
            return answer;
        }

        CompletableFuture<Map<String, String>> last() {
            return answers.get(answers.size() - 1);
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private final ManualPolicies policies = new ManualPolicies();
    private final TopicPolicyCheck check = new TopicPolicyCheck(policies, Set.of(COUPON, TICKET));

    @Test
    void boundTopicsThatAppearAreLookedUpInTheBackgroundAndTheCompactedOnesFound() {
        check.topicsAppeared(List.of(COUPON, TICKET, HEARTBEAT));
        check.poll(0);
        assertThat(policies.requested).containsExactly(Set.of(COUPON, TICKET));
        check.poll(10);
        assertThat(policies.requested).as("one lookup at a time").hasSize(1);
        assertThat(check.compacted()).as("not answered yet: nothing waited for").isEmpty();

        policies.last().complete(Map.of(COUPON, "compact,delete", TICKET, "delete"));
        check.poll(20);
        assertThat(check.compacted()).containsExactly(COUPON);
        check.poll(30);
        assertThat(policies.requested).as("each topic looked up once").hasSize(1);
    }

    @Test
    void aFailedLookupIsRetriedAfterAPauseAndNeverThrows() {
        check.topicsAppeared(List.of(COUPON));
        check.poll(0);
        policies.last().completeExceptionally(new IllegalStateException("simulated: DescribeConfigs denied"));
        check.poll(10);
        assertThat(check.compacted()).isEmpty();
        check.poll(10 + TopicPolicyCheck.RETRY_MILLIS - 1);
        assertThat(policies.requested).hasSize(1);

        check.poll(10 + TopicPolicyCheck.RETRY_MILLIS);
        assertThat(policies.requested).hasSize(2);
        policies.last().complete(Map.of(COUPON, "compact"));
        check.poll(20 + TopicPolicyCheck.RETRY_MILLIS);
        assertThat(check.compacted()).containsExactly(COUPON);
    }

    @Test
    void aCompactedTopicIsLookedUpAgainSoThatFixingItsPolicyClearsIt() {
        check.topicsAppeared(List.of(COUPON));
        check.poll(0);
        policies.last().complete(Map.of(COUPON, "compact"));
        check.poll(1);
        assertThat(check.compacted()).containsExactly(COUPON);

        check.poll(1 + TopicPolicyCheck.RECHECK_MILLIS);
        assertThat(policies.requested).hasSize(2);
        policies.last().complete(Map.of(COUPON, "delete"));
        check.poll(2 + TopicPolicyCheck.RECHECK_MILLIS);
        assertThat(check.compacted()).isEmpty();

        check.close();
        assertThat(policies.closed).isTrue();
    }
}
