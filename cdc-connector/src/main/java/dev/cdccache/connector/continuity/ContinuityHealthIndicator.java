package dev.cdccache.connector.continuity;

import java.util.Optional;
import java.util.function.Supplier;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * {@code continuity} in {@code /actuator/health}: the epoch the heartbeats carry and why (resumed, first start,
 * offsets lost, renamed, position purged), with what to do when there was a gap. A gap the connector recovered
 * from under a new epoch is UP (the stream is correct again; clients dropped what they could not prove) but says
 * so; DOWN when the engine stopped because its position is gone or its lease was lost, before the epoch was
 * decided, or while heartbeat rows are held back because the server would log them in a form the connector cannot
 * read, or because a binlog or replication filter leaves a captured table out of the binlog (no client can prove its
 * cache fresh then). {@code lease} says who holds the connector's lease on its name and server id.
 */
public final class ContinuityHealthIndicator implements HealthIndicator {

    private final ContinuityState state;
    private final Supplier<String> lease;
    private final Supplier<Optional<String>> heartbeatsHeld;

    /**
     * @param lease describes the connector's lease, for the {@code lease} detail
     */
    public ContinuityHealthIndicator(ContinuityState state, Supplier<String> lease) {
        this(state, lease, Optional::empty);
    }

    /**
     * @param lease describes the connector's lease, for the {@code lease} detail
     * @param heartbeatsHeld why heartbeat rows are held back, if they are
     */
    public ContinuityHealthIndicator(ContinuityState state, Supplier<String> lease,
            Supplier<Optional<String>> heartbeatsHeld) {
        this.state = state;
        this.lease = lease;
        this.heartbeatsHeld = heartbeatsHeld;
    }

    @Override
    public Health health() {
        Optional<String> failure = state.engineFailure();
        Optional<Continuity> current = state.current();
        Optional<String> held = heartbeatsHeld.get();
        Health.Builder builder = failure.isPresent() || current.isEmpty() || held.isPresent() ? Health.down()
                : Health.up();
        failure.ifPresent(f -> builder.withDetail("error", f));
        held.ifPresent(h -> builder.withDetail("heartbeats", "held: " + h));
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
