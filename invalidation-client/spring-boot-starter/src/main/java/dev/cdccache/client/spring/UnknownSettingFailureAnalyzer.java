package dev.cdccache.client.spring;

import dev.cdccache.client.settings.ClientSettings;
import dev.cdccache.client.settings.UnknownSetting;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
 * <p>The valid names are the core's catalogue of settings ({@link ClientSettings#diagnose}), the same the Hibernate
 * module's reader checks against, so a new setting needs no change here. Ordered first so it answers before Spring
 * Boot's generic "elements were left unbound" analysis; it returns {@code null} (letting that one answer) for keys
 * under other prefixes.
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
                String.join("\n", actions) + "\nEvery setting is listed in docs/client.md, section 'Settings (cdc.invalidation.*)'.",
                cause);
    }

    /** What is wrong with {@code name} and what to do. */
    static Diagnosis diagnose(ConfigurationPropertyName name) {
        Optional<UnknownSetting> unknown = ClientSettings.diagnose(relativeKey(name));
        if (unknown.isEmpty()) {
            // The whole name is a setting, yet it was left unbound: e.g. a list written where a single value belongs.
            return new Diagnosis("Its value could not be bound.", "Check the form of '" + name + "'.");
        }
        UnknownSetting u = unknown.get();
        String parent = u.parent().isEmpty() ? PREFIX : PREFIX + "." + u.parent();
        if (u.suggestion().isPresent()) {
            String suggestion = PREFIX + "." + u.suggestion().get();
            return new Diagnosis("Did you mean '" + suggestion + "'?", "Rename '" + name + "' to '" + suggestion + "'.");
        }
        if (u.validHere().isEmpty()) {
            return new Diagnosis("'" + parent + "' is a single value and has no settings of its own.",
                    "Remove '" + name + "' or set '" + parent + "' itself.");
        }
        String valid = String.join(", ", u.validHere());
        return new Diagnosis("Valid settings under '" + parent + "' are: " + valid + ".",
                "Remove '" + name + "' or use one of: " + valid + ".");
    }

    /** {@code name} below {@code cdc.invalidation}, in the form the catalogue reads ({@code caches.c.sources[0].table}). */
    private static String relativeKey(ConfigurationPropertyName name) {
        StringBuilder key = new StringBuilder();
        for (int i = ROOT.getNumberOfElements(); i < name.getNumberOfElements(); i++) {
            String element = name.getElement(i, Form.ORIGINAL);
            if (name.isNumericIndex(i) || element.contains(".")) {
                key.append('[').append(element).append(']');
            } else {
                key.append(key.isEmpty() ? "" : ".").append(element);
            }
        }
        return key.toString();
    }

    /** The problem (after "Unknown setting 'x'.") and the action for one unknown key. */
    record Diagnosis(String problem, String action) {
    }
}
