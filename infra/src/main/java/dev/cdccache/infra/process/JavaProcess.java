package dev.cdccache.infra.process;

import java.io.File;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * A child JVM (an executable jar or a main class on a classpath), run with the same Java as this JVM.
 *
 * <pre>{@code
 * JavaProcess connector = JavaProcess.builder("cdc-connector")
 *         .jar(Path.of("target/cdc-connector.jar"))
 *         .arg("--server.port=18080")
 *         .logFile(Path.of("target/connector.log"))
 *         .start();
 * connector.awaitHttpOk("http://127.0.0.1:18080/actuator/health", Duration.ofSeconds(60));
 * connector.kill(); // SIGKILL
 * }</pre>
 */
public final class JavaProcess extends ManagedProcess {

    /**
     * JVM options every child gets before its own, from the system property {@code infra.child-jvm-options}
     * (whitespace-separated): the build's integration tests set it so that the JVMs they start compile as they do.
     */
    static final List<String> CHILD_JVM_OPTIONS = childJvmOptions(System.getProperty("infra.child-jvm-options"));

    private final Builder spec;

    static List<String> childJvmOptions(String property) {
        return property == null || property.isBlank() ? List.of() : List.of(property.trim().split("\\s+"));
    }

    private JavaProcess(ManagedProcess started, Builder spec) {
        super(started);
        this.spec = spec;
    }

    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** Starts a new JVM with the same settings (same log file, appended). */
    public JavaProcess restart(Duration grace) {
        stop(grace);
        return spec.start();
    }

    /** Builds and starts a {@link JavaProcess}. */
    public static final class Builder {
        private final String name;
        private Path jar;
        private String mainClass;
        private List<Path> classpath = List.of();
        private final List<String> jvmArgs = new ArrayList<>();
        private final List<String> args = new ArrayList<>();
        private final Map<String, String> env = new LinkedHashMap<>();
        private Path logFile;
        private Path workDir;
        private boolean startupArchive = StartupArchive.ENABLED;

        private Builder(String name) {
            this.name = Objects.requireNonNull(name, "name");
        }

        public Builder jar(Path jar) {
            this.jar = jar;
            return this;
        }

        public Builder mainClass(String mainClass, List<Path> classpath) {
            this.mainClass = mainClass;
            this.classpath = List.copyOf(classpath);
            return this;
        }

        public Builder arg(String arg) {
            args.add(arg);
            return this;
        }

        public Builder args(List<String> more) {
            args.addAll(more);
            return this;
        }

        /**
         * Whether a {@link #jar(Path) jar} starts from its extracted layout with a class-data-sharing archive (default:
         * the system property {@code infra.child-startup-archive}) or with plain {@code java -jar}, as a user runs it.
         */
        public Builder startupArchive(boolean enabled) {
            this.startupArchive = enabled;
            return this;
        }

        public Builder jvmArg(String arg) {
            jvmArgs.add(arg);
            return this;
        }

        public Builder env(String key, String value) {
            env.put(key, value);
            return this;
        }

        public Builder logFile(Path logFile) {
            this.logFile = logFile;
            return this;
        }

        public Builder workDir(Path workDir) {
            this.workDir = workDir;
            return this;
        }

        public JavaProcess start() {
            if ((jar == null) == (mainClass == null)) {
                throw new IllegalStateException(name + ": set exactly one of jar(...) or mainClass(...)");
            }
            List<String> command = new ArrayList<>();
            command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(CHILD_JVM_OPTIONS); // first: the builder's own options win where both set one
            command.addAll(jvmArgs);
            StartupArchive.Launch launch = null;
            if (jar != null) {
                launch = startupArchive ? StartupArchive.prepare(jar) : StartupArchive.plain(jar);
                command.addAll(launch.arguments());
            } else {
                command.add("-cp");
                command.add(classpath.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator)));
                command.add(mainClass);
            }
            command.addAll(args);
            Path log = logFile != null ? logFile : Path.of("target", name + ".log");
            ManagedProcess started;
            try {
                started = ManagedProcess.start(name, command, env, workDir, log);
            } catch (RuntimeException e) {
                if (launch != null) {
                    launch.childExited(-1); // frees the archive for a later launch to write
                }
                throw e;
            }
            if (launch != null && launch.partialArchive() != null) {
                started.onExit(launch::childExited);
            }
            return new JavaProcess(started, this);
        }
    }
}
