package dev.cdccache.coupon.jdbc;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counts SQL statements executed through the application's {@code DataSource}: every
 * {@code execute*} call on a statement counts one (a JDBC batch counts once). Exposed as the Micrometer
 * counter {@code coupon.db.statements}; tests read {@link #count()} before and after a request to prove
 * how many round trips it cost.
 */
public final class StatementCounter {

    private final LongAdder executed = new LongAdder();

    /** Statements executed since start. */
    public long count() {
        return executed.sum();
    }

    void increment() {
        executed.increment();
    }
}
