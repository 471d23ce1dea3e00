package dev.cdccache.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class GcPausesTest {

    @Test
    void countsStopTheWorldPausesAndIgnoresConcurrentPhases() {
        GcPauses pauses = new GcPauses()
                .addLine("[1.234s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 24M->4M(512M) 3.456ms")
                .addLine("[2.000s][info][gc] GC(1) Concurrent Mark Cycle 45.000ms")
                .addLine("[2.100s][info][gc] GC(1) Pause Remark 30M->30M(512M) 1.000ms")
                .addLine("[2.200s][info][gc] GC(1) Pause Cleanup 30M->30M(512M) 0.100ms")
                .addLine("[9.000s][info][gc] GC(5) Pause Full (System.gc()) 80M->60M(512M) 120.5ms")
                .addLine("[9.100s][info][gc] Using G1");
        assertThat(pauses.count()).isEqualTo(4);
        assertThat(pauses.totalMillis()).isEqualTo(125.056, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(pauses.summary().maxMicros()).isBetween(120_400L, 120_600L);
    }
}
