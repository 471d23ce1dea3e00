package dev.cdccache.client.spring;

import dev.cdccache.client.SettingSuggestion;
import java.beans.PropertyDescriptor;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Turns an unknown key under {@code cdc.invalidation} (binding is strict, see {@link CdcInvalidationProperties})
 * into a start-up message naming the key, where it came from, and the closest valid setting at that place:
 * {@code max-stalenes} suggests {@code max-staleness}, {@code caches.coupons.key-column} suggests
 * {@code caches.coupons.key-columns}. A typo must not silently leave a default in force (a misspelled
 * {@code topic-prefix} would read topics nobody writes).
 *
 * <p>The valid names are read from {@link CdcInvalidationProperties} itself, so a new setting needs no change
 * here. Ordered first so it answers before Spring Boot's generic "elements were left unbound" analysis; it
 * returns {@code null} (letting that one answer) for keys under other prefixes.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
class UnknownSettingFailureAnalyzer extends AbstractFailureAnalyzer<UnboundConfigurationPropertiesException> {

    static final String PREFIX = "cdc.invalidation";

    private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of(PREFIX);

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, UnboundConfigurationPropertiesException cause) {
        List<String> problems = new ArrayList<>();
        List<String> actions = new ArrayList<>();
        for (ConfigurationProperty property : cause.getUnboundProperties()) {
            if (!ROOT.isAncestorOf(property.getName())) {
                continue;
            }
            Diagnosis diagnosis = diagnose(property.getName());
            String origin = property.getOrigin() == null ? "" : " (from " + property.getOrigin() + ")";
            problems.add("Unknown setting '" + property.getName() + "'" + origin + ". " + diagnosis.problem());
            actions.add(diagnosis.action());
        }
        if (problems.isEmpty()) {
            return null;
        }
        return new FailureAnalysis(String.join("\n", problems),
                String.join("\n", actions) + "\nEvery setting is listed in docs/client.md (Settings reference).",
                cause);
    }

    /** What is wrong with {@code name} and what to do, found by walking the settings tree along it. */
    static Diagnosis diagnose(ConfigurationPropertyName name) {
        Node node = Node.of(CdcInvalidationProperties.class);
        StringBuilder valid = new StringBuilder(PREFIX);
        for (int i = ROOT.getNumberOfElements(); i < name.getNumberOfElements(); i++) {
            String element = name.getElement(i, Form.DASHED);
            switch (node.kind) {
                case BEAN -> {
                    Node child = node.child(name.getElement(i, Form.UNIFORM));
                    if (child == null) {
                        return unknownChild(name, valid.toString(), element, node);
                    }
                    valid.append('.').append(node.dashedName(name.getElement(i, Form.UNIFORM)));
                    node = child;
                }
                case MAP_OF_BEANS, LIST_OF_BEANS -> {
                    // A cache name or a list index: any value is fine here.
                    valid.append(node.kind == Node.Kind.LIST_OF_BEANS ? "[" + element + "]" : "." + element);
                    node = node.element;
                }
                case FREE_FORM -> {
                    return new Diagnosis("", "");  // not reached: free-form entries always bind
                }
                default -> {
                    return new Diagnosis("'" + valid + "' is a single value and has no setting '" + element + "'.",
                            "Remove '" + name + "' or set '" + valid + "' itself.");
                }
            }
        }
        // The whole name exists, yet it was left unbound: e.g. a list written where a single value belongs.
        return new Diagnosis("Its value could not be bound to '" + valid + "'.", "Check the form of '" + valid + "'.");
    }

    private static Diagnosis unknownChild(ConfigurationPropertyName name, String parent, String element, Node node) {
        String valid = node.children.keySet().stream().collect(Collectors.joining(", "));
        // Only a near miss is worth suggesting; otherwise list what is valid at this place.
        return SettingSuggestion.closest(element, node.children.keySet())
                .map(closest -> parent + "." + closest)
                .map(suggestion -> new Diagnosis("Did you mean '" + suggestion + "'?",
                        "Rename '" + name + "' to '" + suggestion + "'."))
                .orElseGet(() -> new Diagnosis("Valid settings under '" + parent + "' are: " + valid + ".",
                        "Remove '" + name + "' or use one of: " + valid + "."));
    }

    /** The problem (after "Unknown setting 'x'.") and the action for one unknown key. */
    record Diagnosis(String problem, String action) {
    }

    /** The settings tree as the binder sees it: beans, maps and lists of beans, free-form maps, values. */
    private static final class Node {

        enum Kind { BEAN, MAP_OF_BEANS, LIST_OF_BEANS, FREE_FORM, VALUE }

        final Kind kind;
        /** BEAN: children by dashed name. */
        final Map<String, Node> children;
        /** MAP_OF_BEANS / LIST_OF_BEANS: the node of one entry. */
        final Node element;

        private Node(Kind kind, Map<String, Node> children, Node element) {
            this.kind = kind;
            this.children = children;
            this.element = element;
        }

        static Node of(Class<?> bean) {
            Map<String, Node> children = new LinkedHashMap<>();
            for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(bean)) {
                if (property.getReadMethod() == null || property.getName().equals("class")) {
                    continue;
                }
                children.put(dashed(property.getName()), of(property.getReadMethod().getGenericReturnType()));
            }
            return new Node(Kind.BEAN, children, null);
        }

        private static Node of(Type type) {
            if (type instanceof ParameterizedType parameterized && parameterized.getRawType() instanceof Class<?> raw) {
                Type[] arguments = parameterized.getActualTypeArguments();
                if (Map.class.isAssignableFrom(raw)) {
                    Type value = arguments[1];
                    return isSettingsBean(value) ? new Node(Kind.MAP_OF_BEANS, Map.of(), of((Class<?>) value))
                            : new Node(Kind.FREE_FORM, Map.of(), null);
                }
                if (List.class.isAssignableFrom(raw)) {
                    Type value = arguments[0];
                    return isSettingsBean(value) ? new Node(Kind.LIST_OF_BEANS, Map.of(), of((Class<?>) value))
                            : new Node(Kind.VALUE, Map.of(), null);
                }
            }
            return isSettingsBean(type) ? of((Class<?>) type) : new Node(Kind.VALUE, Map.of(), null);
        }

        /** Nested settings groups are the public static classes declared in the properties class. */
        private static boolean isSettingsBean(Type type) {
            return type instanceof Class<?> c && !c.isEnum() && c.getDeclaringClass() == CdcInvalidationProperties.class;
        }

        Node child(String uniformName) {
            String dashed = dashedName(uniformName);
            return dashed == null ? null : children.get(dashed);
        }

        /** The dashed name of the child whose uniform form (lower case, no dashes) is {@code uniformName}. */
        String dashedName(String uniformName) {
            for (String dashed : children.keySet()) {
                if (dashed.replace("-", "").equals(uniformName)) {
                    return dashed;
                }
            }
            return null;
        }

        private static String dashed(String camel) {
            StringBuilder out = new StringBuilder();
            for (char c : camel.toCharArray()) {
                if (Character.isUpperCase(c)) {
                    out.append('-').append(Character.toLowerCase(c));
                } else {
                    out.append(c);
                }
            }
            return out.toString();
        }
    }
}
