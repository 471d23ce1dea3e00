package dev.cdccache.packaging;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Alertmanager routing and inhibit rules of ops/alertmanager, evaluated for alerts that carry only their
 * {@code alertname} (what the rules of this repository match on): which route groups an alert how, and which alert
 * inhibits which. Reading it checks the matcher syntax and that every alert name the file spells out exists.
 */
final class AlertmanagerRouting {

    /** An Alertmanager matcher: {@code label=value}, {@code label!=value}, {@code label=~regex}, {@code label!~regex}. */
    record LabelMatcher(String label, String op, String value) {

        private static final Pattern SYNTAX = Pattern.compile("\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!~|!=|=)\\s*\"((?:[^\"\\\\]|\\\\.)*)\"\\s*");

        static LabelMatcher parse(String text) {
            Matcher m = SYNTAX.matcher(text);
            if (!m.matches()) {
                throw new IllegalArgumentException("not an Alertmanager matcher: " + text);
            }
            return new LabelMatcher(m.group(1), m.group(2), m.group(3));
        }

        /** Alertmanager anchors regular expressions at both ends; a missing label has the empty value. */
        boolean matches(String alertname) {
            String actual = label.equals("alertname") ? alertname : "";
            return switch (op) {
                case "=" -> actual.equals(value);
                case "!=" -> !actual.equals(value);
                case "=~" -> actual.matches(value);
                default -> !actual.matches(value);
            };
        }
    }

    private record Route(List<LabelMatcher> matchers, List<String> groupBy, List<Route> routes) {
    }

    private record InhibitRule(List<LabelMatcher> source, List<LabelMatcher> target, List<String> equal) {
    }

    private static final Pattern PLAIN_NAME = Pattern.compile("[A-Za-z0-9]+");

    private final Route route;
    private final List<InhibitRule> inhibitRules;

    private AlertmanagerRouting(Route route, List<InhibitRule> inhibitRules) {
        this.route = route;
        this.inhibitRules = inhibitRules;
    }

    /** Reads the file's {@code route} and {@code inhibit_rules}; fails on a matcher naming no alert of {@code alerts}. */
    @SuppressWarnings("unchecked")
    static AlertmanagerRouting read(Map<String, Object> yaml, Set<String> alerts) {
        Route route = route((Map<String, Object>) yaml.get("route"), List.of(), alerts);
        List<InhibitRule> rules = new ArrayList<>();
        for (Map<String, Object> rule : (List<Map<String, Object>>) yaml.get("inhibit_rules")) {
            if (!Set.of("source_matchers", "target_matchers", "equal").containsAll(rule.keySet())) {
                throw new IllegalArgumentException("unknown keys in inhibit rule " + rule);
            }
            rules.add(new InhibitRule(matchers(rule.get("source_matchers"), alerts), matchers(rule.get("target_matchers"), alerts),
                    (List<String>) rule.getOrDefault("equal", List.of())));
        }
        return new AlertmanagerRouting(route, rules);
    }

    @SuppressWarnings("unchecked")
    private static Route route(Map<String, Object> yaml, List<String> inheritedGroupBy, Set<String> alerts) {
        List<String> groupBy = (List<String>) yaml.getOrDefault("group_by", inheritedGroupBy);
        List<Route> children = new ArrayList<>();
        for (Map<String, Object> child : (List<Map<String, Object>>) yaml.getOrDefault("routes", List.of())) {
            children.add(route(child, groupBy, alerts));
        }
        return new Route(matchers(yaml.get("matchers"), alerts), groupBy, children);
    }

    @SuppressWarnings("unchecked")
    private static List<LabelMatcher> matchers(Object yaml, Set<String> alerts) {
        List<LabelMatcher> matchers = new ArrayList<>();
        for (String text : (List<String>) (yaml == null ? List.of() : yaml)) {
            LabelMatcher matcher = LabelMatcher.parse(text);
            if (matcher.label().equals("alertname") && matcher.op().startsWith("=")) {
                for (String name : matcher.op().equals("=") ? List.of(matcher.value()) : List.of(matcher.value().split("\\|"))) {
                    if (PLAIN_NAME.matcher(name).matches() && !alerts.contains(name)) {
                        throw new IllegalArgumentException("matcher " + text + " names no alert of the rules: " + name);
                    }
                }
                if (alerts.stream().noneMatch(matcher::matches)) {
                    throw new IllegalArgumentException("matcher " + text + " matches no alert of the rules");
                }
            }
            matchers.add(matcher);
        }
        return matchers;
    }

    /** Whether an inhibit rule mutes {@code target} while {@code source} fires (with equal labels). */
    boolean inhibits(String source, String target) {
        return inhibitRules.stream().anyMatch(rule -> rule.source().stream().allMatch(m -> m.matches(source))
                && rule.target().stream().allMatch(m -> m.matches(target)));
    }

    /** The group_by of the route that takes {@code alert}: the first matching child, depth first, as Alertmanager does. */
    List<String> groupBy(String alert) {
        if (!route.matchers().stream().allMatch(m -> m.matches(alert))) {
            throw new IllegalArgumentException(alert + " is not taken by the cdc-cache route");
        }
        return groupBy(route, alert);
    }

    private static List<String> groupBy(Route route, String alert) {
        for (Route child : route.routes()) {
            if (child.matchers().stream().allMatch(m -> m.matches(alert))) {
                return groupBy(child, alert);
            }
        }
        return route.groupBy();
    }
}
