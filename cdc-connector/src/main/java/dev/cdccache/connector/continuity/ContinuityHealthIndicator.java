package dev.cdccache.connector.continuity;

import java.util.Optional;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * {@code continuity} in {@code /actuator/health}: the epoch the heartbeats carry and why (resumed, first start,
 * offsets lost, renamed, position purged), with what to do when there was a gap. A gap the connector recovered
 * from under a new epoch is UP (the stream is correct again; clients dropped what they could not prove) but says
 * so; DOWN when the engine stopped because its position is gone, or before the epoch was decided.
 */
public final class ContinuityHealthIndicator implements HealthIndicator {

    private final ContinuityState state;

    public ContinuityHealthIndicator(ContinuityState state) {
        this.state = state;
    }

    @Override
    public Health health() {
        Optional<String> failure = state.engineFailure();
        Optional<Continuity> current = state.current();
        Health.Builder builder = failure.isPresent() || current.isEmpty() ? Health.down() : Health.up();
        failure.ifPresent(f -> builder.withDetail("error", f));
        current.ifPresent(c -> {
            builder.withDetail("epoch", c.epoch())
                    .withDetail("verdict", c.verdict().name())
                    .withDetail("gap", c.gap())
                    .withDetail("since", c.decidedAt().toString())
                    .withDetail("message", c.message());
            if (!c.action().isEmpty()) {
                builder.withDetail("action", c.action());
            }
        });
        return builder.build();
    }
}
