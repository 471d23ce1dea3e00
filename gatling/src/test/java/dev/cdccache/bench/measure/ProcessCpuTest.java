package dev.cdccache.bench.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class ProcessCpuTest {

    @Test
    void utimePlusStimeInSecondsCountedFromTheLastParenthesis() {
        // a command name with spaces and a parenthesis of its own must not shift the fields
        String line = "4242 (java (C2) x) S 1 4242 4242 0 -1 4194560 9000 0 0 0 1234 566 0 0 20 0 40 0 100 0 0";
        assertThat(ProcessCpu.cpuSeconds(line, 100)).isCloseTo(18.0, within(1e-9));
    }

    @Test
    void ownProcessIsReadable() {
        assertThat(ProcessCpu.read(ProcessHandle.current().pid(), 100)).isPresent();
    }
}
