package dev.cdccache.verifier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdccache.verifier.fault.FaultKind;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class VerifierSettingsTest {

    @Test
    void commandLineOptionsOverrideTheLongForm() {
        VerifierSettings s = VerifierSettings.parse(new String[] {"--duration", "12m", "--max-staleness", "2500ms",
                "--faults", "connector-kill,kafka-restart"});

        assertThat(s.duration()).isEqualTo(Duration.ofMinutes(12));
        assertThat(s.maxStaleness()).isEqualTo(Duration.ofMillis(2500));
        assertThat(s.faults).containsExactly(FaultKind.CONNECTOR_KILL, FaultKind.KAFKA_RESTART);
    }

    @Test
    void anUnknownOptionIsRejectedWithTheKnownOnes() {
        assertThatThrownBy(() -> VerifierSettings.parse(new String[] {"--speed", "fast"}))
                .hasMessageContaining("unknown option --speed").hasMessageContaining("--duration");
    }
}
