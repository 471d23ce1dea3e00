package dev.cdccache.infra.process;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * Starts an executable Spring Boot jar with less than half the CPU of {@code java -jar}: from its extracted layout
 * (the jar's own {@code -Djarmode=tools extract}), whose classes the JVM reads from plain jars instead of jars
 * nested in the executable one, and, once the jar has been launched a few times, with a class-data-sharing archive
 * of the classes a run loaded, which later runs map instead of loading, verifying and linking them again. On 2 cores
 * a connector took 12-13 s of CPU to become healthy from the executable jar, 8.5 s from the layout and 5 s with the
 * archive as well.
 *
 * <p>Writing the archive costs about 11 s of CPU more than a run from the layout (the recording, then the dump at
 * exit, which also makes that stop about 9 s longer), so no launch of a jar before its
 * {@value #LAUNCHES_BEFORE_ARCHIVE}rd in this JVM writes one: tests that boot a jar once or twice do not pay for
 * it, and one writes at a time. The archive is kept
 * only when that run ended through SIGTERM (a server stopped by its owner, which has loaded what a server loads; not
 * a command that ran to its end or failed at start-up); otherwise a later launch writes one again.
 *
 * <p>The layout and the archive live next to the jar, in {@code <jar>.startup/<size>-<mtime>/}, so a rebuilt jar
 * gets new ones (an archive is valid only for the paths it was written with). Every step is an optimisation only:
 * when extraction fails the jar starts as before, and the JVM ignores an archive that does not fit (other JDK,
 * changed files), so the child behaves the same either way. {@code infra/bin/lib/platform.sh} uses the same layout
 * and any archive in it for the scripts.
 */
final class StartupArchive {

    /** Switched on by the system property {@code infra.child-startup-archive=true} (the build's integration tests). */
    static final boolean ENABLED = Boolean.getBoolean("infra.child-startup-archive");

    /** JVM exit code of a run ended by SIGTERM (128 + 15). */
    static final int EXIT_ON_SIGTERM = 143;

    /** The launch of a jar, counted in this JVM, that writes its archive. */
    static final int LAUNCHES_BEFORE_ARCHIVE = 3;

    /** Archives being written by a child of this JVM: one writer per archive is enough. */
    private static final Set<Path> TRAINING = ConcurrentHashMap.newKeySet();

    /** Launches per layout in this JVM. */
    private static final Map<Path, AtomicInteger> LAUNCHES = new ConcurrentHashMap<>();

    private StartupArchive() {
    }

    /**
     * How to launch {@code jar}: the JVM options and {@code -jar} path to use, and, when this launch writes the
     * archive, what to do with it once the child has exited.
     */
    record Launch(List<String> arguments, Path partialArchive, Path archive) {

        /** Keeps the archive this launch wrote if the child ended by SIGTERM; drops it otherwise. */
        void childExited(int exitCode) {
            if (partialArchive == null) {
                return;
            }
            try {
                if (exitCode == EXIT_ON_SIGTERM && Files.size(partialArchive) > 0) {
                    Files.move(partialArchive, archive, StandardCopyOption.REPLACE_EXISTING,
                            StandardCopyOption.ATOMIC_MOVE);
                } else {
                    Files.deleteIfExists(partialArchive);
                }
            } catch (IOException e) {
                deleteQuietly(partialArchive);
            } finally {
                TRAINING.remove(archive);
            }
        }
    }

    /** The plain {@code -jar} launch, used when the feature is off or the layout cannot be made. */
    static Launch plain(Path jar) {
        return new Launch(List.of("-jar", jar.toAbsolutePath().toString()), null, null);
    }

    static Launch prepare(Path jar) {
        Path absolute = jar.toAbsolutePath();
        try {
            Path home = Paths.get(absolute + ".startup");
            String stamp = Files.size(absolute) + "-" + Files.getLastModifiedTime(absolute).to(TimeUnit.SECONDS);
            Path layout = home.resolve(stamp);
            if (!Files.isDirectory(layout)) {
                extract(absolute, home, layout);
            }
            Path application = applicationJar(layout);
            Path archive = layout.resolve("app.jsa");
            List<String> arguments = new ArrayList<>();
            Path partial = null;
            int launch = LAUNCHES.computeIfAbsent(layout, l -> new AtomicInteger()).incrementAndGet();
            if (Files.isRegularFile(archive)) {
                arguments.add("-XX:SharedArchiveFile=" + archive);
            } else if (launch >= LAUNCHES_BEFORE_ARCHIVE && TRAINING.add(archive)) {
                partial = layout.resolve("app.jsa." + ProcessHandle.current().pid() + "-" + System.nanoTime() + ".part");
                arguments.add("-XX:ArchiveClassesAtExit=" + partial);
            }
            // the JVM's notes on classes it cannot archive (and on an archive it ignores) would land in the log
            arguments.add("-Xlog:cds*=off");
            arguments.add("-jar");
            arguments.add(application.toString());
            return new Launch(List.copyOf(arguments), partial, archive);
        } catch (IOException | RuntimeException e) {
            return plain(jar);
        }
    }

    /** Extracts into a directory of its own, then renames it into place: concurrent launches never see half of it. */
    private static void extract(Path jar, Path home, Path layout) throws IOException {
        Files.createDirectories(home);
        Path scratch = Files.createTempDirectory(home, "extracting-");
        try {
            Path javaCommand = Paths.get(System.getProperty("java.home"), "bin", "java");
            Process extraction = new ProcessBuilder(javaCommand.toString(), "-XX:TieredStopAtLevel=1",
                    "-Djarmode=tools", "-jar", jar.toString(), "extract", "--destination", scratch.resolve("app").toString())
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!extraction.waitFor(2, TimeUnit.MINUTES) || extraction.exitValue() != 0) {
                extraction.destroyForcibly();
                throw new IOException("extraction of " + jar + " failed");
            }
            try {
                Files.move(scratch.resolve("app"), layout, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileAlreadyExistsException | DirectoryNotEmptyException alreadyThere) {
                // another launch extracted the same jar first: use its layout
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException(e);
            }
            removeOtherLayouts(home, layout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while extracting " + jar, e);
        } finally {
            deleteTree(scratch);
        }
    }

    /** Layouts of earlier builds of the jar (about 70 MB each, with their archive). */
    private static void removeOtherLayouts(Path home, Path current) throws IOException {
        try (Stream<Path> entries = Files.list(home)) {
            entries.filter(p -> !p.equals(current) && !p.getFileName().toString().startsWith("extracting-"))
                    .forEach(StartupArchive::deleteTree);
        }
    }

    private static Path applicationJar(Path layout) throws IOException {
        try (Stream<Path> entries = Files.list(layout)) {
            List<Path> jars = entries.filter(p -> p.getFileName().toString().endsWith(".jar")).toList();
            if (jars.size() != 1) {
                throw new IOException("expected one application jar in " + layout + ", found " + jars);
            }
            return jars.get(0);
        }
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(StartupArchive::deleteQuietly);
        } catch (IOException | RuntimeException e) {
            // best effort: a leftover directory only takes space
        }
    }

    private static void deleteQuietly(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            // best effort
        }
    }
}
