package dev.cdccache.packaging;

import java.nio.file.Path;

/** Where the repository and its build are: set by the build (see packaging/pom.xml), defaults for an IDE run. */
final class Repository {

    private Repository() {
    }

    static Path root() {
        return Path.of(System.getProperty("cdc.repository.root", "..")).toAbsolutePath().normalize();
    }

    static String projectVersion() {
        return System.getProperty("cdc.project.version", "0.1.0-SNAPSHOT");
    }

    static Path composeFile() {
        return root().resolve("infra/docker-compose.yml");
    }

    /** The setup script: the heartbeat table and the connector's least-privilege database user. */
    static Path setupSql() {
        return root().resolve("cdc-connector/sql/setup.sql");
    }

    static Path mysqlInitSql() {
        return root().resolve("infra/docker/mysql-init/01-cdc-cache.sql");
    }
}
