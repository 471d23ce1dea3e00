package dev.cdccache.client.spring.health;

import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.spring.health.ClientProblem.Severity;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reports a {@code consistency-stale} problem for each cache whose consistency sampler found a stale hit within the
 * sampling window: the cache served a value the database no longer held, and no invalidation arrived within
 * max-staleness. Nothing while sampling is off.
 *
 * <p>{@link Severity#TRANSIENT} (health {@code DEGRADED} by default), not {@code REQUIRES_ACTION}: the cause (a table
 * the connector does not capture, a key mapping that misses a key) is shared by every instance, and taking them all
 * out of rotation would turn stale reads into an outage. The problem clears once a window passes without a stale
 * sample; the alert on {@code cdc.client.consistency.stale.window} is what calls an operator.
 */
public final class ConsistencyProblems implements ClientProblemSource {

    @Override
    public List<ClientProblem> problems(InvalidationClient client) {
        return problems(client.staleSamplesInWindow(), client.config().maxStaleness(),
                client.config().samplingWindow());
    }

    /** The problems for the stale samples per cache within {@code window}. */
    static List<ClientProblem> problems(Map<String, Long> staleByCache, Duration bound, Duration window) {
        List<ClientProblem> problems = new ArrayList<>();
        staleByCache.forEach((cache, stale) -> problems.add(new ClientProblem(Severity.TRANSIENT,
                "consistency-stale", "cache '" + cache + "' served " + stale + " sampled value(s) that the database "
                        + "no longer held and no invalidation arrived within max-staleness (" + bound.toMillis()
                        + " ms) in the last " + window.toMinutes() + " min; the WARN log of ConsistencySampler names "
                        + "the keys. Check that the connector captures the cache's tables and that its key columns "
                        + "match the cache keys.")));
        return problems;
    }
}
