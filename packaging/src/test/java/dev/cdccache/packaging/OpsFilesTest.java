package dev.cdccache.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.packaging.OpsFiles.LabelMatcher;
import dev.cdccache.packaging.OpsFiles.Selector;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The operations files (ops/) are well-formed and documented: the alert rules are valid Prometheus rule files
 * (what {@code promtool check rules} checks on structure, without the binary: the build runs where Prometheus is
 * not installed), every expression of the rules and the dashboard reads as PromQL selectors, every metric they name
 * is in docs/operations.md and defined by a meter of the code, every docs/operations.md anchor they point to exists,
 * every alert has a runbook section that says what to do, every dashboard panel filters by the variable of its side
 * (service instances or connectors) under a row of that side, and the Alertmanager inhibit rules keep a connector
 * outage from paging once per client instance. That the applications
 * really export those metrics is ComposeStackIT's {@code everyMetricTheDashboardAndTheAlertRulesNameIsExported}.
 */
class OpsFilesTest {

    private static final Set<String> RULE_KEYS = Set.of("alert", "expr", "for", "keep_firing_for", "labels", "annotations");
    private static final Pattern DURATION = Pattern.compile("(\\d+(ms|s|m|h|d|w|y))+");
    private static final Pattern ALERT_NAME = Pattern.compile("[A-Z][A-Za-z0-9]+");
    private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
    private static final Pattern RUNBOOK = Pattern.compile("docs/operations\\.md#[a-z0-9_-]+");
    private static final Pattern METER_NAME = Pattern.compile("\"(cdc\\.(?:client|connector)\\.[a-z.]+)\"");
    /** The dashboard variables that select service instances and connector instances. */
    private static final String CLIENT_VARIABLE = "instance";
    private static final String CONNECTOR_VARIABLE = "connector";

    @Test
    @SuppressWarnings("unchecked")
    void theAlertRulesAreAValidPrometheusRuleFile() {
        List<Map<String, Object>> groups = OpsFiles.ruleGroups();
        assertThat(groups).isNotEmpty();
        Set<String> groupNames = new HashSet<>();
        Set<String> alerts = new HashSet<>();
        for (Map<String, Object> group : groups) {
            assertThat(group.keySet()).as("group keys").isSubsetOf("name", "interval", "rules", "limit");
            assertThat(groupNames.add((String) group.get("name"))).as("unique group name " + group.get("name")).isTrue();
            List<Map<String, Object>> rules = (List<Map<String, Object>>) group.get("rules");
            assertThat(rules).as("rules of " + group.get("name")).isNotEmpty();
            for (Map<String, Object> rule : rules) {
                String alert = (String) rule.get("alert");
                assertThat(rule.keySet()).as(alert + ": keys").isSubsetOf(RULE_KEYS).contains("alert", "expr");
                assertThat(alert).matches(ALERT_NAME);
                assertThat(alerts.add(alert)).as("unique alert " + alert).isTrue();
                String expr = String.valueOf(rule.get("expr"));
                assertThat(balanced(expr)).as(alert + ": balanced brackets in " + expr).isTrue();
                assertThat(OpsFiles.selectors(expr, alert)).as(alert + ": selects some metric").isNotEmpty();
                if (rule.containsKey("for")) {
                    assertThat(String.valueOf(rule.get("for"))).as(alert + ": for").matches(DURATION);
                }
                Map<String, Object> labels = (Map<String, Object>) rule.get("labels");
                assertThat(labels).as(alert + ": labels").containsKey("severity");
                assertThat(labels.get("severity")).as(alert + ": severity").isIn("critical", "warning", "info");
                labels.keySet().forEach(label -> assertThat(label).matches(LABEL_NAME));
                Map<String, Object> annotations = (Map<String, Object>) rule.get("annotations");
                assertThat(annotations).as(alert + ": annotations").containsKeys("summary", "description");
                annotations.values().forEach(text -> assertThat(balancedTemplates(String.valueOf(text)))
                        .as(alert + ": template braces in " + text).isTrue());
            }
        }
    }

