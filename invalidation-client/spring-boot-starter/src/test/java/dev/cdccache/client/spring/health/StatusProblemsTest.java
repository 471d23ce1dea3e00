package dev.cdccache.client.spring.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.spring.health.ClientProblem.Severity;
import dev.cdccache.client.staleness.FreshnessProblem;
import dev.cdccache.client.staleness.FreshnessProblem.Kind;
import dev.cdccache.client.staleness.StalenessStatus;
import java.util.List;
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

    private static StalenessStatus notFresh(long watermark, long lastHeartbeat, List<FreshnessProblem> problems) {
        return new StalenessStatus(true, false, watermark, lastHeartbeat, 1_000, 5_000, 10_000, null, 0, problems);
    }

    @Test
    void aClientApplyingHeartbeatsButMissingATopicDoesNotSayNoHeartbeatWasApplied() {
        FreshnessProblem missing = new FreshnessProblem(Kind.MISSING_TOPIC, "cdc.shop.orders", Set.of("orders"),
                "topic cdc.shop.orders does not exist");

        String message = StatusProblems.notFresh(notFresh(Long.MIN_VALUE, 9_000, List.of(missing))).message();

        assertThat(message).doesNotContain("no connector heartbeat applied yet")
                .contains("heartbeats are applied, but not for every captured table (see the other problems)");
    }

    @Test
    void aClientThatHasAppliedNoHeartbeatSaysSoAndAnOldProofSaysItsAge() {
        assertThat(StatusProblems.notFresh(notFresh(Long.MIN_VALUE, Long.MIN_VALUE, List.of())).message())
                .contains("no connector heartbeat applied yet");
        assertThat(StatusProblems.notFresh(notFresh(2_000, 2_000, List.of())).message())
                .contains("changes applied up to 8000 ms ago");
    }
}
