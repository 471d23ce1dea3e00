package dev.cdccache.ticketorchestrator.ticket;

/** Lifecycle state of a season ticket. */
public enum TicketStatus {
    /** Paid and usable in its period. */
    ACTIVE,
    /** Temporarily not usable (e.g. payment overdue). */
    SUSPENDED,
    /** Cancelled before its end date. */
    CANCELLED
}
