package dev.cdccache.client.spring.health;

import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.metrics.ErrorReason;
import dev.cdccache.client.staleness.StalenessStatus;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * UP while the client is ready and can show it is within {@code max-staleness}; otherwise the configured
 * stale status (default {@code DEGRADED}), with the reason in the details: readiness, watermark age, last
 * heartbeat, last position check, the latest consumer problem, error counts and cache sizes.
 */
public class CdcInvalidationHealthIndicator extends AbstractHealthIndicator {

    private final InvalidationClient client;
    private final Status staleStatus;

    public CdcInvalidationHealthIndicator(InvalidationClient client, String staleStatus) {
        super("CDC invalidation client health check failed");
        this.client = client;
        this.staleStatus = new Status(staleStatus);
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        StalenessStatus status = client.status();
        builder.status(status.ready() && status.fresh() ? Status.UP : staleStatus);
        builder.withDetail("ready", status.ready());
        builder.withDetail("fresh", status.fresh());
        builder.withDetail("maxStalenessMillis", status.maxStalenessMillis());
        builder.withDetail("watermarkAgeMillis",
                status.watermarkAgeMillis() == Long.MAX_VALUE ? "none" : status.watermarkAgeMillis());
        builder.withDetail("lastHeartbeat", time(status.lastHeartbeatMillis()));
        builder.withDetail("lastPositionConfirmed", time(status.lastPositionConfirmedMillis()));
        builder.withDetail("policy", client.config().stalenessPolicy().name().toLowerCase().replace('_', '-'));
        builder.withDetail("check", client.config().stalenessCheck().name().toLowerCase().replace('_', '-'));
        if (status.checkOverruns() > 0) {
            builder.withDetail("checkOverruns", status.checkOverruns());
        }
        if (status.problem() != null) {
            builder.withDetail("problem", status.problem());
        }
        Map<String, Long> errors = new LinkedHashMap<>();
        for (ErrorReason reason : ErrorReason.values()) {
            long count = client.metrics().errorCount(reason);
            if (count > 0) {
                errors.put(reason.tag(), count);
            }
        }
        builder.withDetail("errors", errors);
        Map<String, Long> sizes = new LinkedHashMap<>();
        for (InvalidatingCache<Object, Object> cache : client.caches()) {
            sizes.put(cache.name(), cache.estimatedSize());
        }
        builder.withDetail("caches", sizes);
    }

    private static String time(long epochMillis) {
        return epochMillis == Long.MIN_VALUE ? "none" : Instant.ofEpochMilli(epochMillis).toString();
    }
}
