package dev.cdccache.connector.heartbeat;

import java.sql.SQLException;
import java.util.Optional;

/**
 * Asked by the {@link HeartbeatWriter} before every heartbeat row: would the row prove only what is true? A heartbeat
 * row tells clients that every change committed before its time was published; that holds only while every change of a
 * captured table reaches the binlog the connector reads.
 */
public interface HeartbeatProof {

    /** Nothing to check: every row proves what it says. */
    HeartbeatProof ALWAYS = Optional::empty;

    /**
     * Asked on the writer's thread, outside its lock (the binlog-reading thread may write a row meanwhile).
     *
     * @return why a row written now would prove changes published that never reach the connector, with what to do;
     *         empty when it would not
     * @throws SQLException when that cannot be told now (the writer then writes no row this time)
     */
    Optional<String> refusal() throws SQLException;

    /**
     * Asked once when the proof stops refusing after it refused: whether rows must stay held anyway, until the connector
     * is started again, because the refusal left lasting damage behind (a replica that skipped changes differs from its
     * primary from then on).
     *
     * @param refusal what it refused for
     * @return why rows stay held, with what to do; empty when rows may resume under a new epoch
     */
    default Optional<String> damageLeftBy(String refusal) {
        return Optional.empty();
    }

    /** Releases what the proof holds (connections); it may be asked again afterwards. */
    default void close() {
    }
}
