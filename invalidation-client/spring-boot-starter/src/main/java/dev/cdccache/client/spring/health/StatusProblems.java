package dev.cdccache.client.spring.health;

import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.spring.health.ClientProblem.Severity;
import dev.cdccache.client.staleness.FreshnessProblem;
import dev.cdccache.client.staleness.StalenessStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The problems the client's {@link StalenessStatus} shows: each {@link FreshnessProblem} the core reports (missing
 * topics, tables no connector heartbeat covers, compacted topics, deleted topics, unavailable partitions, a failing
 * consumer, a silent connector, clock skew), not
 * ready, and not fresh, classified by what it takes to clear them: a configuration problem
 * ({@link FreshnessProblem.Kind#configuration()}) never clears without an operator; anything else (Kafka
 * unreachable, a connector stopped, a consumer restarting) is transient.
 */
public final class StatusProblems implements ClientProblemSource {

    @Override
    public List<ClientProblem> problems(InvalidationClient client) {
        StalenessStatus status = client.status();
        List<ClientProblem> problems = new ArrayList<>();
        for (FreshnessProblem problem : status.problems()) {
            problems.add(classify(problem));
        }
        String summary = status.problem();
        if (summary != null && status.problems().stream().noneMatch(p -> p.message().equals(summary))) {
            problems.add(new ClientProblem(Severity.TRANSIENT, "consumer", summary)); // e.g. Kafka unreachable
        }
        if (!status.ready()) {
            problems.add(new ClientProblem(Severity.TRANSIENT, "not-ready",
                    "not yet positioned at the end of its topics (Kafka reachable at "
                            + client.config().bootstrapServers() + "?); loads pass through uncached"));
        } else if (!status.fresh()) {
            problems.add(notFresh(status));
        }
        return problems;
    }

    /** Why a ready client is not fresh: how old its proof is, or what it lacks. */
    static ClientProblem notFresh(StalenessStatus status) {
        String age;
        if (status.watermarkMillis() != Long.MIN_VALUE) {
            age = "changes applied up to " + status.watermarkAgeMillis() + " ms ago";
        } else if (status.lastHeartbeatMillis() != Long.MIN_VALUE) {
            // Heartbeats arrive, but some table (a missing topic, a table no connector covers) has none.
            age = "connector heartbeats are applied, but not for every captured table"
                    + (status.problems().isEmpty() ? "" : " (see the other problems)");
        } else {
            age = "no connector heartbeat applied yet";
        }
        return new ClientProblem(Severity.TRANSIENT, "not-fresh", "cannot show it is within max-staleness ("
                + status.maxStalenessMillis() + " ms): " + age + "; entries older than the bound are not served");
    }

    /** A core problem as health shows it: code {@code missing-topic}, {@code uncovered-table}, ... */
    static ClientProblem classify(FreshnessProblem problem) {
        Severity severity = problem.kind().configuration() ? Severity.REQUIRES_ACTION : Severity.TRANSIENT;
        String code = problem.kind().name().toLowerCase(Locale.ROOT).replace('_', '-');
        return new ClientProblem(severity, code, problem.message());
    }
}
