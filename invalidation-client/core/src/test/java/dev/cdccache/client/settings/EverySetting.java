package dev.cdccache.client.settings;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.settings.Setting.Scope;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Every setting of the catalogue at its example value, as flat {@code cdc.invalidation.*} properties, and the check
 * that each one arrived in the configuration a front end built from them. The settings are taken from
 * {@link ClientSettings#all()}, never listed by hand, so a setting added to the catalogue is checked in every front
 * end that uses this: one that a front end does not pass on fails that front end's test.
 *
 * <p>Caches: {@code examples} takes every cache setting and, in the short form, every source setting;
 * {@code listed} takes every source setting as {@code sources[0]}. {@code evict: all} excludes key columns on the
 * same source (a rule of the model), so the example of {@link ClientSettings#EVICT} goes to caches of its own,
 * {@code evictsAll} (short form) and {@code listedEvictsAll} (listed).
 */
public final class EverySetting {

    private EverySetting() {
    }

    /**
     * The example of every setting of {@code scopes}, keyed {@code cdc.invalidation.*}, values as text.
     *
     * @param storeFile a readable file, given for the trust and key store locations (the examples name stores that
     *        exist on no test machine, and a store that does not exist is rejected)
     */
    public static Map<String, String> examples(Set<Scope> scopes, Path storeFile) {
        Map<String, String> properties = new LinkedHashMap<>();
        for (Setting<?> setting : ClientSettings.all()) {
            if (!scopes.contains(setting.scope())) {
                continue;
            }
            String example = example(setting, storeFile);
            switch (setting.scope()) {
                case CLIENT, FRONT_END -> properties.put(ClientSettings.PREFIX + setting.key()
                        + (setting.family() ? "." + example.substring(0, example.indexOf('=')) : ""),
                        setting.family() ? example.substring(example.indexOf('=') + 1) : example);
                case CACHE -> properties.put(cacheKey("examples", setting), example);
                case SOURCE -> {
                    if (setting.equals(ClientSettings.EVICT)) {
                        properties.put(cacheKey("evictsAll", ClientSettings.TABLE), ClientSettings.TABLE.example());
                        properties.put(cacheKey("evictsAll", setting), example);
                        properties.put(sourceKey("listedEvictsAll", ClientSettings.TABLE), ClientSettings.TABLE.example());
                        properties.put(sourceKey("listedEvictsAll", setting), example);
                    } else {
                        properties.put(cacheKey("examples", setting), example);
                        properties.put(sourceKey("listed", setting), example);
                    }
                }
            }
        }
        return properties;
    }

    /**
     * The settings of {@code scopes} whose example did not arrive in {@code config}, each with what arrived instead;
     * empty when every one did.
     */
    public static List<String> notApplied(InvalidationClientConfig config, Set<Scope> scopes, Path storeFile) {
        List<String> missing = new ArrayList<>();
        for (Setting<?> setting : ClientSettings.all()) {
            if (!scopes.contains(setting.scope())) {
                continue;
            }
            String example = example(setting, storeFile);
            switch (setting.scope()) {
                case CLIENT -> {
                    Object actual = setting.valueIn(config);
                    if (setting.family()) {
                        String name = example.substring(0, example.indexOf('='));
                        actual = actual instanceof Map<?, ?> members ? members.get(name) : actual;
                        example = example.substring(example.indexOf('=') + 1);
                    }
                    check(missing, setting.key(), setting.parse(example), actual);
                }
                case CACHE -> check(missing, "caches.examples." + setting.key(), setting.parse(example),
                        cache(config, "examples").map(setting::valueIn));
                case SOURCE -> {
                    boolean evict = setting.equals(ClientSettings.EVICT);
                    for (String cache : evict ? List.of("evictsAll", "listedEvictsAll") : List.of("examples", "listed")) {
                        check(missing, "caches." + cache + "." + setting.key(), setting.parse(example),
                                cache(config, cache).map(c -> c.sources().isEmpty() ? null
                                        : setting.valueIn(c.sources().get(0))));
                    }
                }
                case FRONT_END -> {
                    // no value in the configuration: each front end checks its own
                }
            }
        }
        return missing;
    }

    private static String example(Setting<?> setting, Path storeFile) {
        return Path.class.equals(setting.valueType()) ? storeFile.toString() : setting.example();
    }

    private static String cacheKey(String cache, Setting<?> setting) {
        return ClientSettings.PREFIX + "caches." + cache + "." + setting.key();
    }

    private static String sourceKey(String cache, Setting<?> setting) {
        return ClientSettings.PREFIX + "caches." + cache + ".sources[0]." + setting.key();
    }

    private static java.util.Optional<CacheDefinition> cache(InvalidationClientConfig config, String name) {
        return config.caches().stream().filter(c -> c.name().equals(name)).findFirst();
    }

    private static void check(List<String> missing, String key, Object expected, Object actual) {
        Object value = actual instanceof java.util.Optional<?> optional ? optional.orElse(null) : actual;
        if (!Objects.equals(expected, value)) {
            missing.add(key + " (expected " + expected + ", got " + value + ")");
        }
    }
}
