package dev.cdccache.verifier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdccache.client.StalenessCheck;
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
    void instancesAlternateStalenessChecksUnlessOneIsChosen() {
        VerifierSettings mixed = VerifierSettings.parse(new String[0]);
        assertThat(mixed.stalenessCheckOf(1)).isEqualTo(StalenessCheck.EVERY_HIT);
        assertThat(mixed.stalenessCheckOf(2)).isEqualTo(StalenessCheck.SCHEDULED);
        assertThat(mixed.stalenessCheckOf(3)).isEqualTo(StalenessCheck.EVERY_HIT);
        VerifierSettings scheduled = VerifierSettings.parse(new String[] {"--staleness-check", "scheduled"});
        assertThat(scheduled.stalenessCheckOf(1)).isEqualTo(StalenessCheck.SCHEDULED);
        assertThatThrownBy(() -> VerifierSettings.parse(new String[] {"--staleness-check", "sometimes"}))
                .hasMessageContaining("every-hit, scheduled or mixed");
    }

    @Test
    void samplingIsOnByDefaultAndCanBeSwitchedOff() {
        assertThat(VerifierSettings.parse(new String[0]).samplingOneIn()).isEqualTo(20);
        VerifierSettings off = VerifierSettings.parse(new String[] {"--sampling-one-in", "0"});
        assertThat(off.samplingOn()).isFalse();
        assertThat(off.toString()).contains("consistency sampling off");
        assertThatThrownBy(() -> VerifierSettings.parse(new String[] {"--sampling-max-per-second", "0"}))
                .hasMessageContaining("--sampling-max-per-second must be at least 1");
    }

    @Test
    void anUnknownOptionIsRejectedWithTheKnownOnes() {
        assertThatThrownBy(() -> VerifierSettings.parse(new String[] {"--speed", "fast"}))
                .hasMessageContaining("unknown option --speed").hasMessageContaining("--duration");
    }

    @Test
    void connectorPropertiesAreAddedInOrderAndNamedInTheSettings() {
        VerifierSettings s = VerifierSettings.parse(new String[] {
                "--connector-property", "cdc.connector.large-transactions.evict-table-after-rows=500",
                "--connector-property", "cdc.connector.columns.include[0]=verifier_db.item.id"});

        assertThat(s.connectorProperties).containsExactly(
                java.util.Map.entry("cdc.connector.large-transactions.evict-table-after-rows", "500"),
                java.util.Map.entry("cdc.connector.columns.include[0]", "verifier_db.item.id"));
        assertThat(s.toString()).contains("connector settings {cdc.connector.large-transactions");
        assertThatThrownBy(() -> VerifierSettings.parse(new String[] {"--connector-property", "no-value"}))
                .hasMessageContaining("name=value");
    }
}
