package dev.cdccache.connector.heartbeat;

import java.sql.SQLException;
import java.util.Optional;

/**
 * Asked by the {@link HeartbeatWriter} before every heartbeat row: would the row prove only what is true? A heartbeat
 * row tells clients that every change committed before its time was published; that holds only while every change of a
 * captured table reaches the binlog the connector reads.
 */
public interface HeartbeatProof {

    /**
     * Why rows would prove what is not true.
     *
     * @param why what keeps changes out of the binlog, with what to do
     * @param damage what stays wrong once that is gone, with what to do (a replica that skipped changes differs from
     *     its primary until it is re-synced); empty when nothing does
     */
    record Refusal(String why, Optional<String> damage) {
    }

    /**
     * Asked on the writer's thread, outside its lock (the binlog-reading thread may write a row meanwhile).
     *
     * @return why a row written now would prove changes published that never reach the connector; empty when it would
     *         not
     * @throws SQLException when that cannot be told now (the writer then writes no row this time)
     */
    Optional<Refusal> refusal() throws SQLException;

    /** Releases what the proof holds (connections); it is not asked again afterwards. */
    default void close() {
    }
}
