package dev.cdccache.client.metrics;

/** Why an input was rejected or a cache was flushed as a precaution; the {@code reason} tag of the error counter. */
public enum ErrorReason {
    /** The record value is not JSON. The caches of the topic's table were evicted entirely. */
    MALFORMED_JSON("malformed_json"),
    /** JSON, but not a Debezium envelope (no {@code op}). Caches of the table evicted. */
    NOT_AN_ENVELOPE("not_an_envelope"),
    /** An {@code op} code the client does not know. Caches of the table evicted. */
    UNEXPECTED_OPERATION("unexpected_op"),
    /** A key could not be derived from a row (missing column, wrong type). That cache evicted. */
    UNMAPPABLE_KEY("unmappable_key"),
    /** A record from a topic no cache is bound to. Ignored. */
    UNKNOWN_TABLE("unknown_table"),
    /** A value larger than {@code max-message-size}. Caches of the table evicted. */
    OVERSIZED("oversized"),
    /** A heartbeat without a usable {@code ts}. Ignored (the watermark does not move). */
    BAD_HEARTBEAT("bad_heartbeat"),
    /** The consumer's position fell outside the log (events lost). Caches of the topic evicted. */
    OFFSET_OUT_OF_RANGE("offset_out_of_range"),
    /** Kafka failed (unreachable, timeout...). Consumption retried. */
    CONSUMER_FAILURE("consumer_failure");

    private final String tag;

    ErrorReason(String tag) {
        this.tag = tag;
    }

    public String tag() {
        return tag;
    }
}
