package dev.cdccache.bench.lag;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** {@code --name value} command-line options of the drivers, with typed getters and defaults. */
final class DriverArguments {

    private final Map<String, String> options = new HashMap<>();
    private final List<String> positional = new ArrayList<>();

    DriverArguments(String[] args) {
        for (int i = 0; i < args.length; i++) {
            if (args[i].startsWith("--")) {
                String name = args[i].substring(2);
                int eq = name.indexOf('=');
                if (eq >= 0) {
                    options.put(name.substring(0, eq), name.substring(eq + 1));
                } else if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
                    options.put(name, args[++i]);
                } else {
                    options.put(name, "true");
                }
            } else {
                positional.add(args[i]);
            }
        }
    }

    List<String> positional() {
        return positional;
    }

    String get(String name) {
        String value = options.get(name);
        if (value == null) {
            throw new IllegalArgumentException("missing option --" + name);
        }
        return value;
    }

    String get(String name, String fallback) {
        return options.getOrDefault(name, fallback);
    }

    int getInt(String name, int fallback) {
        return options.containsKey(name) ? Integer.parseInt(options.get(name)) : fallback;
    }

    double getDouble(String name, double fallback) {
        return options.containsKey(name) ? Double.parseDouble(options.get(name)) : fallback;
    }

    List<Integer> getInts(String name, String fallback) {
        List<Integer> values = new ArrayList<>();
        for (String part : get(name, fallback).split(",")) {
            if (!part.isBlank()) {
                values.add(Integer.parseInt(part.trim()));
            }
        }
        return values;
    }
}
