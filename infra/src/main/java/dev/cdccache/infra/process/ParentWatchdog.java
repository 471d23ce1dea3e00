package dev.cdccache.infra.process;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Kills a child process when the JVM that started it dies, however it dies (including SIGKILL, when no
 * shutdown hook runs). Linux has no portable "parent death signal" from Java, so a tiny shell loop
 * watches both PIDs; it exits by itself when the child ends first.
 */
final class ParentWatchdog {

    private ParentWatchdog() {
    }

    static void guard(long childPid) {
        long parentPid = ProcessHandle.current().pid();
        String script = "while kill -0 " + parentPid + " 2>/dev/null && kill -0 " + childPid
                + " 2>/dev/null; do sleep 1; done; kill -9 " + childPid + " 2>/dev/null; exit 0";
        try {
            new ProcessBuilder("setsid", "bash", "-c", script)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the watchdog for pid " + childPid, e);
        }
    }
}
