package dev.cdccache.packaging;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Enumeration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The settings a Spring Boot runnable jar knows: every property in the configuration metadata of its own
 * classes and of every library it carries (what Spring Boot's configuration processor generates, and what IDEs
 * complete), plus every key of its own {@code application*.yml}. A setting given by environment variable must
 * name one of them, or sit under a property of Map type.
 */
final class ApplicationJar {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Path jar;
    private final Set<String> properties = new TreeSet<>();
    private final Set<String> mapProperties = new TreeSet<>();
    private final Map<String, String> defaults = new java.util.HashMap<>();

    private ApplicationJar(Path jar) {
        this.jar = jar;
    }

    static ApplicationJar read(Path jar) {
        ApplicationJar application = new ApplicationJar(jar);
        try (JarFile file = new JarFile(jar.toFile())) {
            Enumeration<? extends ZipEntry> entries = file.entries();
            while (entries.hasMoreElements()) {
                ZipEntry entry = entries.nextElement();
                try (InputStream in = file.getInputStream(entry)) {
                    application.scan(entry.getName(), in, true);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + jar, e);
        }
        return application;
    }

    /** Whether Spring Boot binds this environment variable to a property the application knows. */
    boolean knowsEnvironmentVariable(String variable) {
        for (String property : properties) {
            if (variable.equals(canonical(property)) || variable.equals(legacy(property))) {
                return true;
            }
        }
        for (String map : mapProperties) {
            if (variable.startsWith(canonical(map) + "_") || variable.startsWith(legacy(map) + "_")) {
                return true;
            }
        }
        return false;
    }

    /** Whether a command-line property ({@code --name=value}) is one the application knows. */
    boolean knowsProperty(String name) {
        return properties.contains(name) || mapProperties.stream().anyMatch(m -> name.startsWith(m + "."));
    }

    /** The default value the metadata declares for a property, or null. */
    String defaultValue(String property) {
        return defaults.get(property);
    }

    Path jar() {
        return jar;
    }

    /** Spring Boot's form: dots to underscores, dashes removed, upper case ({@code SPRING_DATASOURCE_URL}). */
    static String canonical(String property) {
        return property.replace(".", "_").replace("-", "").toUpperCase(Locale.ROOT);
    }

    /** The form with dashes as underscores, which Spring Boot binds as well ({@code CDC_INVALIDATION_BOOTSTRAP_SERVERS}). */
    static String legacy(String property) {
        return property.replace(".", "_").replace("-", "_").toUpperCase(Locale.ROOT);
    }

    private void scan(String name, InputStream in, boolean nested) throws IOException {
        if (nested && name.endsWith(".jar")) {
            try (ZipInputStream inner = new ZipInputStream(new ByteArrayInputStream(in.readAllBytes()))) {
                ZipEntry entry;
                while ((entry = inner.getNextEntry()) != null) {
                    scan(entry.getName(), inner, false);
                }
            }
        } else if (name.endsWith("META-INF/spring-configuration-metadata.json")
                || name.endsWith("META-INF/additional-spring-configuration-metadata.json")) {
            JsonNode metadata = JSON.readTree(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            for (JsonNode property : metadata.path("properties")) {
                String propertyName = property.path("name").asString();
                properties.add(propertyName);
                if (property.path("type").asString("").startsWith("java.util.Map")) {
                    mapProperties.add(propertyName);
                }
                JsonNode defaultValue = property.path("defaultValue");
                if (defaultValue.isValueNode()) {
                    defaults.put(propertyName, defaultValue.asString());
                }
            }
        } else if (name.startsWith("BOOT-INF/classes/application") && (name.endsWith(".yml") || name.endsWith(".yaml"))) {
            for (Object document : new Yaml().loadAll(new String(in.readAllBytes(), StandardCharsets.UTF_8))) {
                flatten("", document);
            }
        }
    }

    private void flatten(String prefix, Object value) {
        if (value instanceof Map<?, ?> map) {
            map.forEach((k, v) -> flatten(prefix.isEmpty() ? String.valueOf(k) : prefix + "." + k, v));
        } else if (!prefix.isEmpty()) {
            properties.add(prefix);
        }
    }
}
