package dev.cdccache.verifier.fault;

/** The failures the verifier injects while writes and reads go on. */
public enum FaultKind {
    /** SIGKILL of the connector process, restarted after a few seconds: events are redelivered from its offsets. */
    CONNECTOR_KILL("connector kill -9 and restart"),
    /** Graceful stop of the Kafka broker, started again on the same port with the same data. */
    KAFKA_RESTART("Kafka broker stop and restart"),
    /** One client instance closed and created anew (empty caches, positioned at the log end). */
    CLIENT_RESTART("client instance restart"),
    /** One client instance's consumer thread blocked for twice max-staleness, then released. */
    CLIENT_PAUSE("client consumer paused past max-staleness"),
    /** MariaDB stopped and started (the writer waits; readers' loads fail meanwhile). */
    MARIADB_RESTART("MariaDB restart"),
    /** The connector stopped for longer than max-staleness: clients must stop trusting old entries. */
    CONNECTOR_OUTAGE("connector down past max-staleness");

    private final String description;

    FaultKind(String description) {
        this.description = description;
    }

    public String description() {
        return description;
    }
}
