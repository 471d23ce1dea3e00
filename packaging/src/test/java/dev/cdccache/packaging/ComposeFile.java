package dev.cdccache.packaging;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * infra/docker-compose.yml as Docker Compose reads it: SnakeYAML resolves the anchors and {@code <<} merge keys
 * the file uses (YAML 1.1, as Compose does).
 */
final class ComposeFile {

    private final Path file;
    private final Map<String, Object> services;

    @SuppressWarnings("unchecked")
    private ComposeFile(Path file) {
        this.file = file;
        try {
            Map<String, Object> root = new Yaml(new LoaderOptions()).load(Files.readString(file));
            this.services = (Map<String, Object>) root.get("services");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static ComposeFile read() {
        return new ComposeFile(Repository.composeFile());
    }

    List<String> serviceNames() {
        return new ArrayList<>(services.keySet());
    }

    @SuppressWarnings("unchecked")
    Map<String, Object> service(String name) {
        Map<String, Object> service = (Map<String, Object>) services.get(name);
        if (service == null) {
            throw new AssertionError(file + " has no service " + name);
        }
        return service;
    }

    /** The directory a service's image is built from, or null for an image pulled as is. */
    Path buildContext(String name) {
        Object build = service(name).get("build");
        if (build == null) {
            return null;
        }
        String context = build instanceof Map<?, ?> map ? String.valueOf(map.get("context")) : String.valueOf(build);
        return file.getParent().resolve(context).normalize();
    }

    /** The services built from this repository (each one a Dockerfile and a jar). */
    List<String> builtServices() {
        return serviceNames().stream().filter(s -> buildContext(s) != null).toList();
    }

    /** The environment, values as strings (Compose accepts numbers and booleans). */
    Map<String, String> environment(String name) {
        Map<String, String> env = new LinkedHashMap<>();
        Object value = service(name).get("environment");
        if (value instanceof Map<?, ?> map) {
            map.forEach((k, v) -> env.put(String.valueOf(k), String.valueOf(v)));
        } else if (value instanceof List<?> list) {
            list.forEach(item -> {
                String[] kv = String.valueOf(item).split("=", 2);
                env.put(kv[0], kv.length > 1 ? kv[1] : "");
            });
        }
        return env;
    }

    /** The command's arguments (after the image's entry point). */
    List<String> command(String name) {
        Object value = service(name).get("command");
        List<String> args = new ArrayList<>();
        if (value instanceof List<?> list) {
            list.forEach(a -> args.add(String.valueOf(a)));
        } else if (value != null) {
            args.addAll(List.of(String.valueOf(value).trim().split("\\s+")));
        }
        return args;
    }

    /** Published ports: host port -> container port. */
    Map<Integer, Integer> ports(String name) {
        Map<Integer, Integer> ports = new LinkedHashMap<>();
        Object value = service(name).get("ports");
        if (value instanceof List<?> list) {
            for (Object port : list) {
                String[] parts = String.valueOf(port).split(":");
                ports.put(Integer.parseInt(parts[parts.length - 2]), Integer.parseInt(parts[parts.length - 1]));
            }
        }
        return ports;
    }
}
