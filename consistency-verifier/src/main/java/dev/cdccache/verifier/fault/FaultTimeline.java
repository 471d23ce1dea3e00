package dev.cdccache.verifier.fault;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Every fault of the run, in order; tells whether a moment fell into a fault (to keep steady-state lag apart). */
public final class FaultTimeline {

    private final List<FaultRecord> faults = new CopyOnWriteArrayList<>();

    FaultRecord begin(FaultKind kind, String target, long at) {
        FaultRecord record = new FaultRecord(faults.size() + 1, kind, target, at);
        faults.add(record);
        return record;
    }

    /** Whether {@code at} lies within a fault, from its start until convergence. */
    public boolean disturbedAt(long at) {
        for (FaultRecord fault : faults) {
            if (fault.covers(at)) {
                return true;
            }
        }
        return false;
    }

    public List<FaultRecord> faults() {
        return List.copyOf(faults);
    }
}
