package dev.cdccache.ticketorchestrator.reference;

import java.time.LocalDate;

/**
 * A temporary car swap on a season ticket (the holder parks another car while theirs is repaired).
 *
 * @param id                 primary key
 * @param originalCarNumber  the car the ticket was issued for
 * @param temporaryCarNumber the car allowed in its place
 * @param reason             why the swap was granted
 * @param validUntil         last day the swap applies
 */
public record CarExchangeDetail(long id, String originalCarNumber, String temporaryCarNumber, String reason,
                                LocalDate validUntil) {
}
