package dev.cdccache.connector.publish;

/** Kafka did not acknowledge an event; the batch was not marked processed. */
public class PublishFailedException extends RuntimeException {

    public PublishFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
