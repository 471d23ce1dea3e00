package dev.cdccache.client.settings;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.settings.Setting.Scope;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * docs/client.md documents every setting of the catalogue, once, with the catalogue's default: the reference a user
 * reads cannot fall behind the settings the client has.
 */
class SettingsDocumentationTest {

    private static final Path CLIENT_MD = Path.of("../../docs/client.md");

    @Test
    void everySettingIsDocumentedOnceWithItsDefault() throws IOException {
        Map<String, String> documented = documentedDefaults();
        List<String> problems = new ArrayList<>();
        for (Setting<?> setting : ClientSettings.all()) {
            String key = switch (setting.scope()) {
                case CLIENT, FRONT_END -> setting.family() ? setting.key() + ".*" : setting.key();
                case CACHE, SOURCE -> "caches.<name>." + setting.key();
            };
            if (!documented.containsKey(key)) {
                problems.add(key + " is not documented");
            } else if (setting.defaultText() != null && !setting.family()
                    && !normalized(documented.get(key)).equals(normalized(setting.defaultText()))) {
                problems.add(key + " is documented with the default " + documented.get(key) + ", but it is "
                        + setting.defaultText());
            }
        }
        assertThat(problems).isEmpty();
        assertThat(ClientSettings.of(Scope.CLIENT)).isNotEmpty();
    }

    /** The first two cells of the rows of the "Settings" and "Security settings" tables, keys expanded. */
    private static Map<String, String> documentedDefaults() throws IOException {
        Map<String, String> defaults = new LinkedHashMap<>();
        String section = null;
        for (String line : Files.readAllLines(CLIENT_MD)) {
            if (line.startsWith("## ")) {
                section = line.startsWith("## Settings") ? "" : line.startsWith("## Security settings")
                        ? "kafka.security." : null;
            }
            if (section == null || !line.startsWith("| `")) {
                continue;
            }
            String[] cells = line.split("\\|");
            String defaultCell = cells[2].trim();
            for (String key : keys(cells[1].trim())) {
                String full = section + key;
                if (defaults.put(full, defaultCell) != null) {
                    throw new AssertionError(full + " is documented twice");
                }
            }
        }
        return defaults;
    }

    /** {@code `ssl.keystore-location` / `-password`, `ssl.key-password`}: three keys. */
    private static List<String> keys(String cell) {
        List<String> keys = new ArrayList<>();
        for (String group : cell.split(", ")) {
            String base = null;
            for (String part : group.split(" / ")) {
                String key = part.replace("`", "").trim();
                if (key.startsWith("-") && base != null) {
                    key = base.substring(0, base.lastIndexOf('-')) + key;
                }
                base = key;
                keys.add(key);
            }
        }
        return keys;
    }

    private static String normalized(String text) {
        return text.replace("`", "").replace("(off)", "").replace("-", "").replace("_", "").trim()
                .toLowerCase(Locale.ROOT);
    }
}
