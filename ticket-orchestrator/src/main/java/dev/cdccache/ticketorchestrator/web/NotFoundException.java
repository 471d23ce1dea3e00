package dev.cdccache.ticketorchestrator.web;

/** A request naming something that does not exist; answered 404 with the message as the problem's detail. */
public class NotFoundException extends RuntimeException {

    /** @param detail what was not found */
    public NotFoundException(String detail) {
        super(detail);
    }
}
