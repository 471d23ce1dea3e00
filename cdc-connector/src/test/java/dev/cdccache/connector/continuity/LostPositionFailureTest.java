package dev.cdccache.connector.continuity;

import static org.assertj.core.api.Assertions.assertThat;

import io.debezium.DebeziumException;
import org.apache.kafka.connect.errors.ConnectException;
import org.junit.jupiter.api.Test;

class LostPositionFailureTest {

    /** Debezium 3.5's message (BaseSourceTask) when the stored binlog position is gone. */
    private static final String DEBEZIUM_MESSAGE = "The connector is trying to read binlog starting at "
            + "BinlogOffsetContext{file=mariadb-bin.000001, pos=11114}, but this is no longer available on the server."
            + " Reconfigure the connector to use a snapshot mode when needed.";

    @Test
    void debeziumsRefusalBecauseThePositionIsGoneIsExplainedWithTheRemedyAndShownInHealth() {
        ContinuityState state = new ContinuityState();
        Throwable error = new ConnectException("task failed", new DebeziumException(DEBEZIUM_MESSAGE));

        assertThat(LostPositionFailure.explain(state, "Error while trying to run connector", error)).isTrue();

        assertThat(state.engineFailure()).hasValueSatisfying(text -> assertThat(text)
                .contains("no longer on the database server", "purged while the connector was down")
                .contains("cdc.connector.continuity.on-lost-position=new-epoch"));
        assertThat(new ContinuityHealthIndicator(state, () -> "held").health().getStatus().getCode()).isEqualTo("DOWN");
    }

    @Test
    void mariaDbsGtidErrorForPurgedBinlogsIsRecognisedToo() {
        // what Debezium 3.5 reports on MariaDB: its file validation passes, the server refuses the GTID (error 1236)
        ContinuityState state = new ContinuityState();
        Throwable error = new ConnectException("An exception occurred in the change event producer. This connector will be stopped.",
                new DebeziumException("Could not find GTID state requested by slave in any binlog files. Probably the slave state"
                        + " is too old and required binlog files have been purged. Error code: 1236; SQLSTATE: HY000."));

        assertThat(LostPositionFailure.explain(state, "Engine has failed", error)).isTrue();
        assertThat(state.engineFailure()).isPresent();
    }

    @Test
    void otherFailuresAreLeftToTheEngine() {
        ContinuityState state = new ContinuityState();
        assertThat(LostPositionFailure.explain(state, "Kafka down", new IllegalStateException("timeout"))).isFalse();
        assertThat(state.engineFailure()).isEmpty();
    }
}
