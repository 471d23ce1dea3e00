package dev.cdccache.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SettingSuggestionTest {

    private static final List<String> SETTINGS = List.of("max-staleness", "topic-prefix", "bootstrap-servers");

    @Test
    void aNearMissSuggestsTheSettingItMeant() {
        assertThat(SettingSuggestion.closest("max-stalenes", SETTINGS)).contains("max-staleness");
        assertThat(SettingSuggestion.closest("topic-prefx", SETTINGS)).contains("topic-prefix");
        assertThat(SettingSuggestion.closest("bootstrap-server", SETTINGS)).contains("bootstrap-servers");
    }

    @Test
    void aDifferentNameSuggestsNothing() {
        assertThat(SettingSuggestion.closest("caches", SETTINGS)).isEmpty();
        assertThat(SettingSuggestion.closest("require-topics", SETTINGS)).isEmpty();
    }

    @Test
    void editDistanceCountsInsertionsDeletionsAndSubstitutions() {
        assertThat(SettingSuggestion.editDistance("kitten", "sitting")).isEqualTo(3);
        assertThat(SettingSuggestion.editDistance("", "abc")).isEqualTo(3);
        assertThat(SettingSuggestion.editDistance("same", "same")).isZero();
    }
}
