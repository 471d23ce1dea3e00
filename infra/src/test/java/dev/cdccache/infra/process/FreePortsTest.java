package dev.cdccache.infra.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FreePortsTest {

    @Test
    void portsArePickedOutsideTheKernelsEphemeralRange() {
        int[] range = FreePorts.ephemeralRange();
        int low = range[0];
        int high = range[1];
        assumeTrue(FreePorts.pickRange(new int[] {low, high}) != null, "no room outside the ephemeral range here");
        for (int i = 0; i < 20; i++) {
            int port = FreePorts.next();
            assertThat(port < low || port > high).as("port %d is in the range %d-%d outgoing connections take",
                    port, low, high).isTrue();
        }
    }

    @Test
    void noPortIsHandedOutTwice() {
        Set<Integer> picked = new HashSet<>();
        for (int i = 0; i < 300; i++) {
            assertThat(picked.add(FreePorts.next())).isTrue();
        }
    }

    @Test
    void aPortThisJvmReservedCannotBeReservedAgain() {
        int port = FreePorts.next();
        assertThat(FreePorts.reserve(port)).isFalse();
    }

    @Test
    void theRangeIsAboveTheEphemeralOneWhenThereIsRoomElseBelowIt() {
        assertThat(FreePorts.pickRange(new int[] {32_768, 60_999})).containsExactly(61_000, 65_535);
        assertThat(FreePorts.pickRange(new int[] {40_000, 65_000})).containsExactly(10_000, 39_999);
        assertThat(FreePorts.pickRange(new int[] {1_024, 65_535})).isNull();
    }
}