    @Test
    void theDashboardIsAWellFormedGrafanaDashboard() {
        JsonNode dashboard = OpsFiles.dashboardJson();
        assertThat(dashboard.path("uid").asString()).isNotBlank();
        assertThat(dashboard.path("title").asString()).isNotBlank();
        assertThat(dashboard.path("schemaVersion").asInt()).isPositive();
        Set<Integer> ids = new HashSet<>();
        int queries = 0;
        for (JsonNode panel : dashboard.path("panels")) {
            String title = panel.path("title").asString();
            assertThat(ids.add(panel.path("id").asInt())).as("unique panel id of " + title).isTrue();
            assertThat(panel.path("gridPos").path("w").asInt()).as(title + ": width").isBetween(1, 24);
            if (panel.path("type").asString().equals("row")) {
                continue;
            }
            assertThat(panel.path("targets").isEmpty()).as(title + ": targets").isFalse();
            for (JsonNode target : panel.path("targets")) {
                String expr = target.path("expr").asString();
                assertThat(balanced(expr)).as(title + ": balanced brackets in " + expr).isTrue();
                assertThat(target.path("datasource").path("uid").asString()).as(title + ": datasource").isEqualTo("${datasource}");
                queries++;
            }
        }
        assertThat(queries).isGreaterThan(10);
    }

    @Test
    void everyExpressionReadsAsSelectorsOfMetrics() {
        List<Selector> selectors = OpsFiles.selectors(
                "histogram_quantile(0.99, sum by (le, instance) (rate(cdc_client_invalidation_lag_seconds_bucket"
                        + "{instance=~\"$instance\"}[$__rate_interval]))) > 0.5 and on (instance) up{job=\"x\"} == 1"
                        + " or increase(cdc_client_errors_total{reason=~\"a|b\", client!=\"c\"}[10m] offset 5m) > 0", "example");
        assertThat(selectors).extracting(Selector::metric)
                .containsExactly("cdc_client_invalidation_lag_seconds_bucket", "up", "cdc_client_errors_total");
        assertThat(selectors.get(2).matchers()).containsExactly(new LabelMatcher("reason", "=~", "a|b"),
                new LabelMatcher("client", "!=", "c"));
        assertThat(OpsFiles.selectors("time() - cdc_connector_last_event_time_seconds > 30", "example"))
                .extracting(Selector::metric).containsExactly("cdc_connector_last_event_time_seconds");
        for (Map.Entry<String, String> expression : OpsFiles.expressions().entrySet()) {
            assertThat(OpsFiles.selectors(expression.getValue(), expression.getKey()))
                    .as(expression.getKey() + ": " + expression.getValue()).isNotEmpty();
        }
    }

    @Test
    void everyMetricTheyNameIsDocumentedInOperationsMd() throws IOException {
        String operations = Files.readString(Repository.root().resolve("docs/operations.md"));
        List<String> undocumented = new ArrayList<>();
        for (String metric : OpsFiles.metricNames()) {
            String family = metric.replaceAll("_(bucket|count|sum|max)$", "");
            boolean documented = false;
            for (String name : List.of(metric, family)) {
                documented |= operations.contains("`" + name + "`") || operations.contains("`" + name + "{");
            }
            if (!OpsFiles.SYNTHETIC.contains(metric) && !documented) {
                undocumented.add(metric);
            }
        }
        assertThat(undocumented).as("metrics of ops/ not in docs/operations.md").isEmpty();
    }

