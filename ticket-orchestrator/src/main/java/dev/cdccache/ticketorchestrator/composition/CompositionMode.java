package dev.cdccache.ticketorchestrator.composition;

/** How a page of tickets is joined with its reference data ({@code ticket.composition.mode}). */
public enum CompositionMode {
    /** Per page, one bulk lookup per reference type: at most one query per type for the cache misses. */
    BATCHED,
    /**
     * One lookup per ticket per reference type, the naive 1 + 3 x pageSize pattern; kept so that
     * load tests can show the difference.
     */
    PER_ITEM
}
