package dev.cdccache.client.keymapping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdccache.client.KeyType;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class KeyMapperTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static JsonNode row(String json) {
        return JSON.readTree(json);
    }

    private static KeyMapper mapper(KeyType type, String... columns) {
        return new KeyMapper(List.of(columns), type, CompositeKey::of);
    }

    @Test
    void autoKeysAnIntegerColumnByLongAndATextColumnByString() throws Exception {
        assertThat(mapper(KeyType.AUTO, "id").keyOf(row("{\"id\":42,\"code\":\"A\"}"))).isEqualTo(42L);
        assertThat(mapper(KeyType.AUTO, "code").keyOf(row("{\"id\":42,\"code\":\"A\"}"))).isEqualTo("A");
        assertThat(mapper(KeyType.AUTO, "flag").keyOf(row("{\"flag\":true}"))).isEqualTo(true);
    }

    @Test
    void convertsToTheConfiguredType() throws Exception {
        assertThat(mapper(KeyType.LONG, "id").keyOf(row("{\"id\":\"42\"}"))).isEqualTo(42L);
        assertThat(mapper(KeyType.LONG, "amount").keyOf(row("{\"amount\":\"42.00\"}"))).isEqualTo(42L);
        assertThat(mapper(KeyType.INTEGER, "id").keyOf(row("{\"id\":42}"))).isEqualTo(42);
        assertThat(mapper(KeyType.STRING, "id").keyOf(row("{\"id\":42}"))).isEqualTo("42");
        assertThat(mapper(KeyType.STRING, "code").keyOf(row("{\"code\":\"x\"}"))).isEqualTo("x");
    }

    @Test
    void buildsCompositeKeysInColumnOrder() throws Exception {
        Object key = mapper(KeyType.COMPOSITE, "place_id", "code").keyOf(row("{\"code\":\"A\",\"place_id\":7}"));
        assertThat(key).isEqualTo(CompositeKey.of(7L, "A"));
        assertThat(mapper(KeyType.AUTO, "place_id", "code").keyOf(row("{\"code\":\"A\",\"place_id\":7}")))
                .isEqualTo(CompositeKey.of(7L, "A"));
        assertThat(CompositeKey.of(7L, "A")).isNotEqualTo(CompositeKey.of("A", 7L));
    }

    @Test
    void rejectsRowsWhoseKeyCannotBeDerived() {
        assertThatThrownBy(() -> mapper(KeyType.AUTO, "id").keyOf(row("{\"other\":1}")))
                .isInstanceOf(KeyMappingException.class).hasMessageContaining("missing");
        assertThatThrownBy(() -> mapper(KeyType.AUTO, "id").keyOf(row("{\"id\":null}")))
                .isInstanceOf(KeyMappingException.class).hasMessageContaining("null");
        assertThatThrownBy(() -> mapper(KeyType.AUTO, "id").keyOf(row("{\"id\":{\"nested\":1}}")))
                .isInstanceOf(KeyMappingException.class).hasMessageContaining("object");
        assertThatThrownBy(() -> mapper(KeyType.LONG, "id").keyOf(row("{\"id\":\"abc\"}")))
                .isInstanceOf(KeyMappingException.class).hasMessageContaining("not an integer");
        assertThatThrownBy(() -> mapper(KeyType.LONG, "id").keyOf(row("{\"id\":1.5}")))
                .isInstanceOf(KeyMappingException.class);
        assertThatThrownBy(() -> mapper(KeyType.INTEGER, "id").keyOf(row("{\"id\":9999999999}")))
                .isInstanceOf(KeyMappingException.class).hasMessageContaining("int range");
        assertThatThrownBy(() -> mapper(KeyType.AUTO, "id").keyOf(row("{\"id\":99999999999999999999999}")))
                .isInstanceOf(KeyMappingException.class);
    }
}
