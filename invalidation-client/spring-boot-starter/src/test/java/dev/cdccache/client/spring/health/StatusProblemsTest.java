package dev.cdccache.client.spring.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.spring.health.ClientProblem.Severity;
import dev.cdccache.client.staleness.FreshnessProblem;
import dev.cdccache.client.staleness.FreshnessProblem.Kind;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** How health classifies the core's freshness problems: the status a readiness probe acts on depends on it. */
class StatusProblemsTest {

    private static ClientProblem classify(Kind kind) {
        return StatusProblems.classify(new FreshnessProblem(kind, "cdc.shop.orders", Set.of("orders"), "what"));
    }

    @Test
    void aCompactedChangeTopicNeedsAnOperatorLikeAMissingTopic() {
        assertThat(classify(Kind.COMPACTED_TOPIC).severity()).isEqualTo(Severity.REQUIRES_ACTION);
        assertThat(classify(Kind.COMPACTED_TOPIC).code()).isEqualTo("compacted-topic");
        assertThat(classify(Kind.MISSING_TOPIC).severity()).isEqualTo(Severity.REQUIRES_ACTION);
    }

    @Test
    void aSilentConnectorClockSkewAndAFailingConsumerClearByThemselves() {
        // Shared by every instance at once: taking them all out of rotation would turn them into an outage.
        assertThat(classify(Kind.SILENT_CONNECTOR)).extracting(ClientProblem::severity, ClientProblem::code)
                .containsExactly(Severity.TRANSIENT, "silent-connector");
        assertThat(classify(Kind.CLOCK_SKEW)).extracting(ClientProblem::severity, ClientProblem::code)
                .containsExactly(Severity.TRANSIENT, "clock-skew");
        assertThat(classify(Kind.CONSUMER_FAILING).severity()).isEqualTo(Severity.TRANSIENT);
    }
}
