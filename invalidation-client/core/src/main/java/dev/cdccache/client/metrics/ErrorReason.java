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
    /**
     * A heartbeat whose {@code after.id} is not the connector named by its {@code cdc-connector} header (another
     * connector's row, a manual UPDATE). Ignored: it proves nothing for this connector's tables.
     */
    REJECTED_HEARTBEAT("rejected_heartbeat"),
    /**
     * A heartbeat dated ahead of this host's clock by more than {@code max-clock-skew} (database clock ahead, a
     * manual UPDATE). It proves only up to this host's time minus the measured skew, so it cannot move a watermark
     * past what has been applied.
     */
    FUTURE_HEARTBEAT("future_heartbeat"),
    /**
     * An oversized event the connector reduced (top-level {@code truncated_columns}) lacked a cache's key
     * columns: that cache was evicted entirely. Caches whose key columns it kept were evicted by key.
     */
    TRUNCATED("truncated"),
    /** The consumer's position fell outside the log (events lost). Caches of the topic evicted. */
    OFFSET_OUT_OF_RANGE("offset_out_of_range"),
    /** Kafka failed (unreachable, timeout...). Consumption retried. */
    CONSUMER_FAILURE("consumer_failure"),
    /**
     * Anything else thrown while one record was parsed, mapped or applied (a bug, or input no other check
     * caught). The caches of the record's table were evicted entirely; the rest of the poll batch goes on.
     */
    RECORD_FAILURE("record_failure"),
    /**
     * The consumer loop itself failed with an unexpected exception or {@code Error} (not a Kafka failure it
     * expects): it backs off and restarts; the client reports not fresh until its positions are confirmed again.
     */
    CONSUMER_RESTART("consumer_restart"),
    /**
     * An {@code InvalidationListener} threw. The event was applied to the caches before; the listener's failure is
     * counted and logged at most once a minute per listener class.
     */
    LISTENER_FAILURE("listener_failure");

    private final String tag;

    ErrorReason(String tag) {
        this.tag = tag;
    }

    public String tag() {
        return tag;
    }
}
