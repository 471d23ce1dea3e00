package dev.cdccache.verifier.check;

import dev.cdccache.verifier.RunClock;
import dev.cdccache.verifier.history.CommittedHistory;
import dev.cdccache.verifier.instance.ClientInstance;
import dev.cdccache.verifier.instance.ReceivedEvents;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * "Nothing lost": every change the writer committed while an instance was live reached that instance.
 *
 * <p>An incarnation of an instance must receive every change whose commit started after it became ready
 * (it positioned at the log end before that, so the event was produced after its position) and ended before
 * the moment the instance was shown to have applied everything (before a restart, or at the end of the
 * run). Changes committed around a restart are not owed to anyone: the new incarnation starts with empty
 * caches. Duplicates are allowed; a truncation is matched by any truncation applied after its commit began. A
 * change that did not arrive as a row event is delivered by a coalesced eviction of its transaction (the connector
 * replaced the transaction's remaining rows by one table-wide eviction), counted apart; but only as many of the
 * transaction's rows as the eviction did not say were published before it as row events: those must have arrived
 * (the connector counts anew when it resumes inside a transaction, so this bounds only the last publication).
 */
public final class DeliveryCheck {

    /** The outcome for one instance. */
    public record Result(String instance, long expected, long received, long missing, long expectedTruncations,
            long missingTruncations, long coveredByCoalescedEviction, List<String> examples) {
    }

    private DeliveryCheck() {
    }

    /** @param caughtUpTo a time before which every committed change is owed to every live instance */
    public static Result check(ClientInstance instance, CommittedHistory history, long caughtUpTo, RunClock clock) {
        return check(instance.name(), instance.liveWindows(), instance.received(), history, caughtUpTo, clock);
    }

    /**
     * @param windows {@code [readyAt, caughtUpTo]} of each incarnation ({@link Long#MAX_VALUE}: still live)
     */
    public static Result check(String name, List<long[]> windows, ReceivedEvents received, CommittedHistory history,
            long caughtUpTo, RunClock clock) {
        for (long[] window : windows) {
            window[1] = Math.min(window[1], caughtUpTo);
        }
        long expected = 0;
        long missing = 0;
        long coalesced = 0;
        List<String> examples = new ArrayList<>();
        // per coalesced transaction (by commit start): its rows not received as row events, and the row events its
        // eviction says came before it
        Map<Long, long[]> notReceivedOfCoalesced = new HashMap<>();
        for (long id = 1; id <= history.idSpace(); id++) {
            long[] owed = history.expectedEvents(id);
            if (owed.length == 0) {
                continue;
            }
            long[] got = received.events(id);
            Arrays.sort(got);
            for (int i = 0; i < owed.length; i += 3) {
                long code = owed[i];
                long start = owed[i + 1];
                long end = owed[i + 2];
                long[] window = owingWindow(windows, start, end);
                if (window == null) {
                    continue;
                }
                expected++;
                if (Arrays.binarySearch(got, code) < 0) {
                    // applied by the incarnation the change is owed to: after the commit began, within its window
                    CommittedHistory.Coalescible tx = history.coalescibleTransaction(start);
                    long rowsBefore = received.coalescedAfterRows(tx == null ? null : tx.gtid(), start, window[1]);
                    if (rowsBefore != ReceivedEvents.NOT_EVICTED) {
                        long[] counts = notReceivedOfCoalesced.computeIfAbsent(start, s -> new long[2]);
                        counts[0]++;
                        counts[1] = rowsBefore;
                        coalesced++;
                        continue;
                    }
                    missing++;
                    if (examples.size() < 20) {
                        examples.add(name + " never received " + (code > 0 ? "the change to version "
                                + code : "the delete of version " + -code) + " of item " + id + ", committed "
                                + clock.format(start) + ".." + clock.format(end) + "; it received for this id: "
                                + Arrays.toString(tail(got)));
                    }
                }
            }
        }
        for (Map.Entry<Long, long[]> tx : notReceivedOfCoalesced.entrySet()) {
            CommittedHistory.Coalescible coalescible = history.coalescibleTransaction(tx.getKey());
            long notReceived = tx.getValue()[0];
            long rowsBefore = tx.getValue()[1];
            long lost = notReceived - Math.max(0, coalescible.rows() - rowsBefore);
            if (lost > 0) {
                // row events the connector published before the eviction did not arrive; which ones is not known
                coalesced -= lost;
                missing += lost;
                if (examples.size() < 20) {
                    examples.add(name + " never received " + lost + " of the row events transaction "
                        + coalescible.gtid() + " (" + coalescible.rows() + " rows, committed "
                        + clock.format(tx.getKey()) + ") published before its coalesced eviction: the eviction says "
                        + rowsBefore + " came before it, but " + notReceived + " of its rows arrived as no row event");
                }
            }
        }
        long[] truncations = history.truncations();
        long[] applied = received.truncations();
        Arrays.sort(applied);
        int next = 0;
        long expectedTruncations = 0;
        long missingTruncations = 0;
        for (int i = 0; i < truncations.length; i += 2) {
            if (!owedBy(windows, truncations[i], truncations[i + 1])) {
                continue;
            }
            expectedTruncations++;
            while (next < applied.length && applied[next] < truncations[i]) {
                next++;
            }
            if (next < applied.length) {
                next++;
            } else {
                missingTruncations++;
                examples.add(name + " never applied the TRUNCATE committed " + clock.format(truncations[i]));
            }
        }
        return new Result(name, expected, received.total(), missing, expectedTruncations,
                missingTruncations, coalesced, examples);
    }

    private static boolean owedBy(List<long[]> windows, long start, long end) {
        return owingWindow(windows, start, end) != null;
    }

    /** The {@code [readyAt, caughtUpTo]} window of the incarnation a change committed in [start, end] is owed to. */
    private static long[] owingWindow(List<long[]> windows, long start, long end) {
        for (long[] window : windows) {
            if (start >= window[0] && end <= window[1]) {
                return window;
            }
        }
        return null;
    }

    private static long[] tail(long[] values) {
        return values.length <= 12 ? values : Arrays.copyOfRange(values, values.length - 12, values.length);
    }
}
