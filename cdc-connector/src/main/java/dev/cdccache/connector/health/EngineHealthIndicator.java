package dev.cdccache.connector.health;

import dev.cdccache.connector.engine.ChangeEventEngine;
import dev.cdccache.connector.engine.EngineState;
import dev.cdccache.connector.metrics.PublishMetrics;
import java.time.Instant;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/** UP while the engine streams the binlog; DOWN while it starts, after it stopped or failed. */
public final class EngineHealthIndicator implements HealthIndicator {

    private final ChangeEventEngine engine;
    private final PublishMetrics metrics;

    public EngineHealthIndicator(ChangeEventEngine engine, PublishMetrics metrics) {
        this.engine = engine;
        this.metrics = metrics;
    }

    @Override
    public Health health() {
        EngineState state = engine.state();
        Health.Builder builder = state == EngineState.STREAMING ? Health.up() : Health.down();
        builder.withDetail("state", state.name());
        long last = metrics.lastEventEpochMillis();
        if (last > 0) {
            builder.withDetail("lastEventPublished", Instant.ofEpochMilli(last).toString());
        }
        return builder.build();
    }
}
