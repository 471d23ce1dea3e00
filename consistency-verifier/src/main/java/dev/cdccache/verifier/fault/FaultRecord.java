package dev.cdccache.verifier.fault;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One injected fault and what followed: when it started, when the failed part was back
 * ({@code recoveredAt}), and when every client instance had applied a write committed after the recovery
 * and could prove its freshness again ({@code convergedAt}). Times are {@code RunClock} stamps;
 * {@link Long#MAX_VALUE} while unknown.
 */
public final class FaultRecord {

    private final int number;
    private final FaultKind kind;
    private final String target;
    private final long startedAt;
    private volatile long recoveredAt = Long.MAX_VALUE;
    private volatile long convergedAt = Long.MAX_VALUE;
    private final List<String> observations = Collections.synchronizedList(new ArrayList<>());
    private volatile String failure;

    FaultRecord(int number, FaultKind kind, String target, long startedAt) {
        this.number = number;
        this.kind = kind;
        this.target = target;
        this.startedAt = startedAt;
    }

    public int number() {
        return number;
    }

    public FaultKind kind() {
        return kind;
    }

    public String target() {
        return target;
    }

    public long startedAt() {
        return startedAt;
    }

    public long recoveredAt() {
        return recoveredAt;
    }

    public long convergedAt() {
        return convergedAt;
    }

    void recovered(long at) {
        recoveredAt = at;
    }

    void converged(long at) {
        convergedAt = at;
    }

    void observe(String observation) {
        observations.add(observation);
    }

    void failed(String failure) {
        this.failure = failure;
    }

    public List<String> observations() {
        synchronized (observations) {
            return List.copyOf(observations);
        }
    }

    /** Why the fault did not recover or converge, or {@code null}. */
    public String failure() {
        return failure;
    }

    /** Whether {@code at} lies between the fault's start and its convergence (or the fault is still open). */
    public boolean covers(long at) {
        return at >= startedAt && at <= convergedAt;
    }
}
