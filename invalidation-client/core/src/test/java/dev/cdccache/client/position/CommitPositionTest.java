package dev.cdccache.client.position;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CommitPositionTest {

    private static final String UUID = "3e11fa47-71ca-11e1-9e33-c80aa9429562";

    private static CommitPosition position(String text) {
        return CommitPosition.parse(text).orElseThrow();
    }

    @Test
    void readsMariaDbPositionsAndMySqlGtidSetsAndWritesThemBack() {
        CommitPosition position = position("0-1-451, 1-2-33\n," + UUID.toUpperCase() + ":1-100:102-200");

        assertThat(position.components()).extracting(CommitPosition.Component::domain)
                .containsExactlyInAnyOrder("0", "1", UUID);
        assertThat(position.toString()).isEqualTo("0-1-451,1-2-33," + UUID + ":200");
        assertThat(position(position.toString())).isEqualTo(position);
    }

    @Test
    void aServerSharingADomainIsAComponentOfItsOwn() {
        CommitPosition position = position("0-1-451,0-2-300");

        assertThat(position.components()).extracting(CommitPosition.Component::source).containsExactly("0-1", "0-2");
    }

    @Test
    void maxKeepsTheHighestSequenceOfEachSourceAndReturnsItselfWhenNothingMoves() {
        CommitPosition floor = position("0-1-10,1-1-5");

        assertThat(floor.max(position("0-1-9"))).isSameAs(floor);
        assertThat(floor.max(CommitPosition.NONE)).isSameAs(floor);
        assertThat(floor.max(position("0-1-12,2-1-1")).toString()).isEqualTo("0-1-12,1-1-5,2-1-1");
    }

    @Test
    void refusesWhatIsNotAPosition() {
        for (String bad : new String[] {"0-1", "a-b-c", "0-1-x", "not-a-uuid:5", UUID + ":9-3", UUID + ":",
                "0-1-99999999999999999999", "x".repeat(CommitPosition.MAX_TEXT_LENGTH + 1)}) {
            assertThat(CommitPosition.parse(bad)).as(bad).isEmpty();
        }
        assertThat(CommitPosition.parse(" ")).contains(CommitPosition.NONE);
    }

    @Test
    void whatChangedSinceAnEarlierReadOfTheSameSession() {
        CommitPosition before = position("0-1-100,1-2-7");
        assertThat(position("0-1-100,1-2-7").changedSince(before)).as("nothing binlogged").isEqualTo(CommitPosition.NONE);
        assertThat(position("0-1-101,1-2-7").changedSince(before)).isEqualTo(position("0-1-101"));
        assertThat(position("0-1-1").changedSince(position("0-1-100"))).as("lower: a numbering that started over")
                .isEqualTo(position("0-1-1"));
        assertThat(position("0-1-5").changedSince(CommitPosition.NONE)).isEqualTo(position("0-1-5"));
        assertThat(CommitPosition.NONE.changedSince(before)).isEqualTo(CommitPosition.NONE);
    }
}
