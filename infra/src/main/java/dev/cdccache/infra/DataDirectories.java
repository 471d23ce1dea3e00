package dev.cdccache.infra;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Deletes a data directory tree; best effort, since it only tidies up after a stop. */
public final class DataDirectories {

    private DataDirectories() {
    }

    public static void delete(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException ignored) {
                    // a file still held by a dying process; the directory is under target/ anyway
                }
            });
        } catch (IOException ignored) {
            // as above
        }
    }
}
