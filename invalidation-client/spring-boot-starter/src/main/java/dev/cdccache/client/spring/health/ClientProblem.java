package dev.cdccache.client.spring.health;

import java.util.Objects;

/**
 * One reason the invalidation client is not "ready and fresh", as health reports it.
 *
 * @param severity whether it clears by itself or needs an operator; decides the health status
 * @param code a stable identifier for alerts and dashboards (e.g. {@code missing-topics}, {@code not-fresh})
 * @param message what is wrong and, where known, what to do, for people
 */
public record ClientProblem(Severity severity, String code, String message) {

    public ClientProblem {
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
    }

    /** How a problem affects health; see docs/client.md (Health and readiness). */
    public enum Severity {
        /**
         * Clears without intervention: the client is starting, catching up, the connector is restarting, Kafka is
         * briefly unreachable. Caches distrust themselves meanwhile (loads go to the database), so the instance
         * still answers correctly; it reports {@code health.stale-status} (default {@code DEGRADED}). Every
         * instance shares such a state when the connector stops, so it must not take them all out of service.
         */
        TRANSIENT,
        /**
         * Will not clear until someone fixes something: a subscribed topic that does not exist (misspelled
         * {@code topic-prefix} or table, a table the connector does not capture), a table no connector heartbeat
         * covers, a compacted change topic, a consumer that stopped. Reported as {@code health.problem-status} (default {@code DOWN}), so a
         * readiness group including {@code cdcInvalidation} keeps a misconfigured instance out of rotation and
         * halts a rolling deployment.
         */
        REQUIRES_ACTION
    }
}
