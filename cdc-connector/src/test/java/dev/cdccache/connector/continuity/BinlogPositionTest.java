package dev.cdccache.connector.continuity;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BinlogPositionTest {

    @Test
    void placesOfOneBinlogCompareByFileNumberThenOffset() {
        BinlogPosition at = new BinlogPosition(1, "mariadb-bin.000009", 500);
        assertThat(at.isBefore(new BinlogPosition(1, "mariadb-bin.000009", 500))).isFalse();
        assertThat(at.isBefore(at.next())).isTrue();
        assertThat(at.isBefore(new BinlogPosition(1, "mariadb-bin.000009", 499))).isFalse();
        // numbers, not text: a seventh digit after a rollover of six
        assertThat(at.isBefore(new BinlogPosition(1, "mariadb-bin.1000000", 4))).isTrue();
        assertThat(new BinlogPosition(1, "mariadb-bin.000010", 4).isBefore(at)).isFalse();
        BinlogPosition later = new BinlogPosition(1, "mariadb-bin.000010", 4);
        assertThat(at.laterOf(later)).isEqualTo(later);
        assertThat(at.laterOf(new BinlogPosition(1, "mariadb-bin.000002", 900))).isEqualTo(at);
    }

    @Test
    void anIncidentIsCoveredOnlyWhenItStartsBeforeTheCoveredPlace() {
        BinlogPosition at = new BinlogPosition(1, "mariadb-bin.000009", 500);
        assertThat(at.isBefore(new BinlogPosition(1, "other-bin.000009", 900))).isFalse();
        // another server (a failover the reader followed): its numbers mean nothing here
        assertThat(at.isBefore(new BinlogPosition(2, "mariadb-bin.000009", 900))).isFalse();
        assertThat(at.isBefore(new BinlogPosition(1, "mariadb-bin", 900))).isFalse();
        assertThat(new BinlogPosition(1, "mariadb-bin.x", 1).isBefore(new BinlogPosition(1, "mariadb-bin.x", 2))).isFalse();
        ContinuityState state = new ContinuityState();
        assertThat(state.coversIncident(at)).as("nothing recorded").isFalse();
        state.coverIncidentsBefore(at);
        assertThat(state.coversIncident(at)).as("a reader resuming here has not read it yet").isFalse();
        state.coverIncidentsBefore(new BinlogPosition(1, "mariadb-bin.000009", 800));
        assertThat(state.coversIncident(at)).isTrue();
        assertThat(state.coversIncident(null)).as("an incident of unknown place").isFalse();
        assertThat(state.coversIncident(new BinlogPosition(1, "mariadb-bin.000010", 4))).isFalse();
    }
}
