package dev.cdccache.client.spring.health;

import dev.cdccache.client.InvalidationClient;
import java.util.List;

/**
 * Contributes {@link ClientProblem}s to the client's health. The starter's own source maps what the client's
 * {@link InvalidationClient#status() status} shows ({@link StatusProblems}); any bean of this type adds more, so
 * a new kind of problem flows into health (and its DOWN or degraded status) without changing the indicator.
 */
@FunctionalInterface
public interface ClientProblemSource {

    /** The current problems of {@code client}; empty when there are none. Called on every health check. */
    List<ClientProblem> problems(InvalidationClient client);
}