    @Test
    void theOperationsAnchorsTheyPointToExist() throws IOException {
        Set<String> anchors = DocumentationLinksTest.anchors(Files.readString(Repository.root().resolve("docs/operations.md")));
        Set<String> referenced = OpsFiles.operationsAnchors(Files.readString(OpsFiles.rules()) + Files.readString(OpsFiles.dashboard())
                + Files.readString(OpsFiles.alertmanagerRouting()));
        assertThat(referenced).isNotEmpty();
        assertThat(anchors).containsAll(referenced);
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyAlertHasASummaryADescriptionAndARunbookSectionThatSaysWhatToDo() throws IOException {
        String operations = Files.readString(Repository.root().resolve("docs/operations.md"));
        Map<String, String> sections = OpsFiles.sectionsByAnchor(operations);
        for (Map<String, Object> rule : OpsFiles.alertRules()) {
            String alert = (String) rule.get("alert");
            Map<String, Object> annotations = (Map<String, Object>) rule.get("annotations");
            assertThat(annotations).as(alert + ": annotations").containsKeys("summary", "description", "runbook_url");
            assertThat(String.valueOf(annotations.get("summary"))).as(alert + ": summary").isNotBlank();
            assertThat(String.valueOf(annotations.get("description"))).as(alert + ": description").isNotBlank();
            String runbook = String.valueOf(annotations.get("runbook_url"));
            assertThat(runbook).as(alert + ": runbook_url").matches(RUNBOOK);
            String anchor = runbook.substring(runbook.indexOf('#') + 1);
            assertThat(sections).as(alert + ": heading of " + runbook + " in docs/operations.md").containsKey(anchor);
            assertThat(sections.get(anchor)).as(alert + ": section " + anchor + " says what to do").contains("**Do:**");
        }
    }

    @Test
    void everyClientPanelFollowsTheInstanceVariableUnderAClientRowAndEveryConnectorPanelItsOwn() {
        JsonNode dashboard = OpsFiles.dashboardJson();
        Map<String, String> variables = new java.util.HashMap<>();
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            variables.put(variable.path("name").asString(), variable.path("query").asString());
        }
        assertThat(variables.get(CLIENT_VARIABLE)).as("variable " + CLIENT_VARIABLE).contains("cdc_client_");
        assertThat(variables.get(CONNECTOR_VARIABLE)).as("variable " + CONNECTOR_VARIABLE).contains("cdc_connector_");
        List<OpsFiles.PlacedPanel> panels = OpsFiles.placedPanels();
        assertThat(panels).isNotEmpty();
        Set<String> sides = new HashSet<>();
        for (OpsFiles.PlacedPanel placed : panels) {
            List<Selector> selectors = new ArrayList<>();
            placed.panel().path("targets").forEach(t -> selectors.addAll(OpsFiles.selectors(t.path("expr").asString(), placed.title())));
            Set<String> side = new HashSet<>();
            selectors.forEach(selector -> side.add(side(selector.metric())));
            assertThat(side).as(placed.title() + ": shows client or connector metrics, not both").hasSize(1);
            String panelSide = side.iterator().next();
            sides.add(panelSide);
            String variable = panelSide.equals("client") ? CLIENT_VARIABLE : CONNECTOR_VARIABLE;
            String rowPrefix = panelSide.equals("client") ? "Client" : "Connector";
            assertThat(placed.row()).as(placed.title() + ": row").isNotNull().startsWith(rowPrefix);
            for (Selector selector : selectors) {
                assertThat(selector.matchers()).as(placed.title() + ": " + selector.metric() + " filtered by $" + variable)
                        .contains(new LabelMatcher("instance", "=~", "$" + variable));
            }
        }
        assertThat(sides).containsExactlyInAnyOrder("client", "connector");
    }

