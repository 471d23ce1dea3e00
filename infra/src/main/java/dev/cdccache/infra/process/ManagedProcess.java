package dev.cdccache.infra.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;
import java.util.regex.Pattern;

/**
 * A child process of this JVM with its output in a log file, readiness waits, graceful and abrupt stop,
 * and a watchdog that kills it if this JVM dies first.
 *
 * <p>Thread-safe for stop/kill; start once.
 */
public class ManagedProcess {

    private final String name;
    private final Process process;
    private final Path logFile;
    /** What {@link #onExit} registered; done once it has run. */
    private volatile CompletableFuture<Void> exitAction = CompletableFuture.completedFuture(null);

    ManagedProcess(String name, Process process, Path logFile) {
        this.name = name;
        this.process = process;
        this.logFile = logFile;
    }

    /** For subclasses that add behaviour to a started process. */
    protected ManagedProcess(ManagedProcess started) {
        this(started.name, started.process, started.logFile);
        this.exitAction = started.exitAction;
    }

    /**
     * Starts {@code command} with its stdout and stderr appended to {@code logFile}, guarded by a watchdog.
     */
    public static ManagedProcess start(String name, List<String> command, Map<String, String> env,
            Path workDir, Path logFile) {
        try {
            Files.createDirectories(logFile.toAbsolutePath().getParent());
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
            if (workDir != null) {
                builder.directory(workDir.toFile());
            }
            builder.environment().putAll(env);
            Process process = builder.start();
            ParentWatchdog.guard(process.pid());
            return new ManagedProcess(name, process, logFile);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + name + ": " + command.get(0), e);
        }
    }

    public String name() {
        return name;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public Path logFile() {
        return logFile;
    }

    /** The exit code, or throws if the process is still running. */
    public int exitValue() {
        return process.exitValue();
    }

    /**
     * Runs {@code action} with the exit code once the process has ended; {@link #waitFor}, {@link #stop} and
     * {@link #kill} return only after it has run, so that what comes next (a restart) sees its effect.
     */
    void onExit(IntConsumer action) {
        exitAction = process.onExit().thenAccept(ended -> action.accept(ended.exitValue()));
    }

    private void awaitExitAction() {
        try {
            exitAction.get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // the action is housekeeping (infra's StartupArchive): its failure must not fail a stop
        }
    }

    /** Waits for the process to end by itself and returns its exit code. */
    public int waitFor(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(name + " did not exit within " + timeout + "; log: " + logFile);
            }
            awaitExitAction();
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** SIGTERM, then SIGKILL if the process has not ended within {@code grace}. */
    public void stop(Duration grace) {
        if (!process.isAlive()) {
            awaitExitAction();
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                kill();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill();
        }
        awaitExitAction();
    }

    /** SIGKILL: no shutdown hooks, no flushing; waits until the process is gone. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        awaitExitAction();
    }

    /** Waits until a line of the log matches {@code regex}; fails early if the process dies. */
    public void awaitLogLine(String regex, Duration timeout) {
        Pattern pattern = Pattern.compile(regex);
        awaitCondition("a log line matching /" + regex + "/", timeout, () -> logContains(pattern));
    }

    /** Waits until {@code url} answers HTTP 200; fails early if the process dies. */
    public void awaitHttpOk(String url, Duration timeout) {
        awaitCondition("HTTP 200 from " + url, timeout, () -> httpOk(url));
    }

    /** Waits until {@code condition} holds; fails with the log's tail if the process dies or time runs out. */
    public void awaitCondition(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (condition.getAsBoolean()) {
                return;
            }
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with code " + process.exitValue()
                        + " while waiting for " + what + ". Last lines of " + logFile + ":\n" + tail(40));
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(name + " did not show " + what + " within " + timeout
                        + ". Last lines of " + logFile + ":\n" + tail(40));
            }
            sleep(100);
        }
    }

    /** The last {@code lines} lines of the log, for error messages. */
    public String tail(int lines) {
        try {
            List<String> all = Files.readAllLines(logFile, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(log not readable: " + e.getMessage() + ")";
        }
    }

    private boolean logContains(Pattern pattern) {
        try (var lines = Files.lines(logFile, StandardCharsets.UTF_8)) {
            return lines.anyMatch(line -> pattern.matcher(line).find());
        } catch (IOException | UncheckedIOException e) {
            return false;
        }
    }

    static boolean httpOk(String url) {
        try {
            HttpURLConnection connection = (HttpURLConnection) URI.create(url).toURL().openConnection();
            connection.setConnectTimeout(500);
            connection.setReadTimeout(2000);
            try {
                return connection.getResponseCode() == 200;
            } finally {
                connection.disconnect();
            }
        } catch (IOException e) {
            return false;
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public String toString() {
        return name + "[pid " + process.pid() + (process.isAlive() ? "" : ", exited") + "]";
    }
}
