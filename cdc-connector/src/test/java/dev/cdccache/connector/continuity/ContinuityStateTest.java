package dev.cdccache.connector.continuity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.contract.Epoch;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ContinuityStateTest {

    private final Clock clock = Clock.systemUTC();

    @Test
    void theEpochsOfAFilterHoldAreNotRenewalsANextStartWouldResume() {
        List<Continuity> started = new ArrayList<>();
        ContinuityState state = new ContinuityState(started::add);
        String root = Epoch.next();
        state.set(new Continuity(root, Continuity.Verdict.RESUMED, "resumed", "", Instant.now()));

        String held = state.renewForFilter("a filter skips db.item.", false, clock);
        assertThat(state.current().orElseThrow().verdict()).isEqualTo(Continuity.Verdict.FILTERED_FROM_BINLOG);
        assertThat(state.current().orElseThrow().message()).contains("a filter skips db.item.", "held back", held);
        assertThat(EpochLineage.continues(root, held)).as("a start while the row carries the hold's epoch").isFalse();

        String after = state.renewAfterFilter(clock);
        assertThat(state.current().orElseThrow().verdict()).isEqualTo(Continuity.Verdict.FILTER_REMOVED);
        assertThat(after).isNotIn(root, held);
        assertThat(EpochLineage.continues(root, after)).isFalse();
        assertThat(started).extracting(Continuity::epoch).containsExactly(held, after);

        // unlike a renewal for a statement, which the next start resumes
        String renewed = state.renewForStatement("UPDATE item SET x = 1", clock);
        assertThat(EpochLineage.continues(after, renewed)).isTrue();
    }

    @Test
    void noFilterEpochStartsBeforeTheStartUpCheckDecidedOne() {
        ContinuityState state = new ContinuityState();

        assertThat(state.renewForFilter("a filter", true, clock)).isNull();
        assertThat(state.renewAfterFilter(clock)).isNull();
        assertThat(state.current()).isEmpty();
    }
}
