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

class ParentWatchdogIT {

    @Test
    void childrenOfAJvmKilledWithSigkillDoNotOutliveIt(@TempDir Path dir) throws Exception {
        List<Path> classpath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(Path::of).toList();
        JavaProcess parent = JavaProcess.builder("guarded-sleeper")
                .mainClass(GuardedSleeper.class.getName(), classpath)
                .arg(dir.toString())
                .logFile(dir.resolve("parent.log"))
                .start();
        parent.awaitLogLine("GRANDCHILD_PID=\\d+", Duration.ofSeconds(30));
        Matcher m = Pattern.compile("GRANDCHILD_PID=(\\d+)").matcher(Files.readString(parent.logFile()));
        assertThat(m.find()).isTrue();
        long grandchild = Long.parseLong(m.group(1));
        assertThat(ProcessHandle.of(grandchild).map(ProcessHandle::isAlive)).contains(true);

        parent.kill(); // SIGKILL: no shutdown hook runs in the parent

        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (ProcessHandle.of(grandchild).map(ProcessHandle::isAlive).orElse(false) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(ProcessHandle.of(grandchild).map(ProcessHandle::isAlive).orElse(false))
                .as("grandchild %d still alive 10 s after its parent JVM was killed", grandchild)
                .isFalse();
    }
}
