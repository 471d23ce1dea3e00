package dev.cdccache.infra.process;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** Run as a child JVM by {@code ParentWatchdogIT}: starts a guarded {@code sleep}, prints its pid, waits. */
public final class GuardedSleeper {

    public static void main(String[] args) throws InterruptedException {
        Path dir = Path.of(args[0]);
        ManagedProcess sleeper = ManagedProcess.start("sleep", List.of("sleep", "600"), Map.of(), dir,
                dir.resolve("sleep.log"));
        System.out.println("GRANDCHILD_PID=" + sleeper.pid());
        System.out.flush();
        Thread.sleep(600_000);
    }
}
