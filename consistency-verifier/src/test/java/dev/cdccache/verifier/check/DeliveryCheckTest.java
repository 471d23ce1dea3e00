package dev.cdccache.verifier.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.verifier.RunClock;
import dev.cdccache.verifier.history.CommittedHistory;
import dev.cdccache.verifier.instance.ReceivedEvents;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeliveryCheckTest {

    private final CommittedHistory history = new CommittedHistory(10, 2);
    private final ReceivedEvents received = new ReceivedEvents(10);
    private final RunClock clock = new RunClock();

    @Test
    void aChangeCommittedWhileTheInstanceWasLiveAndNeverReceivedIsLost() {
        history.expectEvent(3, 7, 100, 110);
        history.expectEvent(3, -7, 200, 210);
        received.event(3, 7);

        DeliveryCheck.Result result = check(List.of(new long[] {50, Long.MAX_VALUE}), 1000);

        assertThat(result.expected()).isEqualTo(2);
        assertThat(result.missing()).isEqualTo(1);
        assertThat(result.examples()).singleElement().asString().contains("the delete of version 7 of item 3");
    }

    @Test
    void duplicatesAreFineAndChangesOutsideTheLiveWindowsAreNotOwed() {
        history.expectEvent(1, 5, 10, 20); // before the instance was ready
        history.expectEvent(1, 6, 100, 110);
        history.expectEvent(1, 8, 400, 410); // after it was closed, before its next incarnation
        history.expectEvent(1, 9, 600, 610);
        received.event(1, 6);
        received.event(1, 6);
        received.event(1, 9);

        DeliveryCheck.Result result = check(List.of(new long[] {50, 300}, new long[] {500, Long.MAX_VALUE}), 1000);

        assertThat(result.expected()).isEqualTo(2);
        assertThat(result.missing()).isZero();
    }

    @Test
    void aTruncationNeedsATruncationAppliedAfterItsCommitBegan() {
        history.expectTruncation(100, 110);
        history.expectTruncation(300, 310);
        received.truncation(120);
        received.truncation(125); // a duplicate of the first

        DeliveryCheck.Result result = check(List.of(new long[] {50, Long.MAX_VALUE}), 1000);

        assertThat(result.expectedTruncations()).isEqualTo(2);
        assertThat(result.missingTruncations()).isEqualTo(1);
    }

    @Test
    void rowsOfACoalescedTransactionAreDeliveredByItsEvictionAndOnlyByItsOwn() {
        // a bulk update (commit 100..110, GTID 0-1-7) of ids 1-4: rows 1-2 arrived as row events, the rest as the
        // transaction's coalesced eviction; another bulk (0-1-9) whose eviction never came
        bulk(1, 4, 5, 100, "0-1-7");
        bulk(1, 4, 6, 300, "0-1-9");
        received.event(1, 5);
        received.event(2, 5);
        received.coalescedEviction("0-1-7", 120, 2);
        received.coalescedEviction("0-1-8", 130, 0); // another transaction's eviction covers nothing here
        received.event(1, 6);

        DeliveryCheck.Result result = check(List.of(new long[] {50, Long.MAX_VALUE}), 1000);

        assertThat(result.expected()).isEqualTo(8);
        assertThat(result.coveredByCoalescedEviction()).isEqualTo(2);
        assertThat(result.missing()).isEqualTo(3);
        assertThat(result.examples()).hasSize(3).allSatisfy(e -> assertThat(e).contains("version 6"));
    }

    @Test
    void aCoalescedEvictionAppliedByALaterIncarnationDoesNotDeliverToAnEarlierOne() {
        history.expectEvent(1, 5, 100, 110);
        history.expectCoalescible(100, "0-1-7", 1);
        received.coalescedEviction("0-1-7", 600, 0); // published again after a connector restart, seen only later

        DeliveryCheck.Result result = check(List.of(new long[] {50, 300}, new long[] {500, Long.MAX_VALUE}), 1000);

        assertThat(result.coveredByCoalescedEviction()).isZero();
        assertThat(result.missing()).isEqualTo(1);
    }

    @Test
    void rowEventsAnEvictionSaysWerePublishedBeforeItAreStillOwed() {
        // a bulk update of ids 1-4; its eviction says 2 row events came before it, but only id 1's arrived
        bulk(1, 4, 5, 100, "0-1-7");
        received.event(1, 5);
        received.coalescedEviction("0-1-7", 120, 2);

        DeliveryCheck.Result result = check(List.of(new long[] {50, Long.MAX_VALUE}), 1000);

        assertThat(result.expected()).isEqualTo(4);
        assertThat(result.coveredByCoalescedEviction()).as("rows 3 and 4").isEqualTo(2);
        assertThat(result.missing()).isEqualTo(1);
        assertThat(result.examples()).singleElement().satisfies(e -> assertThat(e)
                .contains("never received 1 of the row events transaction 0-1-7")
                .contains("says 2 came before it, but 3 of its rows arrived as no row event"));
    }

    @Test
    void theLargestCountOfTheEvictionsAppliedInTheWindowBoundsWhatTheyDeliver() {
        // evicted twice (a connector restart): the second publication counted 3 row events of its own before it
        bulk(1, 4, 5, 100, "0-1-7");
        received.event(1, 5);
        received.event(2, 5);
        received.coalescedEviction("0-1-7", 120, 1);
        received.coalescedEviction("0-1-7", 140, 3);
        received.coalescedEviction("0-1-7", 9000, 4); // after the instance's window: says nothing about it

        DeliveryCheck.Result result = check(List.of(new long[] {50, 1000}), 1000);

        assertThat(result.coveredByCoalescedEviction()).isEqualTo(1);
        assertThat(result.missing()).isEqualTo(1);
    }

    /** A committed bulk of ids {@code first..last} to {@code version}, commit {@code start..start+10}. */
    private void bulk(long first, long last, long version, long start, String gtid) {
        for (long id = first; id <= last; id++) {
            history.expectEvent(id, version, start, start + 10);
        }
        history.expectCoalescible(start, gtid, (int) (last - first + 1));
    }

    private DeliveryCheck.Result check(List<long[]> windows, long caughtUpTo) {
        return DeliveryCheck.check("instance-1", windows, received, history, caughtUpTo, clock);
    }
}
