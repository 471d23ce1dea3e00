package dev.cdccache.verifier.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.verifier.history.Tokens;
import dev.cdccache.verifier.schema.Item;
import dev.cdccache.verifier.schema.ItemStats;
import dev.cdccache.verifier.workload.TableModel.RowChange;
import java.util.List;
import org.junit.jupiter.api.Test;

class TableModelTest {

    private final TableModel model = new TableModel(100, 4);

    @Test
    void tokensComputedFromTheModelEqualTokensOfTheValuesAReaderIsServed() {
        Item a = new Item(1, "c1-1", 2, 1, "p1");
        Item b = new Item(7, "c7-2", 2, 2, "p2");
        model.apply(List.of(new RowChange(1, null, a), new RowChange(7, null, b)));

        assertThat(model.groupToken(2)).isEqualTo(Tokens.ofGroup(List.of(a, b)));
        assertThat(model.groupToken(3)).isEqualTo(Tokens.ofGroup(List.of()));
        assertThat(model.statsToken()).isEqualTo(Tokens.ofStats(new ItemStats(2, 3)));
        assertThat(model.codeToken("c7-2")).isEqualTo(2);
    }

    @Test
    void aSecondaryKeyChangeAffectsTheOldAndTheNewCodeAndBothGroups() {
        Item before = new Item(1, "c1-1", 0, 1, "p1");
        model.apply(List.of(new RowChange(1, null, before)));
        Item after = new Item(1, "c1-2", 3, 2, "p2");
        List<RowChange> change = List.of(new RowChange(1, before, after));
        model.apply(change);

        assertThat(TableModel.affectedCodes(change)).containsExactly("c1-1", "c1-2");
        assertThat(TableModel.affectedGroups(change)).containsExactly(0L, 3L);
        assertThat(model.codeToken("c1-1")).isEqualTo(Tokens.ABSENT);
        assertThat(model.codeToken("c1-2")).isEqualTo(2);
    }

    @Test
    void undoRestoresTheStateBeforeAnUncommittedTransaction() {
        Item a = new Item(1, "c1-1", 0, 1, "p1");
        model.apply(List.of(new RowChange(1, null, a)));
        long stats = model.statsToken();
        List<RowChange> delete = List.of(new RowChange(1, a, null));
        model.apply(delete);
        model.undo(delete);

        assertThat(model.get(1)).isEqualTo(a);
        assertThat(model.statsToken()).isEqualTo(stats);
        assertThat(model.currentCode(1)).isEqualTo("c1-1");
    }
}
