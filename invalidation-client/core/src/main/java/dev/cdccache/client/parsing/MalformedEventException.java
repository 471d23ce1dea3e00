package dev.cdccache.client.parsing;

import dev.cdccache.client.Internal;

/** A record value that is not a usable Debezium change event. */
@Internal
public final class MalformedEventException extends Exception {

    /** Why, as a metric tag value. */
    public enum Reason {
        MALFORMED_JSON("malformed_json"),
        NOT_AN_ENVELOPE("not_an_envelope"),
        UNEXPECTED_OPERATION("unexpected_op");

        private final String tag;

        Reason(String tag) {
            this.tag = tag;
        }

        public String tag() {
            return tag;
        }
    }

    private final Reason reason;

    public MalformedEventException(Reason reason, String message, Throwable cause) {
        super(message, cause, false, false);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
