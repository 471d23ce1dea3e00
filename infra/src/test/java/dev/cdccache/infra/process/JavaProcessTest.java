package dev.cdccache.infra.process;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JavaProcessTest {

    @Test
    void childJvmOptionsAreTheWhitespaceSeparatedWordsOfTheProperty() {
        assertThat(JavaProcess.childJvmOptions(" -XX:TieredStopAtLevel=1 \t -Xss512k\n"))
                .containsExactly("-XX:TieredStopAtLevel=1", "-Xss512k");
    }

    @Test
    void childrenGetNoExtraOptionsWhenThePropertyIsUnsetOrBlank() {
        assertThat(JavaProcess.childJvmOptions(null)).isEmpty();
        assertThat(JavaProcess.childJvmOptions("  ")).isEmpty();
    }
}
