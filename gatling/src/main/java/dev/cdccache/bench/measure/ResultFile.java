package dev.cdccache.bench.measure;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * A flat {@code key=value} file of figures: what simulations, drivers and the run scripts write and the
 * report reads. Flat properties keep every producer (Java, shell) able to add figures without a shared
 * schema library, and the files stay readable by eye next to the Gatling reports. Not thread-safe.
 */
public final class ResultFile {

    private final Map<String, String> values = new TreeMap<>();

    /** An empty file. */
    public ResultFile() {
    }

    /** Reads {@code path}; an absent file reads as empty (the report then says "not measured"). */
    public static ResultFile read(Path path) {
        ResultFile file = new ResultFile();
        if (!Files.isRegularFile(path)) {
            return file;
        }
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
            properties.load(reader);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + path, e);
        }
        properties.forEach((k, v) -> file.values.put(k.toString(), v.toString().trim()));
        return file;
    }

    public ResultFile put(String key, Object value) {
        values.put(key, String.valueOf(value));
        return this;
    }

    /** Adds every entry of {@code other}, overwriting equal keys. */
    public ResultFile putAll(ResultFile other) {
        values.putAll(other.values);
        return this;
    }

    public boolean has(String key) {
        return values.containsKey(key);
    }

    public boolean isEmpty() {
        return values.isEmpty();
    }

    public String get(String key) {
        return values.get(key);
    }

    public String get(String key, String fallback) {
        return values.getOrDefault(key, fallback);
    }

    public long getLong(String key) {
        String value = values.get(key);
        if (value == null) {
            throw new IllegalArgumentException("no figure '" + key + "'");
        }
        return Math.round(Double.parseDouble(value));
    }

    public long getLong(String key, long fallback) {
        return has(key) ? getLong(key) : fallback;
    }

    public double getDouble(String key) {
        String value = values.get(key);
        if (value == null) {
            throw new IllegalArgumentException("no figure '" + key + "'");
        }
        return Double.parseDouble(value);
    }

    public double getDouble(String key, double fallback) {
        return has(key) ? getDouble(key) : fallback;
    }

    /** All entries, sorted by key. */
    public Map<String, String> asMap() {
        return java.util.Collections.unmodifiableMap(values);
    }

    /** Writes the file (sorted keys), creating parent directories. */
    public void write(Path path) {
        try {
            Path parent = path.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            try (Writer writer = Files.newBufferedWriter(path, StandardCharsets.UTF_8)) {
                for (Map.Entry<String, String> e : values.entrySet()) {
                    writer.write(e.getKey() + "=" + e.getValue().replace("\\", "\\\\").replace("\n", "\\n") + "\n");
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot write " + path, e);
        }
    }
}
