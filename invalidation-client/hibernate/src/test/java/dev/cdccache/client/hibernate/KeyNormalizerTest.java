package dev.cdccache.client.hibernate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.keymapping.CompositeKey;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Hibernate's keys become the keys the client derives from change events (key-type auto). */
class KeyNormalizerTest {

    private static final KeyNormalizer.ColumnValues NONE = (key, into) -> { };

    @Test
    void integerIdsOfEveryWidthBecomeLongsAndTextStaysText() {
        KeyNormalizer integral = KeyNormalizer.of(List.of(Integer.class), NONE);
        assertThat(integral.normalize(42)).isEqualTo(42L);
        assertThat(integral.normalize((short) 42)).isEqualTo(42L);
        assertThat(integral.normalize(42L)).isEqualTo(42L);
        assertThat(integral.normalize(BigInteger.valueOf(42))).isEqualTo(42L);
        assertThat(KeyNormalizer.of(List.of(String.class), NONE).normalize("CPN-1")).isEqualTo("CPN-1");
    }

    @Test
    void severalColumnsBecomeACompositeKeyInColumnOrder() {
        record Id(int placeId, String code) {
        }
        KeyNormalizer composite = KeyNormalizer.of(List.of(Integer.class, String.class), (key, into) -> {
            into.add(((Id) key).placeId());
            into.add(((Id) key).code());
        });
        assertThat(composite.normalize(new Id(7, "A"))).isEqualTo(CompositeKey.of(7L, "A"));
    }

    @Test
    void keysOfOtherColumnTypesCannotBeMatchedWithChangeEvents() {
        assertThat(KeyNormalizer.of(List.of(UUID.class), NONE)).isNull();
        assertThat(KeyNormalizer.of(List.of(Long.class, LocalDate.class), NONE)).isNull();
        assertThat(KeyNormalizer.of(List.of(BigDecimal.class), NONE)).isNull();
    }

    @Test
    void aValueThatDoesNotFitIsNotCachedRatherThanCachedUnderAWrongKey() {
        KeyNormalizer integral = KeyNormalizer.of(List.of(BigInteger.class), NONE);
        assertThat(integral.normalize(BigInteger.TWO.pow(70))).isNull();
        assertThat(integral.normalize(null)).isNull();
    }
}
