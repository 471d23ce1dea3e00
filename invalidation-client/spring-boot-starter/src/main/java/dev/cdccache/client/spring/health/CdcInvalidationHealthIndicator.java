package dev.cdccache.client.spring.health;

import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.position.CommitPosition;
import dev.cdccache.client.position.ReadYourWrites;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.metrics.ErrorReason;
import dev.cdccache.client.staleness.StalenessStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * The client's health from its {@link ClientProblem problems} (those {@link StatusProblems} reads from the
 * client's status, those {@link ConsistencyProblems} reads from the consistency sampler, plus any from
 * {@link ClientProblemSource} beans):
 * <ul>
 *   <li>{@code UP}: ready, fresh, no problem;</li>
 *   <li>the problem status (default {@code DOWN}) if any problem {@linkplain ClientProblem.Severity#REQUIRES_ACTION
 *       needs an operator} (a missing topic, a table no connector covers, a stopped consumer): the instance
 *       will never be fresh without a fix, so a readiness group including {@code cdcInvalidation} takes it out;</li>
 *   <li>otherwise the stale status (default {@code DEGRADED}) while it is not ready or not fresh: caches bypass
 *       themselves, answers stay correct, and the default status order keeps the instance in service (every
 *       instance is in this state when the connector stops; taking them all out would be an outage).</li>
 * </ul>
 * Details: the problems (severity, code, message), readiness, watermark age, last heartbeat, last position
 * check, error counts and cache sizes.
 */
public class CdcInvalidationHealthIndicator extends AbstractHealthIndicator {

    private final InvalidationClient client;
    private final Status staleStatus;
    private final Status problemStatus;
    private final List<ClientProblemSource> sources;

    /**
     * The statuses of the client's configuration ({@code health.stale-status}, {@code health.problem-status}),
     * problems from the client's status only.
     */
    public CdcInvalidationHealthIndicator(InvalidationClient client) {
        this(client, List.of());
    }

    /**
     * The statuses of the client's configuration ({@code health.stale-status}, {@code health.problem-status}).
     *
     * @param extraSources problem sources besides the client's status
     */
    public CdcInvalidationHealthIndicator(InvalidationClient client, List<ClientProblemSource> extraSources) {
        this(client, client.config().healthStaleStatus(), client.config().healthProblemStatus(), extraSources);
    }

    /**
     * @param staleStatus status while not ready or not fresh for reasons that clear by themselves
     * @param problemStatus status while a problem needs an operator
     * @param extraSources problem sources besides the client's status
     */
    public CdcInvalidationHealthIndicator(InvalidationClient client, String staleStatus, String problemStatus,
            List<ClientProblemSource> extraSources) {
        super("CDC invalidation client health check failed");
        this.client = client;
        this.staleStatus = new Status(staleStatus);
        this.problemStatus = new Status(problemStatus);
        List<ClientProblemSource> all = new ArrayList<>();
        all.add(new StatusProblems());
        all.add(new ConsistencyProblems());
        all.addAll(extraSources);
        this.sources = List.copyOf(all);
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        StalenessStatus status = client.status();
        List<ClientProblem> problems = new ArrayList<>();
        for (ClientProblemSource source : sources) {
            problems.addAll(source.problems(client));
        }
        boolean needsAction = problems.stream().anyMatch(p -> p.severity() == ClientProblem.Severity.REQUIRES_ACTION);
        builder.status(needsAction ? problemStatus : problems.isEmpty() && status.ready() && status.fresh()
                ? Status.UP : staleStatus);
        List<Map<String, String>> problemDetails = new ArrayList<>();
        for (ClientProblem problem : problems) {
            problemDetails.add(Map.of("severity", problem.severity().name().toLowerCase().replace('_', '-'),
                    "code", problem.code(), "message", problem.message()));
        }
        builder.withDetail("problems", problemDetails);
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
        Map<String, Long> errors = new LinkedHashMap<>();
        for (ErrorReason reason : ErrorReason.values()) {
            long count = client.errorCount(reason);
            if (count > 0) {
                errors.put(reason.tag(), count);
            }
        }
        // Counts since the client started, never reset: named so that nobody reads an old transient failure
        // (one start-up timeout) as a current one; ready, fresh and problems say what holds now.
        builder.withDetail("errorsSinceStart", errors);
        Map<String, Long> sizes = new LinkedHashMap<>();
        for (InvalidatingCache<Object, Object> cache : client.caches()) {
            sizes.put(cache.name(), cache.estimatedSize());
        }
        builder.withDetail("caches", sizes);
        builder.withDetail("readYourWrites", readYourWrites());
    }

    /**
     * The instance's read floor against what each cache has proven applied, per GTID domain: a floor a cache does
     * not cover means its reads bypass it (served from the database, counted in cdc.client.read.floor).
     */
    private Map<String, Object> readYourWrites() {
        ReadYourWrites floors = client.readYourWrites();
        CommitPosition floor = floors.floor();
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("floor", floor.isEmpty() ? "none" : floor.toString());
        Map<String, Object> caches = new LinkedHashMap<>();
        for (String cache : client.cacheNames()) {
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("applied", floors.appliedPosition(cache));
            one.put("floorApplied", floors.isApplied(cache, floor));
            one.put("bypassed", floors.count(cache, ReadYourWrites.Outcome.BYPASSED));
            caches.put(cache, one);
        }
        details.put("caches", caches);
        return details;
    }

    private static String time(long epochMillis) {
        return epochMillis == Long.MIN_VALUE ? "none" : Instant.ofEpochMilli(epochMillis).toString();
    }
}
