package dev.cdccache.packaging;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The operations files of the repository (ops/): the Prometheus alert rules and the Grafana dashboard, and the
 * PromQL expressions in them reduced to the metric selectors they use. Whatever metric a rule or panel names
 * is found here without a list to maintain, so a metric added to the dashboard or the rules later is checked
 * like the others (ComposeStackIT: exported by the applications; OpsFilesTest: documented).
 */
final class OpsFiles {

    /** A metric selector of an expression: {@code name{label="value", label=~"a|b"}}. */
    record Selector(String metric, List<LabelMatcher> matchers, String source) {
    }

    /** A label matcher; {@code op} is one of {@code = != =~ !~}. */
    record LabelMatcher(String label, String op, String value) {
    }

    /** Series Prometheus itself adds to every target; not exported by the applications. */
    static final Set<String> SYNTHETIC = Set.of("up");

    private static final Set<String> KEYWORDS = Set.of(
            // aggregation operators (may be followed by by/without before their parenthesis)
            "sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values", "bottomk", "topk",
            "quantile", "limitk", "limit_ratio",
            // binary operators and modifiers
            "and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right", "bool", "offset",
            "atan2", "inf", "nan");
    private static final Set<String> LABEL_LIST_MODIFIERS = Set.of("by", "without", "on", "ignoring", "group_left",
            "group_right");
    private static final Pattern MATCHER = Pattern.compile("\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!~|!=|=)\\s*\"((?:[^\"\\\\]|\\\\.)*)\"\\s*,?");

    private OpsFiles() {
    }

    static Path rules() {
        return Repository.root().resolve("ops/prometheus/cdc-cache-alerts.yml");
    }

    static Path dashboard() {
        return Repository.root().resolve("ops/grafana/cdc-cache-dashboard.json");
    }

    /** The rule groups of the alert rules file, as YAML maps. */
    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> ruleGroups() {
        Map<String, Object> root = new Yaml().load(read(rules()));
        return (List<Map<String, Object>>) root.get("groups");
    }

    /** The rules of every group. */
    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> alertRules() {
        List<Map<String, Object>> rules = new ArrayList<>();
        for (Map<String, Object> group : ruleGroups()) {
            rules.addAll((List<Map<String, Object>>) group.get("rules"));
        }
        return rules;
    }

    static Path alertmanagerRouting() {
        return Repository.root().resolve("ops/alertmanager/cdc-cache-routing.yml");
    }

    /** The Alertmanager routing and inhibit rules file, as a YAML map. */
    static Map<String, Object> alertmanagerRoutingYaml() {
        return new Yaml().load(read(alertmanagerRouting()));
    }

    /** A dashboard panel that shows data, and the row it sits under ({@code null} above the first row). */
    record PlacedPanel(JsonNode panel, String row) {
        String title() {
            return panel.path("title").asString();
        }
    }

    /**
     * The dashboard's data panels with the row each one sits under: the nearest row above it in Grafana's layout
     * (rows not collapsed keep their panels at the top level, placed by {@code gridPos}); panels inside a collapsed
     * row belong to that row.
     */
    static List<PlacedPanel> placedPanels() {
        List<JsonNode> panels = new ArrayList<>();
        dashboardJson().path("panels").forEach(panels::add);
        panels.sort(java.util.Comparator.comparingInt((JsonNode p) -> p.path("gridPos").path("y").asInt())
                .thenComparingInt(p -> p.path("gridPos").path("x").asInt()));
        List<PlacedPanel> placed = new ArrayList<>();
        String row = null;
        for (JsonNode panel : panels) {
            if (panel.path("type").asString().equals("row")) {
                row = panel.path("title").asString();
                for (JsonNode inner : panel.path("panels")) {
                    placed.add(new PlacedPanel(inner, row));
                }
            } else {
                placed.add(new PlacedPanel(panel, row));
            }
        }
        return placed;
    }

    static JsonNode dashboardJson() {
        return JsonMapper.builder().build().readTree(read(dashboard()));
    }

