package dev.cdccache.infra.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FreePortsIT {

    @Test
    void aPortPickedByOneJvmIsNotHandedToAnotherUntilTheFirstExits(@TempDir Path dir) throws Exception {
        int held = FreePorts.next();
        // asked again, as a later pick may draw it: the answer is no, and the reservation must survive the asking
        assertThat(FreePorts.reserve(held)).isFalse();
        List<Path> classpath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(Path::of).toList();
        Path exitFlag = dir.resolve("exit");
        JavaProcess child = JavaProcess.builder("port-reserver")
                .mainClass(PortReserver.class.getName(), classpath)
                .arg(Integer.toString(held))
                .arg(exitFlag.toString())
                .logFile(dir.resolve("child.log"))
                .start();
        try {
            child.awaitLogLine("RESERVED=\\w+ PICKED=\\d+", Duration.ofSeconds(30));
            Matcher m = Pattern.compile("RESERVED=(\\w+) PICKED=(\\d+)").matcher(Files.readString(child.logFile()));
            assertThat(m.find()).isTrue();
            assertThat(m.group(1)).as("the child could reserve the port this JVM picked").isEqualTo("false");
            int picked = Integer.parseInt(m.group(2));
            assertThat(picked).isNotEqualTo(held);
            assertThat(FreePorts.reserve(picked)).as("this JVM could reserve the port the running child picked")
                    .isFalse();

            Files.createFile(exitFlag);
            child.waitFor(Duration.ofSeconds(30));
            assertThat(FreePorts.reserve(picked)).as("the child's port once the child has exited").isTrue();
        } finally {
            child.kill();
        }
    }
}
