package dev.cdccache.connector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.infra.LocalStack;
import dev.cdccache.infra.connector.ConnectorProcess;
import dev.cdccache.infra.junit.LocalStackExtension;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The integration tests start the connector's runnable jar from its extracted layout with a class-data-sharing
 * archive (infra's {@code StartupArchive}, switched on by the build): the first launches of a jar use the layout
 * alone, the archive of a later run stopped by SIGTERM is kept and mapped by the next start, one of a killed run is
 * not, and the connector runs the same from the layout. Real
 * connector processes on the shared stack, from a copy of the jar of their own.
 */
@ExtendWith(LocalStackExtension.class)
class StartupArchiveIT {

    private static final String DB = "startup_archive_db";

    @Test
    void aConnectorStoppedBySigtermLeavesAnArchiveTheNextStartMapsWhileAKilledOneLeavesNone(LocalStack stack,
            @TempDir Path dir) throws IOException {
        assertThat(System.getProperty("infra.child-startup-archive")).as("set by the build").isEqualTo("true");
        stack.mariaDb().createDatabase(DB);
        stack.mariaDb().execute(DB, "CREATE TABLE item (id BIGINT PRIMARY KEY)");
        Path jar = Files.copy(ExecJar.path(), dir.resolve("connector.jar"));
        ConnectorProcess.Builder connector = ConnectorProcess.builder(jar, stack).name("startup-archive")
                .topicPrefix("startup").tables(List.of(DB + ".item")).logFile(dir.resolve("connector.log"));

        // the first two launches of the jar start from its layout alone (writing an archive costs more than they save)
        for (int launch = 1; launch <= 2; launch++) {
            ConnectorProcess early = connector.build().launch();
            Path layout = onlyLayout(dir.resolve("connector.jar.startup"));
            assertThat(arguments(early)).noneMatch(a -> a.startsWith("-XX:ArchiveClassesAtExit") || a.startsWith("-XX:SharedArchiveFile"))
                    .contains(layout.resolve("connector.jar").toString());
            early.kill();
        }
        Path layout = onlyLayout(dir.resolve("connector.jar.startup"));

        ConnectorProcess killed = connector.build().start();
        assertThat(arguments(killed)).anyMatch(a -> a.startsWith("-XX:ArchiveClassesAtExit=" + layout))
                .contains(layout.resolve("connector.jar").toString());
        killed.kill();
        assertThat(partialArchives(layout)).isEmpty();
        assertThat(layout.resolve("app.jsa")).as("no archive from a killed run").doesNotExist();

        ConnectorProcess stopped = connector.build().start();
        assertThat(arguments(stopped)).anyMatch(a -> a.startsWith("-XX:ArchiveClassesAtExit=" + layout));
        stopped.stop();
        assertThat(layout.resolve("app.jsa")).as("kept by the time stop() returns").isNotEmptyFile();
        assertThat(partialArchives(layout)).isEmpty();

        try (ConnectorProcess mapped = connector.build().start()) {
            assertThat(arguments(mapped)).contains("-XX:SharedArchiveFile=" + layout.resolve("app.jsa"))
                    .noneMatch(a -> a.startsWith("-XX:ArchiveClassesAtExit"));
            assertThat(Files.readString(mapped.logFile())).contains("Started CdcConnectorApplication");
        }
    }

    private static Path onlyLayout(Path home) {
        try (Stream<Path> layouts = Files.list(home)) {
            List<Path> all = layouts.toList();
            assertThat(all).as("layouts in " + home).hasSize(1);
            return all.get(0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Path> partialArchives(Path layout) throws IOException {
        try (Stream<Path> files = Files.list(layout)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".part")).toList();
        }
    }

    private static List<String> arguments(ConnectorProcess connector) {
        return ProcessHandle.of(connector.pid()).flatMap(p -> p.info().arguments()).map(List::of).orElseThrow();
    }
}
