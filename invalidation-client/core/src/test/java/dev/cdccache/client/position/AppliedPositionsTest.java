package dev.cdccache.client.position;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AppliedPositionsTest {

    private final AppliedPositions positions = new AppliedPositions();

    @Test
    void mariaDbPositionsKeepTheHighestSequenceOfEachDomainWhicheverServerWroteIt() {
        assertThat(positions.advance("0-1-10")).isTrue();
        assertThat(positions.advance("0-1-9")).as("an older change of the same domain").isFalse();
        assertThat(positions.advance("1-7-3")).isTrue();
        assertThat(positions.advance("0-2-11")).as("a new primary continues the domain").isTrue();

        assertThat(positions.mariaDbPosition()).isEqualTo("0-2-11,1-7-3");
        assertThat(positions.mySqlGtidSet()).isEmpty();
    }

    @Test
    void mySqlGtidsBecomeOneIntervalPerSourceServer() {
        positions.advance("3E11FA47-71CA-11E1-9E33-C80AA9429562:23");
        positions.advance("3e11fa47-71ca-11e1-9e33-c80aa9429562:21");
        positions.advance("aaaaaaaa-71ca-11e1-9e33-c80aa9429562:5");

        assertThat(positions.mySqlGtidSet()).isEqualTo(
                "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-23,aaaaaaaa-71ca-11e1-9e33-c80aa9429562:1-5");
    }

    @Test
    void missingOrMalformedPositionsAreIgnored() {
        for (String bad : new String[] {null, "", "0-1", "a-b-c", "0-1-99999999999999999999", ":5", "uuid:x", "-1-2"}) {
            assertThat(positions.advance(bad)).as(bad).isFalse();
        }
        assertThat(positions.isEmpty()).isTrue();
        assertThat(positions.toString()).isEmpty();
    }
}
