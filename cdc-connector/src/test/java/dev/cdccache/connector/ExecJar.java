package dev.cdccache.connector;

import java.nio.file.Path;

/** The runnable jar the package phase built (failsafe passes its path). */
final class ExecJar {

    private ExecJar() {
    }

    static Path path() {
        return Path.of(System.getProperty("cdc.connector.exec-jar", "target/cdc-connector-0.1.0-SNAPSHOT-exec.jar"));
    }
}
