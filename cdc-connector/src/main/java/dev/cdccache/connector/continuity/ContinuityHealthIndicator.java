package dev.cdccache.connector.continuity;

import java.util.Optional;
import java.util.function.Supplier;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * {@code continuity} in {@code /actuator/health}: the epoch the heartbeats carry and why (resumed, first start,
 * offsets lost, renamed, position purged), with what to do when there was a gap. A gap the connector recovered
 * from under a new epoch is UP (the stream is correct again; clients dropped what they could not prove) but says
 * so; DOWN when the engine stopped because its position is gone or its lease was lost, or before the epoch was
 * decided. {@code lease} says who holds the connector's lease on its name and server id.
 */
public final class ContinuityHealthIndicator implements HealthIndicator {

    private final ContinuityState state;
    private final Supplier<String> lease;

    /**
     * @param lease describes the connector's lease, for the {@code lease} detail
     */
    public ContinuityHealthIndicator(ContinuityState state, Supplier<String> lease) {
        this.state = state;
        this.lease = lease;
    }

    @Override
    public Health health() {
        Optional<String> failure = state.engineFailure();
        Optional<Continuity> current = state.current();
        Health.Builder builder = failure.isPresent() || current.isEmpty() ? Health.down() : Health.up();
        failure.ifPresent(f -> builder.withDetail("error", f));
        builder.withDetail("lease", lease.get());
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
