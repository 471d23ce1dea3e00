package dev.cdccache.client;

import dev.cdccache.client.parsing.ChangeEvent;

/**
 * Observes the change events a client has applied to its caches, on the consumer thread, after the
 * evictions for the event are done. For measurements (commit-to-eviction lag from a client-side commit
 * stamp in the row) and tests; must be quick and must not throw (exceptions are logged and ignored). A listener
 * that leaves the thread interrupted is reported the same way, and the interrupt is cleared.
 */
@FunctionalInterface
public interface InvalidationListener {

    /** Called once per applied data event (not for heartbeats or tombstones). */
    void onApplied(ChangeEvent event);
}
