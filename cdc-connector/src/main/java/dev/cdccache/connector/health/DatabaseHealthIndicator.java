package dev.cdccache.connector.health;

import dev.cdccache.connector.config.ConnectorProperties;
import dev.cdccache.connector.startup.DatabaseCheck;
import java.sql.Connection;
import java.sql.Statement;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/** UP when the database answers {@code SELECT 1} as the connector's user. */
public final class DatabaseHealthIndicator implements HealthIndicator {

    private final ConnectorProperties.Database database;

    public DatabaseHealthIndicator(ConnectorProperties.Database database) {
        this.database = database;
    }

    @Override
    public Health health() {
        String where = database.getHost() + ":" + database.getPort();
        try (Connection connection = DatabaseCheck.connect(database); Statement statement = connection.createStatement()) {
            statement.setQueryTimeout(3);
            statement.execute("SELECT 1");
            return Health.up().withDetail("database", where).build();
        } catch (Exception e) {
            return Health.down().withDetail("database", where).withDetail("error", e.getMessage()).build();
        }
    }
}
