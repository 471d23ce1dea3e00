package dev.cdccache.bench.freshness;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class VersionLedgerTest {

    private final VersionLedger ledger = new VersionLedger();

    @Test
    void readOfARowNeverChangedProvesNothing() {
        assertThat(ledger.classify(1, 0, 1_000)).isEqualTo(ReadVerdict.UNCHANGED_ROW);
    }

    @Test
    void readStartedBeforeTheFirstChangeCommittedIsNotCountedAsAReadOfAChangedRow() {
        ledger.committed(1, 5, 2_000);
        assertThat(ledger.classify(1, 0, 1_000)).isEqualTo(ReadVerdict.UNCHANGED_ROW);
    }

    @Test
    void readServedTheLatestCommittedVersionIsFresh() {
        ledger.committed(1, 5, 1_000);
        ledger.committed(1, 9, 3_000);
        assertThat(ledger.classify(1, 9, 4_000)).isEqualTo(ReadVerdict.FRESH);
    }

    @Test
    void readServedAVersionReplacedBeforeItStartedIsStaleBySinceTheReplacementCommitted() {
        ledger.committed(1, 5, 1_000);
        ledger.committed(1, 9, 3_000);
        ledger.committed(1, 12, 3_500);
        ReadVerdict verdict = ledger.classify(1, 5, 4_000);
        assertThat(verdict.stale()).isTrue();
        assertThat(verdict.staleNanos()).isEqualTo(1_000);
    }

    @Test
    void originalValueServedAfterTheFirstChangeCommittedIsStale() {
        ledger.committed(1, 5, 1_000);
        assertThat(ledger.classify(1, 0, 1_600).staleNanos()).isEqualTo(600);
    }

    @Test
    void readOverlappingACommitMayServeEitherVersionAndStayFresh() {
        ledger.committed(1, 5, 1_000);
        ledger.committed(1, 9, 3_000);
        // started at 2_500, before version 9 committed: version 5 was still current then
        assertThat(ledger.classify(1, 5, 2_500)).isEqualTo(ReadVerdict.FRESH);
        assertThat(ledger.classify(1, 9, 2_500)).isEqualTo(ReadVerdict.FRESH);
    }

    @Test
    void versionNewerThanAnyLoggedIsFreshBecauseItsCommitReturnedAfterTheRead() {
        ledger.committed(1, 5, 1_000);
        assertThat(ledger.classify(1, 7, 2_000)).isEqualTo(ReadVerdict.FRESH);
    }

    @Test
    void tallyCountsStaleFractionOverReadsOfChangedRowsOnly() {
        FreshnessTally tally = new FreshnessTally();
        tally.add(ReadVerdict.UNCHANGED_ROW);
        tally.add(ReadVerdict.FRESH);
        tally.add(ReadVerdict.FRESH);
        tally.add(ReadVerdict.FRESH);
        tally.add(ReadVerdict.stale(2_000_000));
        assertThat(tally.readsOfChangedRows()).isEqualTo(4);
        assertThat(tally.staleFraction()).isEqualTo(0.25);
        assertThat(tally.staleAges().maxMicros()).isBetween(1_999L, 2_001L);
    }
}
