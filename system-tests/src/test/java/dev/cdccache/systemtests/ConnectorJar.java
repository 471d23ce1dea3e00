package dev.cdccache.systemtests;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The connector's runnable jar, as the build provides it: this module depends on {@code cdc-connector}, so the
 * reactor builds the connector first; the build copies its {@code exec} artifact at pre-integration-test and
 * failsafe passes the file's path in {@value #PROPERTY}. No test looks for the jar by a path of its own.
 */
public final class ConnectorJar {

    static final String PROPERTY = "cdc.connector.exec-jar";

    private ConnectorJar() {
    }

    /** The exec jar; fails with what to do when the tests run outside the build that sets the property. */
    public static Path path() {
        String value = System.getProperty(PROPERTY);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException(PROPERTY + " is not set: run these tests through Maven (./mvnw -B -pl "
                    + "system-tests verify), which resolves cdc-connector's exec jar and passes its path");
        }
        Path jar = Path.of(value);
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(PROPERTY + " names " + jar + ", which does not exist: build the connector"
                    + " first (./mvnw -B -pl system-tests -am install -DskipTests)");
        }
        return jar;
    }
}
