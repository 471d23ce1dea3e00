package dev.cdccache.packaging;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The few instructions of a Dockerfile the checks need: ARG defaults, COPY, ENV and ENTRYPOINT. */
record Dockerfile(Path file, Map<String, String> args, List<String[]> copies, Map<String, String> env, List<String> entrypoint) {

    private static final Pattern ENV = Pattern.compile("^ENV\\s+(\\w+)=\"?(.*?)\"?$");

    static Dockerfile in(Path context) {
        Path file = context.resolve("Dockerfile");
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException("no Dockerfile in " + context, e);
        }
        Map<String, String> args = new LinkedHashMap<>();
        List<String[]> copies = new ArrayList<>();
        Map<String, String> env = new LinkedHashMap<>();
        List<String> entrypoint = new ArrayList<>();
        for (String line : lines) {
            String l = line.trim();
            if (l.startsWith("ARG ") && l.contains("=")) {
                String[] kv = l.substring(4).trim().split("=", 2);
                args.put(kv[0], kv[1]);
            } else if (l.startsWith("COPY ")) {
                String[] parts = l.substring(5).trim().split("\\s+");
                copies.add(new String[] {expand(parts[0], args), parts[1]});
            } else if (l.startsWith("ENTRYPOINT ")) {
                Matcher m = Pattern.compile("\"([^\"]*)\"").matcher(l);
                while (m.find()) {
                    entrypoint.add(m.group(1));
                }
            } else {
                Matcher m = ENV.matcher(l);
                if (m.matches()) {
                    env.put(m.group(1), m.group(2));
                }
            }
        }
        return new Dockerfile(file, args, copies, env, entrypoint);
    }

    private static String expand(String text, Map<String, String> args) {
        String result = text;
        for (Map.Entry<String, String> arg : args.entrySet()) {
            result = result.replace("${" + arg.getKey() + "}", arg.getValue()).replace("$" + arg.getKey(), arg.getValue());
        }
        return result;
    }

    /** The jar the image runs: the source of the COPY whose destination the entry point starts. */
    Path jar() {
        String started = entrypoint.get(entrypoint.size() - 1);
        for (String[] copy : copies) {
            if (copy[1].equals(started)) {
                return file.getParent().resolve(copy[0]).normalize();
            }
        }
        throw new AssertionError(file + ": the entry point runs " + started + ", which no COPY provides");
    }
}
