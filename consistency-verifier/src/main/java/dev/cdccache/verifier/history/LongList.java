package dev.cdccache.verifier.history;

import java.util.Arrays;

/** A growable list of longs, synchronized: histories hold millions of them, boxed values would not fit. */
public final class LongList {

    private long[] values = new long[4];
    private int size;

    public synchronized void add(long value) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = value;
    }

    public synchronized void add(long first, long second) {
        add(first);
        add(second);
    }

    public synchronized int size() {
        return size;
    }

    public synchronized long get(int index) {
        if (index >= size) {
            throw new IndexOutOfBoundsException(index);
        }
        return values[index];
    }

    /** A copy of the values. */
    public synchronized long[] toArray() {
        return Arrays.copyOf(values, size);
    }
}
