package dev.cdccache.infra.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launch {@link StartupArchive} chooses, on files only: the real extraction and archive are exercised by every
 * integration test that starts a connector or a service jar, and by {@code StartupArchiveIT} in cdc-connector.
 */
class StartupArchiveTest {

    @TempDir
    Path dir;

    @Test
    void aJarThatCannotBeExtractedStartsAsAPlainJar() throws IOException {
        Path jar = jarWithManifestOnly(dir.resolve("not-spring-boot.jar"));

        StartupArchive.Launch launch = StartupArchive.prepare(jar);

        assertThat(launch.arguments()).containsExactly("-jar", jar.toAbsolutePath().toString());
        assertThat(launch.partialArchive()).isNull();
        try (var left = Files.list(dir.resolve("not-spring-boot.jar.startup"))) {
            assertThat(left).as("no half-extracted directory is left").isEmpty();
        }
    }

    @Test
    void launchesBeforeTheThirdStartFromTheLayoutAloneThenOneAtATimeWritesTheArchive() throws IOException {
        Path jar = jarWithManifestOnly(dir.resolve("service.jar"));
        Path layout = extractedLayout(jar);

        for (int launch = 1; launch < StartupArchive.LAUNCHES_BEFORE_ARCHIVE; launch++) {
            StartupArchive.Launch early = StartupArchive.prepare(jar);
            assertThat(early.partialArchive()).as("launch %d", launch).isNull();
            assertThat(early.arguments()).noneMatch(a -> a.startsWith("-XX:ArchiveClassesAtExit") || a.startsWith("-XX:SharedArchiveFile"))
                    .endsWith("-jar", layout.resolve("app.jar").toString());
        }
        StartupArchive.Launch writer = StartupArchive.prepare(jar);
        StartupArchive.Launch meanwhile = StartupArchive.prepare(jar);

        assertThat(writer.arguments()).contains("-XX:ArchiveClassesAtExit=" + writer.partialArchive())
                .endsWith("-jar", layout.resolve("app.jar").toString());
        assertThat(writer.partialArchive().getParent()).isEqualTo(layout);
        assertThat(meanwhile.partialArchive()).as("one writer per archive").isNull();
        writer.childExited(1);
    }

    @Test
    void anArchiveWrittenByARunEndedBySigtermIsUsedByTheNextLaunch() throws IOException {
        Path jar = jarWithManifestOnly(dir.resolve("service.jar"));
        Path layout = extractedLayout(jar);
        StartupArchive.Launch first = launchThatWritesTheArchive(jar);
        Files.writeString(first.partialArchive(), "archive");

        first.childExited(StartupArchive.EXIT_ON_SIGTERM);
        StartupArchive.Launch next = StartupArchive.prepare(jar);

        assertThat(layout.resolve("app.jsa")).hasContent("archive");
        assertThat(first.partialArchive()).doesNotExist();
        assertThat(next.arguments()).contains("-XX:SharedArchiveFile=" + layout.resolve("app.jsa"));
        assertThat(next.partialArchive()).isNull();
    }

    @Test
    void anArchiveOfARunThatFailedOrRanToItsEndIsDroppedAndALaterLaunchWritesOneAgain() throws IOException {
        Path jar = jarWithManifestOnly(dir.resolve("service.jar"));
        Path layout = extractedLayout(jar);
        for (int exitCode : new int[] {1, 0, 137}) {
            StartupArchive.Launch launch = launchThatWritesTheArchive(jar);
            Files.writeString(launch.partialArchive(), "classes of a start-up that failed or of a command");

            launch.childExited(exitCode);

            assertThat(launch.partialArchive()).doesNotExist();
            assertThat(layout.resolve("app.jsa")).doesNotExist();
        }
    }

    @Test
    void aRebuiltJarGetsALayoutOfItsOwn() throws IOException {
        Path jar = jarWithManifestOnly(dir.resolve("service.jar"));
        Path old = extractedLayout(jar);
        Files.setLastModifiedTime(jar, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() + 60_000));

        StartupArchive.Launch launch = StartupArchive.prepare(jar);

        assertThat(launch.arguments()).as("the old layout is not used; this jar cannot be extracted")
                .containsExactly("-jar", jar.toAbsolutePath().toString());
        assertThat(old).exists();
    }

    /** Launches {@code jar} until one writes the archive: no later than the {@link StartupArchive#LAUNCHES_BEFORE_ARCHIVE}th. */
    private static StartupArchive.Launch launchThatWritesTheArchive(Path jar) {
        for (int launch = 1; launch <= StartupArchive.LAUNCHES_BEFORE_ARCHIVE; launch++) {
            StartupArchive.Launch next = StartupArchive.prepare(jar);
            if (next.partialArchive() != null) {
                return next;
            }
        }
        throw new AssertionError("no launch of " + jar + " writes the archive");
    }

    /** What {@code extract} leaves for {@code jar}, made by hand: the application jar and its lib directory. */
    private static Path extractedLayout(Path jar) throws IOException {
        Path layout = Path.of(jar.toAbsolutePath() + ".startup",
                Files.size(jar) + "-" + Files.getLastModifiedTime(jar).to(TimeUnit.SECONDS));
        Files.createDirectories(layout.resolve("lib"));
        jarWithManifestOnly(layout.resolve("app.jar"));
        return layout;
    }

    /** A jar whose main class does not exist: {@code java -jar} fails at once, so it cannot extract anything. */
    private static Path jarWithManifestOnly(Path jar) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "example.Missing");
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream ignored = new JarOutputStream(out, manifest)) {
            return jar;
        }
    }
}
