package dev.cdccache.connector.continuity;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;

class ContinuityHealthIndicatorTest {

    @Test
    void heldHeartbeatsMakeContinuityDownAndSayWhy() {
        ContinuityState state = new ContinuityState();
        state.set(new Continuity("epoch-1", Continuity.Verdict.RESUMED, "resumed", "", Instant.EPOCH));
        Optional<String>[] held = new Optional[] {Optional.empty()};

        ContinuityHealthIndicator indicator = new ContinuityHealthIndicator(state, () -> "held", () -> held[0]);
        assertThat(indicator.health().getStatus().getCode()).isEqualTo("UP");

        held[0] = Optional.of("the server compresses binlog events (log_bin_compress=ON)");
        Health health = indicator.health();
        assertThat(health.getStatus().getCode()).isEqualTo("DOWN");
        assertThat(health.getDetails().get("heartbeats")).asString().startsWith("held: ").contains("log_bin_compress");
        assertThat(health.getDetails().get("epoch")).isEqualTo("epoch-1");
    }
}
