package dev.cdccache.verifier.workload;

import dev.cdccache.verifier.history.Tokens;
import dev.cdccache.verifier.schema.Item;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The writer's copy of {@code verifier_db.item}: what the table holds once the writer's transactions are
 * committed. Owned by the writer thread; readers only see {@link #currentCode} and {@link #retiredCode}
 * to choose which codes to look up.
 */
public final class TableModel {

    /** A change of one row: {@code before}/{@code after} are {@code null} for "no row". */
    public record RowChange(long id, Item before, Item after) {
    }

    private final Item[] rows;
    private final Map<String, Long> idByCode = new HashMap<>();
    private final List<TreeMap<Long, Long>> groupVersions = new ArrayList<>();
    private final AtomicReferenceArray<String> codes;
    private final AtomicReferenceArray<String> retiredCodes = new AtomicReferenceArray<>(512);
    private int retiredNext;
    private long count;
    private long versionSum;

    public TableModel(int idSpace, int groups) {
        rows = new Item[idSpace + 1];
        codes = new AtomicReferenceArray<>(idSpace + 1);
        for (int g = 0; g < groups; g++) {
            groupVersions.add(new TreeMap<>());
        }
    }

    public int idSpace() {
        return rows.length - 1;
    }

    public int groups() {
        return groupVersions.size();
    }

    public Item get(long id) {
        return rows[(int) id];
    }

    /** Applies changes (each id at most once) and returns them with their before images, for {@link #undo}. */
    public List<RowChange> apply(List<RowChange> changes) {
        for (RowChange change : changes) {
            set(change.id(), change.after());
        }
        return changes;
    }

    /** Reverts {@link #apply} of changes that turned out not to be committed. */
    public void undo(List<RowChange> applied) {
        for (int i = applied.size() - 1; i >= 0; i--) {
            set(applied.get(i).id(), applied.get(i).before());
        }
    }

    private void set(long id, Item after) {
        Item before = rows[(int) id];
        if (before != null) {
            idByCode.remove(before.code());
            groupVersions.get((int) before.grp()).remove(id);
            count--;
            versionSum -= before.version();
            if (after == null || !after.code().equals(before.code())) {
                retire(before.code());
            }
        }
        rows[(int) id] = after;
        if (after != null) {
            idByCode.put(after.code(), id);
            groupVersions.get((int) after.grp()).put(id, after.version());
            count++;
            versionSum += after.version();
        }
        codes.set((int) id, after == null ? null : after.code());
    }

    private void retire(String code) {
        retiredCodes.set(retiredNext, code);
        retiredNext = (retiredNext + 1) % retiredCodes.length();
    }

    /** The token of the row holding {@code code} now. */
    public long codeToken(String code) {
        Long id = idByCode.get(code);
        return id == null ? Tokens.ABSENT : rows[id.intValue()].version();
    }

    /** The token of a group's list now. */
    public long groupToken(long grp) {
        long h = Tokens.emptyGroup();
        for (Map.Entry<Long, Long> member : groupVersions.get((int) grp).entrySet()) {
            h = Tokens.groupStep(h, member.getKey(), member.getValue());
        }
        return h;
    }

    /** The token of the aggregate now. */
    public long statsToken() {
        return Tokens.ofStats(count, versionSum);
    }

    /** The codes and groups whose cached values change with {@code changes}. */
    public static Set<String> affectedCodes(List<RowChange> changes) {
        Set<String> affected = new LinkedHashSet<>();
        for (RowChange change : changes) {
            if (change.before() != null) {
                affected.add(change.before().code());
            }
            if (change.after() != null) {
                affected.add(change.after().code());
            }
        }
        return affected;
    }

    public static Set<Long> affectedGroups(List<RowChange> changes) {
        Set<Long> affected = new LinkedHashSet<>();
        for (RowChange change : changes) {
            if (change.before() != null) {
                affected.add(change.before().grp());
            }
            if (change.after() != null) {
                affected.add(change.after().grp());
            }
        }
        return affected;
    }

    /** A random id that has a row, or -1 if none was found quickly. */
    public long randomPresent(SplittableRandom random, int from, int to) {
        for (int attempt = 0; attempt < 64; attempt++) {
            int id = random.nextInt(from, to + 1);
            if (rows[id] != null) {
                return id;
            }
        }
        return -1;
    }

    /** A random id without a row, or -1 if none was found quickly. */
    public long randomAbsent(SplittableRandom random) {
        for (int attempt = 0; attempt < 64; attempt++) {
            int id = random.nextInt(1, rows.length);
            if (rows[id] == null) {
                return id;
            }
        }
        return -1;
    }

    /** Every row, in id order. */
    public List<Item> presentRows(long fromId, long toId) {
        List<Item> present = new ArrayList<>();
        for (long id = Math.max(1, fromId); id <= Math.min(toId, rows.length - 1); id++) {
            if (rows[(int) id] != null) {
                present.add(rows[(int) id]);
            }
        }
        return present;
    }

    /** The code row {@code id} has now, or {@code null} (safe to call from reader threads). */
    public String currentCode(long id) {
        return codes.get((int) id);
    }

    /** A code that some row had before (safe to call from reader threads), or {@code null}. */
    public String retiredCode(SplittableRandom random) {
        return retiredCodes.get(random.nextInt(retiredCodes.length()));
    }
}
