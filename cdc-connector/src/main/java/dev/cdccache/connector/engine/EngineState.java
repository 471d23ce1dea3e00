package dev.cdccache.connector.engine;

/** Life-cycle state of the Debezium engine, as reported by health and the {@code cdc.connector.engine.state} gauge. */
public enum EngineState {
    /** Not started, or closed. */
    STOPPED(0),
    /** Started, not yet reading the binlog. */
    STARTING(1),
    /** Connected to the binlog and publishing. */
    STREAMING(2),
    /** Stopped by an error; the process exits unless embedded in a test. */
    FAILED(3);

    private final int code;

    EngineState(int code) {
        this.code = code;
    }

    /** The gauge value. */
    public int code() {
        return code;
    }
}
