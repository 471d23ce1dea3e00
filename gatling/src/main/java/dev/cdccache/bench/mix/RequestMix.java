package dev.cdccache.bench.mix;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * What a generic load test sends, read from a small YAML file: weighted requests (method, path template,
 * optional body, headers and expected statuses) whose {@code #{name}} placeholders are filled per request from
 * random integer ranges or from random rows of CSV files.
 *
 * <pre>
 * headers:                  # sent with every request; ${NAME} is taken from the environment when the file is read
 *   Authorization: "Bearer ${API_TOKEN}"
 * requests:
 *   - { name: single coupon, weight: 44, path: "/coupons/#{couponId}" }
 *   - { name: bulk coupons, weight: 21, path: "/coupons?ids=#{couponIds}" }
 *   - { name: issue, weight: 1.5, method: POST, path: "/coupons/#{couponId}/issue",
 *       body: '{"userId": #{userId}}', status: [201, 409], headers: { X-User: "#{userId}" } }
 * variables:
 *   couponId:  { range: [1, 100000] }                 # a random integer, bounds included
 *   couponIds: { range: [1, 100000], count: [50, 400] } # 50 to 400 of them, comma-separated
 *   code:      { range: [1, 100000], format: "CPN%08d" } # formatted (java.util.Formatter)
 * csv: [hot-coupons.csv]   # each request also takes a random row; its columns are placeholders too
 * </pre>
 *
 * CSV paths are relative to the YAML file. Without {@code status} any 2xx (or 304) passes. A request's
 * {@code headers} are added to the file's (a header of the same name replaces the file's). Header values may
 * hold {@code #{placeholders}} and {@code ${NAME}} references to environment variables, so that a secret
 * such as a token need not be written into the file. Everything is checked when the file is read, with a
 * message naming the file and the entry; a key the format does not know is an error, not ignored, so a
 * misspelt {@code header:} or {@code staus:} cannot silently change what is sent or checked.
 */
public record RequestMix(Path file, List<Request> requests, List<Variable> variables, List<CsvRows> csv) {

    private static final Pattern PLACEHOLDER = Pattern.compile("#\\{([A-Za-z_][A-Za-z0-9_]*)}");
    private static final Pattern ENVIRONMENT = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)}");
    private static final Set<String> METHODS = Set.of("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS");
    /** The keys of the file, of a request entry and of a variable, in the order the messages list them. */
    static final List<String> FILE_KEYS = List.of("requests", "variables", "csv", "headers");
    static final List<String> REQUEST_KEYS = List.of("name", "weight", "method", "path", "body", "status", "headers");
    static final List<String> VARIABLE_KEYS = List.of("range", "count", "format");

    /**
     * One kind of request, sent with probability {@code weight} / sum of weights, with {@code headers} (the
     * file's and its own, environment references resolved, placeholders left for Gatling to fill).
     */
    public record Request(String name, String method, String path, String body, double weight, List<Integer> statuses,
            Map<String, String> headers) {
    }

    /** A placeholder filled with a random integer of {@code [min, max]}, or a comma-separated list of them. */
    public record Variable(String name, long min, long max, int countMin, int countMax, String format) {

        /** Whether the value is a list ({@code count} given). */
        public boolean isList() {
            return countMax > 0;
        }
    }

    /**
     * A CSV file with a header line: each request takes a random row (Gatling's {@code csv(...).random()}
     * feeder reads the rows), whose columns become placeholders.
     */
    public record CsvRows(Path file, List<String> columns) {
    }

    /** Reads and checks {@code file}; {@code ${NAME}} in header values is taken from the environment. */
    public static RequestMix load(Path file) {
        return load(file, System::getenv);
    }

    /**
     * Reads and checks {@code file}, with {@code environment} answering {@code ${NAME}} references in header
     * values (null: not set, an error).
     */
    public static RequestMix load(Path file, UnaryOperator<String> environment) {
        JsonNode root;
        try {
            root = YAMLMapper.builder().build().readTree(Files.readString(file));
        } catch (IOException | JacksonException e) {
            throw new IllegalArgumentException("cannot read the request file " + file + ": " + e.getMessage(), e);
        }
        Problems problems = new Problems(file);
        if (root == null || !root.isObject()) {
            problems.add("a map with the keys " + FILE_KEYS + " is required");
            problems.throwIfAny();
        }
        unknownKeys(root, "", FILE_KEYS, problems);
        List<Variable> variables = variables(root.path("variables"), problems);
        List<CsvRows> csv = csvFiles(root.path("csv"), file, problems);
        Map<String, String> fileHeaders = headers(root.path("headers"), "headers", environment, problems);
        List<Request> requests = requests(root.path("requests"), fileHeaders, environment, problems);
        problems.throwIfAny();

        Set<String> defined = new LinkedHashSet<>();
        variables.forEach(v -> defined.add(v.name()));
        csv.forEach(c -> defined.addAll(c.columns()));
        for (int i = 0; i < requests.size(); i++) {
            Request r = requests.get(i);
            List<String> texts = new ArrayList<>(List.of(r.path()));
            if (r.body() != null) {
                texts.add(r.body());
            }
            texts.addAll(r.headers().values());
            for (String text : texts) {
                Matcher m = PLACEHOLDER.matcher(text);
                while (m.find()) {
                    if (!defined.contains(m.group(1))) {
                        problems.add("requests[" + i + "]: #{" + m.group(1) + "} is neither a variable nor a CSV column"
                                + " (defined: " + defined + ")");
                    }
                }
            }
        }
        problems.throwIfAny();
        return new RequestMix(file, requests, variables, csv);
    }

    /**
     * The requests' weights as percentages that add up to exactly 100 (what Gatling's random switch takes),
     * in the order of {@link #requests()}.
     */
    public List<Double> percentages() {
        double total = requests.stream().mapToDouble(Request::weight).sum();
        List<Double> percentages = new ArrayList<>();
        double sum = 0;
        for (int i = 0; i < requests.size(); i++) {
            double p = i == requests.size() - 1
                    ? Math.max(0, 100 - sum)
                    : Math.round(requests.get(i).weight() / total * 100 * 10_000) / 10_000.0;
            percentages.add(p);
            sum += p;
        }
        return percentages;
    }

    private static List<Request> requests(JsonNode list, Map<String, String> fileHeaders,
            UnaryOperator<String> environment, Problems problems) {
        List<Request> requests = new ArrayList<>();
        if (!list.isArray() || list.isEmpty()) {
            problems.add("requests: a list of at least one request is required");
            return requests;
        }
        for (int i = 0; i < list.size(); i++) {
            JsonNode r = list.get(i);
            String where = "requests[" + i + "]";
            if (!r.isObject()) {
                problems.add(where + ": a map with the keys " + REQUEST_KEYS + " is required, was " + r);
                continue;
            }
            unknownKeys(r, where + ".", REQUEST_KEYS, problems);
            String method = r.path("method").asString("GET").toUpperCase(Locale.ROOT);
            String path = r.path("path").asString("");
            double weight = r.path("weight").isNumber() ? r.path("weight").asDouble() : -1;
            if (!METHODS.contains(method)) {
                problems.add(where + ".method: one of " + METHODS + ", was " + method);
            }
            if (!path.startsWith("/")) {
                problems.add(where + ".path: a path starting with '/' (the base URL comes from -DbaseUrls), was '" + path + "'");
            }
            if (!(weight > 0)) {
                problems.add(where + ".weight: a positive number is required, was " + r.path("weight"));
            }
            List<Integer> statuses = new ArrayList<>();
            JsonNode status = r.path("status");
            if (status.isNumber()) {
                statuses.add(status.asInt());
            } else if (status.isArray()) {
                status.forEach(s -> statuses.add(s.asInt()));
            } else if (!status.isMissingNode()) {
                problems.add(where + ".status: a status code or a list of them, was " + status);
            }
            JsonNode body = r.path("body");
            String name = r.path("name").asString(method + " " + path);
            Map<String, String> headers = new LinkedHashMap<>(fileHeaders);
            headers.putAll(headers(r.path("headers"), where + ".headers", environment, problems));
            requests.add(new Request(name, method, path, body.isMissingNode() || body.isNull() ? null : body.asString(),
                    weight, List.copyOf(statuses), Collections.unmodifiableMap(headers)));
        }
        return requests;
    }

    private static List<Variable> variables(JsonNode map, Problems problems) {
        List<Variable> variables = new ArrayList<>();
        if (map.isMissingNode()) {
            return variables;
        }
        if (!map.isObject()) {
            problems.add("variables: a map of name: { range: [min, max] } is required, was " + map);
            return variables;
        }
        for (Map.Entry<String, JsonNode> e : map.properties()) {
            String where = "variables." + e.getKey();
            JsonNode v = e.getValue();
            if (!v.isObject()) {
                problems.add(where + ": a map with the keys " + VARIABLE_KEYS + " is required, was " + v);
                continue;
            }
            unknownKeys(v, where + ".", VARIABLE_KEYS, problems);
            long[] range = pair(v.path("range"), where + ".range", problems);
            long[] count = v.has("count") ? pair(v.path("count"), where + ".count", problems) : new long[] {0, 0};
            if (range == null || count == null) {
                continue;
            }
            if (v.has("count") && count[0] < 1) {
                problems.add(where + ".count: at least 1, was " + count[0]);
                continue;
            }
            String format = v.path("format").isMissingNode() ? null : v.path("format").asString();
            if (format != null) {
                try {
                    String.format(Locale.ROOT, format, range[0]);
                } catch (RuntimeException bad) {
                    problems.add(where + ".format: not a format for one integer (e.g. \"CPN%08d\"): " + bad.getMessage());
                    continue;
                }
            }
            variables.add(new Variable(e.getKey(), range[0], range[1], (int) count[0], (int) count[1], format));
        }
        return variables;
    }

    /**
     * Header names and values of a {@code headers:} map, {@code ${NAME}} resolved from the environment; an
     * empty map when there is none.
     */
    private static Map<String, String> headers(JsonNode map, String where, UnaryOperator<String> environment,
            Problems problems) {
        Map<String, String> headers = new LinkedHashMap<>();
        if (map.isMissingNode()) {
            return headers;
        }
        if (!map.isObject()) {
            problems.add(where + ": a map of header name: value is required, was " + map);
            return headers;
        }
        for (Map.Entry<String, JsonNode> e : map.properties()) {
            JsonNode value = e.getValue();
            if (!value.isValueNode() || value.isNull()) {
                problems.add(where + "." + e.getKey() + ": a text value is required, was " + value);
                continue;
            }
            Matcher m = ENVIRONMENT.matcher(value.asString());
            StringBuilder resolved = new StringBuilder();
            while (m.find()) {
                String set = environment.apply(m.group(1));
                if (set == null) {
                    problems.add(where + "." + e.getKey() + ": environment variable " + m.group(1) + " is not set");
                    set = "";
                }
                m.appendReplacement(resolved, Matcher.quoteReplacement(set));
            }
            m.appendTail(resolved);
            headers.put(e.getKey(), resolved.toString());
        }
        return headers;
    }

    /** Records every key of {@code node} that is not one of {@code known}. */
    private static void unknownKeys(JsonNode node, String where, List<String> known, Problems problems) {
        for (String key : node.propertyNames()) {
            if (!known.contains(key)) {
                problems.add(where + key + ": unknown key; the known keys are " + known);
            }
        }
    }

    /** {@code [min, max]} with min <= max, or null after recording the problem. */
    private static long[] pair(JsonNode node, String where, Problems problems) {
        if (!node.isArray() || node.size() != 2 || !node.get(0).isIntegralNumber() || !node.get(1).isIntegralNumber()
                || node.get(0).asLong() > node.get(1).asLong()) {
            problems.add(where + ": [min, max], two integers with min <= max, was " + node);
            return null;
        }
        return new long[] {node.get(0).asLong(), node.get(1).asLong()};
    }

    private static List<CsvRows> csvFiles(JsonNode node, Path yaml, Problems problems) {
        List<CsvRows> files = new ArrayList<>();
        List<String> names = new ArrayList<>();
        if (node.isString()) {
            names.add(node.asString());
        } else if (node.isArray()) {
            node.forEach(n -> names.add(n.asString()));
        } else if (!node.isMissingNode()) {
            problems.add("csv: a file name or a list of them, was " + node);
        }
        for (String name : names) {
            Path path = yaml.toAbsolutePath().getParent().resolve(name).normalize();
            try {
                List<String> lines = Files.readAllLines(path).stream().filter(l -> !l.isBlank()).limit(2).toList();
                if (lines.size() < 2) {
                    problems.add("csv " + name + ": a header line and at least one row are required in " + path);
                    continue;
                }
                List<String> columns = new ArrayList<>();
                for (String column : lines.get(0).split(",")) {
                    columns.add(column.trim().replaceAll("^\"|\"$", ""));
                }
                files.add(new CsvRows(path, List.copyOf(columns)));
            } catch (IOException e) {
                problems.add("csv " + name + ": cannot read " + path + ": " + e);
            }
        }
        return files;
    }

    /** Collects every problem of a file, so one run shows them all. */
    private static final class Problems {
        private final Path file;
        private final List<String> messages = new ArrayList<>();

        Problems(Path file) {
            this.file = file;
        }

        void add(String message) {
            messages.add(message);
        }

        void throwIfAny() {
            if (!messages.isEmpty()) {
                throw new IllegalArgumentException("request file " + file + ":\n  " + String.join("\n  ", messages));
            }
        }
    }
}
