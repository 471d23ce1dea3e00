package dev.cdccache.verifier.history;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class KeyHistoryTest {

    @Test
    void aValueCommittedBeforeTheReadAndNotReplacedIsFresh() {
        KeyHistory h = new KeyHistory(Tokens.ABSENT, true);
        h.complete(h.appendPending(5, 100), 110);

        assertThat(h.classify(5, 200, 210)).isEqualTo(KeyHistory.FRESH);
    }

    @Test
    void theOldValueIsFreshUntilTheNewCommitReturned() {
        KeyHistory h = new KeyHistory(Tokens.ABSENT, true);
        h.complete(h.appendPending(5, 100), 110);
        int next = h.appendPending(6, 300);

        assertThat(h.classify(5, 305, 306)).as("new commit still pending").isEqualTo(KeyHistory.FRESH);
        h.complete(next, 320);
        assertThat(h.classify(5, 315, 330)).as("read started before the commit returned").isEqualTo(KeyHistory.FRESH);
        assertThat(h.classify(5, 400, 401)).as("stale since the commit returned").isEqualTo(80);
    }

    @Test
    void aNewValueSeenWhileItsCommitRunsIsFresh() {
        KeyHistory h = new KeyHistory(Tokens.ABSENT, true);
        h.complete(h.appendPending(5, 100), 110);
        h.appendPending(6, 300);

        assertThat(h.classify(6, 290, 305)).isEqualTo(KeyHistory.FRESH);
    }

    @Test
    void aValueSeenBeforeItsCommitStartedIsAPhantom() {
        KeyHistory h = new KeyHistory(Tokens.ABSENT, true);
        h.complete(h.appendPending(5, 100), 110);

        assertThat(h.classify(5, 50, 60)).isEqualTo(KeyHistory.PHANTOM);
        assertThat(h.classify(7, 200, 210)).as("never committed").isEqualTo(KeyHistory.PHANTOM);
    }

    @Test
    void stalenessCountsFromTheFirstNewerCommitNotTheLatest() {
        KeyHistory h = new KeyHistory(Tokens.ABSENT, true);
        h.complete(h.appendPending(5, 100), 110);
        h.complete(h.appendPending(6, 200), 210);
        h.complete(h.appendPending(7, 300), 310);

        assertThat(h.classify(5, 1000, 1001)).isEqualTo(1000 - 210);
    }

    @Test
    void anAbsenceMatchesAnyAbsentStateOfARowKey() {
        KeyHistory h = new KeyHistory(Tokens.ABSENT, true);
        h.complete(h.appendPending(5, 100), 110);
        h.complete(h.appendPending(-1, 200), 210); // truncated
        h.complete(h.appendPending(6, 300), 310);

        assertThat(h.classify(Tokens.ABSENT, 250, 260)).isEqualTo(KeyHistory.FRESH);
        assertThat(h.classify(Tokens.ABSENT, 400, 401)).isEqualTo(400 - 310);
        assertThat(h.classify(Tokens.ABSENT, 50, 60)).as("absent before the first insert").isEqualTo(KeyHistory.FRESH);
    }

    @Test
    void aDiscardedCommitLeavesNoTrace() {
        KeyHistory h = new KeyHistory(Tokens.ABSENT, true);
        h.complete(h.appendPending(5, 100), 110);
        h.discard(h.appendPending(6, 200));

        assertThat(h.classify(5, 1000, 1001)).isEqualTo(KeyHistory.FRESH);
        assertThat(h.classify(6, 1000, 1001)).isEqualTo(KeyHistory.PHANTOM);
    }
}