    /** Every PromQL expression of the rules and the dashboard (panel targets and variable queries), by where it is. */
    static Map<String, String> expressions() {
        Map<String, String> expressions = new LinkedHashMap<>();
        for (Map<String, Object> rule : alertRules()) {
            expressions.put("rule " + rule.get("alert"), String.valueOf(rule.get("expr")));
        }
        JsonNode dashboard = dashboardJson();
        for (PlacedPanel placed : placedPanels()) {
            for (JsonNode target : placed.panel().path("targets")) {
                expressions.put("panel '" + placed.title() + "' " + target.path("refId").asString(),
                        target.path("expr").asString());
            }
        }
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            if (variable.path("type").asString().equals("query")) {
                String query = variable.path("query").isObject() ? variable.path("query").path("query").asString()
                        : variable.path("query").asString();
                // label_values(metric, label): the metric is the part that must exist
                expressions.put("variable " + variable.path("name").asString(),
                        query.replaceAll("label_values\\(\\s*([^,]+),\\s*[a-zA-Z_]+\\s*\\)", "$1"));
            }
        }
        return expressions;
    }

    /** Every metric selector of every expression. */
    static List<Selector> selectors() {
        List<Selector> selectors = new ArrayList<>();
        expressions().forEach((where, expr) -> selectors.addAll(selectors(expr, where)));
        return selectors;
    }

    /** The metric names the rules and the dashboard use (Prometheus' own {@link #SYNTHETIC} ones included). */
    static Set<String> metricNames() {
        Set<String> names = new TreeSet<>();
        selectors().forEach(s -> names.add(s.metric()));
        return names;
    }

    /**
     * The metric selectors of a PromQL expression: identifiers that are neither functions (followed by '('),
     * operators nor keywords, with their label matchers; label lists of by/without/on/ignoring, range and
     * subquery brackets, strings and numbers are skipped.
     */
    static List<Selector> selectors(String expr, String source) {
        List<Selector> selectors = new ArrayList<>();
        int i = 0;
        int n = expr.length();
        while (i < n) {
            char c = expr.charAt(i);
            if (c == '"' || c == '\'') {
                i = skipString(expr, i);
            } else if (c == '[') {
                i = expr.indexOf(']', i) + 1;
            } else if (Character.isDigit(c) || (c == '.' && i + 1 < n && Character.isDigit(expr.charAt(i + 1)))) {
                while (i < n && (Character.isLetterOrDigit(expr.charAt(i)) || expr.charAt(i) == '.')) {
                    i++;
                }
            } else if (c == '$') { // a Grafana variable such as $__rate_interval
                i++;
                while (i < n && (Character.isLetterOrDigit(expr.charAt(i)) || expr.charAt(i) == '_')) {
                    i++;
                }
            } else if (Character.isLetter(c) || c == '_' || c == ':') {
                int start = i;
                while (i < n && (Character.isLetterOrDigit(expr.charAt(i)) || expr.charAt(i) == '_' || expr.charAt(i) == ':')) {
                    i++;
                }
                String word = expr.substring(start, i);
                int next = skipBlanks(expr, i);
                if (LABEL_LIST_MODIFIERS.contains(word) && next < n && expr.charAt(next) == '(') {
                    i = expr.indexOf(')', next) + 1;
                } else if (KEYWORDS.contains(word) || (next < n && expr.charAt(next) == '(')) {
                    // an operator or a function: its arguments are read on
                } else {
                    List<LabelMatcher> matchers = new ArrayList<>();
                    if (next < n && expr.charAt(next) == '{') {
                        int close = closingBrace(expr, next);
                        matchers = matchers(expr.substring(next + 1, close), source);
                        i = close + 1;
                    }
                    selectors.add(new Selector(word, matchers, source));
                }
            } else if (c == '{') { // a selector without a name: {__name__="..."} is not used here
                throw new IllegalArgumentException(source + ": selector without a metric name in " + expr);
            } else {
                i++;
            }
        }
        return selectors;
    }

    private static List<LabelMatcher> matchers(String inside, String source) {
        List<LabelMatcher> matchers = new ArrayList<>();
        java.util.regex.Matcher m = MATCHER.matcher(inside);
        int at = 0;
        while (at < inside.length() && m.find(at) && m.start() == at) {
            matchers.add(new LabelMatcher(m.group(1), m.group(2), m.group(3).replace("\\\"", "\"")));
            at = m.end();
        }
        if (!inside.substring(at).isBlank()) {
            throw new IllegalArgumentException(source + ": cannot read label matchers {" + inside + "}");
        }
        return matchers;
    }

    private static int skipString(String expr, int open) {
        char quote = expr.charAt(open);
        int i = open + 1;
        while (expr.charAt(i) != quote) {
            i += expr.charAt(i) == '\\' ? 2 : 1;
        }
        return i + 1;
    }

    private static int closingBrace(String expr, int open) {
        int i = open + 1;
        while (expr.charAt(i) != '}') {
            i = expr.charAt(i) == '"' ? skipString(expr, i) : i + 1;
        }
        return i;
    }

    private static int skipBlanks(String expr, int i) {
        while (i < expr.length() && Character.isWhitespace(expr.charAt(i))) {
            i++;
        }
        return i;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The sections of a Markdown text by the GitHub anchor of their heading: each heading's text up to the next
     * heading of the same or a higher level.
     */
    static Map<String, String> sectionsByAnchor(String markdown) {
        Map<String, String> sections = new LinkedHashMap<>();
        String[] lines = markdown.split("\n", -1);
        boolean fenced = false;
        for (int i = 0; i < lines.length; i++) {
            fenced ^= lines[i].startsWith("```");
            java.util.regex.Matcher heading = HEADING.matcher(lines[i]);
            if (fenced || !heading.matches()) {
                continue;
            }
            int level = heading.group(1).length();
            StringBuilder body = new StringBuilder();
            boolean innerFence = false;
            for (int j = i + 1; j < lines.length; j++) {
                innerFence ^= lines[j].startsWith("```");
                java.util.regex.Matcher next = HEADING.matcher(lines[j]);
                if (!innerFence && next.matches() && next.group(1).length() <= level) {
                    break;
                }
                body.append(lines[j]).append('\n');
            }
            Set<String> anchor = DocumentationLinksTest.anchors(lines[i]);
            sections.putIfAbsent(anchor.iterator().next(), body.toString());
        }
        return sections;
    }

    private static final Pattern HEADING = Pattern.compile("(#{1,6})\\s+(.*)");

    /** The {@code docs/operations.md#anchor} references in a text (rule annotations, panel descriptions). */
    static Set<String> operationsAnchors(String text) {
        Set<String> anchors = new TreeSet<>();
        java.util.regex.Matcher m = Pattern.compile("docs/operations\\.md#([a-z0-9_-]+)").matcher(text);
        while (m.find()) {
            anchors.add(m.group(1));
        }
        return anchors;
    }
}
