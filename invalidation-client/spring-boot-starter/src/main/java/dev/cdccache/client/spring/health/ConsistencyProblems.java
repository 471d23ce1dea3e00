package dev.cdccache.client.spring.health;

import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.cache.ConsistencySampler;
import dev.cdccache.client.spring.health.ClientProblem.Severity;
import java.util.ArrayList;
import java.util.List;

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
        return client.consistencySampler().map(ConsistencyProblems::problems).orElse(List.of());
    }

    /** The problems {@code sampler}'s counts show now. */
    static List<ClientProblem> problems(ConsistencySampler sampler) {
        List<ClientProblem> problems = new ArrayList<>();
        for (String cache : sampler.caches()) {
            long stale = sampler.counts(cache).staleInWindow();
            if (stale > 0) {
                problems.add(new ClientProblem(Severity.TRANSIENT, "consistency-stale", "cache '" + cache
                        + "' served " + stale + " sampled value(s) that the database no longer held and no "
                        + "invalidation arrived within max-staleness (" + sampler.settings().bound().toMillis()
                        + " ms) in the last " + sampler.settings().window().toMinutes() + " min; the WARN log of "
                        + "ConsistencySampler names the keys. Check that the connector captures the cache's tables "
                        + "and that its key columns match the cache keys."));
            }
        }
        return problems;
    }
}
