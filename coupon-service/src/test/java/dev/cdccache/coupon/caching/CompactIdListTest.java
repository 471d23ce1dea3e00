package dev.cdccache.coupon.caching;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The primitive place lists of mode local: the same ids as the list read, as any list of them. */
class CompactIdListTest {

    @Test
    void idsThatFitAnIntAndIdsThatDoNotAreKeptAsRead() {
        for (List<Long> read : List.of(List.of(1L, 2L, 100_000L, (long) Integer.MAX_VALUE),
                List.of(3L, (long) Integer.MAX_VALUE + 1, Long.MAX_VALUE, -1L),
                List.of((long) Integer.MIN_VALUE, 0L),
                List.of((long) Integer.MIN_VALUE - 1), List.<Long>of())) {
            CompactIdList compact = CompactIdList.of(read);
            assertThat(compact).as(read.toString()).isEqualTo(read).containsExactlyElementsOf(read);
            assertThat(compact.hashCode()).isEqualTo(read.hashCode());
            assertThat(read).isEqualTo(compact);
            assertThat(new ArrayList<>(compact)).isEqualTo(read);
            for (int i = 0; i < read.size(); i++) {
                assertThat(compact.id(i)).isEqualTo(read.get(i));
            }
        }
    }

    @Test
    void itCannotBeChanged() {
        CompactIdList compact = CompactIdList.of(List.of(1L, 2L));
        assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> compact.add(3L));
        assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> compact.set(0, 3L));
        assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> compact.remove(0));
        assertThatExceptionOfType(IndexOutOfBoundsException.class).isThrownBy(() -> compact.get(2));
    }

    @Test
    void aNullIdIsRefused() {
        List<Long> read = new ArrayList<>(List.of(1L));
        read.add(null);
        assertThatNullPointerException().isThrownBy(() -> CompactIdList.of(read));
    }
}
