package dev.cdccache.connector.publish;

import static dev.cdccache.connector.publish.TransactionCoalescer.Decision.EVICT_TABLE;
import static dev.cdccache.connector.publish.TransactionCoalescer.Decision.PUBLISH;
import static dev.cdccache.connector.publish.TransactionCoalescer.Decision.SUPPRESS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The counting of rows per transaction and table, and which row events a table-wide eviction replaces. */
class TransactionCoalescerTest {

    private static List<TransactionCoalescer.Decision> rows(TransactionCoalescer coalescer, String table, int n) {
        List<TransactionCoalescer.Decision> decisions = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            decisions.add(coalescer.decide(table, false));
        }
        return decisions;
    }

    @Test
    void theRowsAfterTheThresholdAreReplacedByOneEvictionAndThenSuppressed() {
        TransactionCoalescer coalescer = new TransactionCoalescer(3, Map.of());
        coalescer.transaction("bin.1:100");
        assertThat(rows(coalescer, "shop.item", 6))
                .containsExactly(PUBLISH, PUBLISH, PUBLISH, EVICT_TABLE, SUPPRESS, SUPPRESS);
        assertThat(coalescer.published("shop.item")).isEqualTo(3);
        Map<String, Integer> suppressed = new LinkedHashMap<>();
        coalescer.drainSuppressed(suppressed::put);
        assertThat(suppressed).as("the row the eviction replaced counts as suppressed").containsEntry("shop.item", 3);
        coalescer.drainSuppressed((table, n) -> assertThat(n).as("drained once").isZero());
    }

    @Test
    void eachTableOfATransactionIsCountedOnItsOwn() {
        TransactionCoalescer coalescer = new TransactionCoalescer(2, Map.of());
        coalescer.transaction("bin.1:100");
        assertThat(rows(coalescer, "shop.item", 2)).containsOnly(PUBLISH);
        assertThat(rows(coalescer, "shop.order", 2)).containsOnly(PUBLISH);
        assertThat(coalescer.decide("shop.item", false)).isEqualTo(EVICT_TABLE);
        assertThat(coalescer.decide("shop.order", false)).isEqualTo(EVICT_TABLE);
        assertThat(coalescer.decide("shop.item", false)).isEqualTo(SUPPRESS);
    }

    @Test
    void everyTransactionIsCountedAnew() {
        TransactionCoalescer coalescer = new TransactionCoalescer(2, Map.of());
        coalescer.transaction("bin.1:100");
        assertThat(rows(coalescer, "shop.item", 3)).containsExactly(PUBLISH, PUBLISH, EVICT_TABLE);
        coalescer.transaction("bin.1:100"); // a record of the same transaction (a Debezium heartbeat inside it)
        assertThat(coalescer.decide("shop.item", false)).isEqualTo(SUPPRESS);
        coalescer.transaction("bin.1:900");
        assertThat(rows(coalescer, "shop.item", 3)).containsExactly(PUBLISH, PUBLISH, EVICT_TABLE);
        coalescer.transaction(null); // no resume offset: a transaction of its own, and so is the next
        assertThat(coalescer.decide("shop.item", false)).isEqualTo(PUBLISH);
        coalescer.transaction(null);
        assertThat(coalescer.decide("shop.item", false)).isEqualTo(PUBLISH);
    }

    @Test
    void tombstonesDoNotCountAndFollowTheirDelete() {
        TransactionCoalescer coalescer = new TransactionCoalescer(1, Map.of());
        coalescer.transaction("bin.1:100");
        assertThat(coalescer.decide("shop.item", false)).isEqualTo(PUBLISH);
        assertThat(coalescer.decide("shop.item", true)).as("the published delete's tombstone").isEqualTo(PUBLISH);
        assertThat(coalescer.decide("shop.item", false)).isEqualTo(EVICT_TABLE);
        assertThat(coalescer.decide("shop.item", true)).as("a suppressed delete's tombstone").isEqualTo(SUPPRESS);
        Map<String, Integer> suppressed = new LinkedHashMap<>();
        coalescer.drainSuppressed(suppressed::put);
        assertThat(suppressed).containsEntry("shop.item", 1);
    }

    @Test
    void aTablesOwnThresholdOverridesTheDefaultAndZeroNeverCoalesces() {
        TransactionCoalescer coalescer = new TransactionCoalescer(2, Map.of("shop.item", 0, "shop.order", 1));
        assertThat(coalescer.enabled()).isTrue();
        coalescer.transaction("bin.1:100");
        assertThat(rows(coalescer, "Shop.Item", 5)).as("names compared ignoring case").containsOnly(PUBLISH);
        assertThat(rows(coalescer, "shop.order", 2)).containsExactly(PUBLISH, EVICT_TABLE);
        assertThat(rows(coalescer, "shop.other", 3)).containsExactly(PUBLISH, PUBLISH, EVICT_TABLE);
        assertThat(TransactionCoalescer.never().enabled()).isFalse();
        assertThat(new TransactionCoalescer(0, Map.of("shop.item", 5)).enabled()).isTrue();
    }

    @Test
    void negativeThresholdsAreRefused() {
        assertThatThrownBy(() -> new TransactionCoalescer(-1, Map.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TransactionCoalescer(5, Map.of("shop.item", -2)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