    @Test
    void aConnectorOutageInhibitsTheClientAlertsItCausesAndClientAlertsAreNotGroupedByInstance() {
        Set<String> alerts = new HashSet<>();
        OpsFiles.alertRules().forEach(rule -> alerts.add((String) rule.get("alert")));
        AlertmanagerRouting routing = AlertmanagerRouting.read(OpsFiles.alertmanagerRoutingYaml(), alerts);

        for (String outage : List.of("CdcConnectorDown", "CdcConnectorNotStreaming", "CdcConnectorNotPublishing")) {
            for (String consequence : List.of("CdcClientNotFresh", "CdcClientCacheNotFresh", "CdcClientWatermarkOld",
                    "CdcClientInvalidationLagHigh")) {
                assertThat(routing.inhibits(outage, consequence)).as(outage + " inhibits " + consequence).isTrue();
            }
            assertThat(routing.inhibits(outage, "CdcClientEventsLost")).as(outage + " leaves lost events alone").isFalse();
            assertThat(routing.inhibits(outage, "CdcClientConsumerLagging"))
                    .as(outage + " leaves one instance's stuck consumer alone").isFalse();
        }
        assertThat(routing.inhibits("CdcConnectorEpochChanged", "CdcClientEpochChanged")).isTrue();
        assertThat(routing.inhibits("CdcClientNotFresh", "CdcConnectorDown")).as("never the other way round").isFalse();
        for (String client : alerts.stream().filter(a -> a.startsWith("CdcClient")).toList()) {
            assertThat(routing.groupBy(client)).as(client + ": group_by").contains("alertname", "cache")
                    .doesNotContain("instance");
        }
        assertThat(routing.groupBy("CdcConnectorDown")).contains("alertname", "instance");
    }

    @Test
    void aConnectorAlertDoesNotMuteClientProblemsItDoesNotCause() {
        Set<String> alerts = new HashSet<>();
        OpsFiles.alertRules().forEach(rule -> alerts.add((String) rule.get("alert")));
        AlertmanagerRouting routing = AlertmanagerRouting.read(OpsFiles.alertmanagerRoutingYaml(), alerts);

        for (String connector : alerts.stream().filter(a -> a.startsWith("CdcConnector")).toList()) {
            assertThat(routing.inhibits(connector, "CdcClientProblems")).as(connector + " inhibits CdcClientProblems")
                    .isFalse();
        }
    }

    @Test
    void everyCdcMetricTheyNameIsDefinedInTheCode() throws IOException {
        Set<String> defined = new HashSet<>();
        for (String module : List.of("cdc-connector/src/main/java", "invalidation-client/core/src/main/java")) {
            try (var files = Files.walk(Repository.root().resolve(module))) {
                for (var file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                    java.util.regex.Matcher m = METER_NAME.matcher(Files.readString(file));
                    while (m.find()) {
                        defined.add(m.group(1).replace('.', '_'));
                    }
                }
            }
        }
        List<String> undefined = new ArrayList<>();
        for (String metric : OpsFiles.metricNames()) {
            String meter = metric.replaceAll("_(bucket|count|sum|max)$", "").replaceAll("_(total|seconds)$", "");
            if (metric.startsWith("cdc_") && !defined.contains(meter)) {
                undefined.add(metric);
            }
        }
        assertThat(defined).contains("cdc_connector_epoch_changes", "cdc_client_fresh");
        assertThat(undefined).as("cdc metrics of ops/ that no meter of the code defines").isEmpty();
    }

    private static String side(String metric) {
        if (metric.startsWith("cdc_connector_")) {
            return "connector";
        }
        if (metric.startsWith("cdc_client_") || metric.startsWith("cache_")) {
            return "client";
        }
        return "other: " + metric;
    }

    private static boolean balanced(String expr) {
        StringBuilder stack = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < expr.length(); i++) {
            char c = expr.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (!quoted && "([{".indexOf(c) >= 0) {
                stack.append(c);
            } else if (!quoted && ")]}".indexOf(c) >= 0) {
                if (stack.isEmpty() || "([{".indexOf(stack.charAt(stack.length() - 1)) != ")]}".indexOf(c)) {
                    return false;
                }
                stack.setLength(stack.length() - 1);
            }
        }
        return stack.isEmpty() && !quoted;
    }

    private static boolean balancedTemplates(String text) {
        return text.split("\\{\\{", -1).length == text.split("}}", -1).length;
    }
}
