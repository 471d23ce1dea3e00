package dev.cdccache.ticketorchestrator.web;

/** A request whose parameters make no sense; answered 400 with the message as the problem's detail. */
public class BadRequestException extends RuntimeException {

    /** @param detail what is wrong and what is accepted, for the caller */
    public BadRequestException(String detail) {
        super(detail);
    }
}
