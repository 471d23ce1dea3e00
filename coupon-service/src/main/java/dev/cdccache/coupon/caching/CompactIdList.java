package dev.cdccache.coupon.caching;

import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;

/**
 * An unmodifiable list of ids kept as primitives, as mode {@code local}'s {@code placeCouponIds} cache holds a
 * place's coupon ids: an {@code int[]} while every id fits in an int (4 bytes an id, as the references of a list of
 * boxes take), else a {@code long[]}, instead of a box of 24 bytes per id besides. {@link #get} boxes on each call;
 * the callers iterate the list once per request to look the coupons up. Equal to any list of the same ids in the
 * same order ({@link AbstractList#equals}).
 */
abstract sealed class CompactIdList extends AbstractList<Long> implements RandomAccess {

    private static final CompactIdList EMPTY = new Ints(new int[0]);

    /** The ids of {@code ids} (none null), in their order. */
    static CompactIdList of(List<Long> ids) {
        int size = ids.size();
        if (size == 0) {
            return EMPTY;
        }
        long[] values = new long[size];
        boolean fitInts = true;
        for (int i = 0; i < size; i++) {
            long id = ids.get(i);
            values[i] = id;
            fitInts &= id == (int) id;
        }
        if (!fitInts) {
            return new Longs(values);
        }
        int[] narrow = new int[size];
        for (int i = 0; i < size; i++) {
            narrow[i] = (int) values[i];
        }
        return new Ints(narrow);
    }

    /** The id at {@code index}, unboxed. */
    abstract long id(int index);

    @Override
    public Long get(int index) {
        return id(index);
    }

    private static final class Ints extends CompactIdList {
        private final int[] ids;

        Ints(int[] ids) {
            this.ids = ids;
        }

        @Override
        long id(int index) {
            return ids[index];
        }

        @Override
        public int size() {
            return ids.length;
        }
    }

    private static final class Longs extends CompactIdList {
        private final long[] ids;

        Longs(long[] ids) {
            this.ids = ids;
        }

        @Override
        long id(int index) {
            return ids[index];
        }

        @Override
        public int size() {
            return ids.length;
        }
    }
}
