package dev.cdccache.packaging;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A Prometheus text exposition ({@code /actuator/prometheus}): its series as name, labels and value. Enough to
 * tell which metric names and label values an application exports and to read values. Comment lines
 * ({@code # HELP}, {@code # TYPE}) are skipped.
 */
final class PrometheusScrape {

    /** One series of the exposition. */
    record Series(String name, Map<String, String> labels, double value) {
    }

    private final List<Series> series;

    private PrometheusScrape(List<Series> series) {
        this.series = series;
    }

    static PrometheusScrape parse(String exposition) {
        List<Series> series = new ArrayList<>();
        for (String line : exposition.split("\n")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                series.add(parseLine(line));
            }
        }
        return new PrometheusScrape(series);
    }

    /** The union of several scrapes (several applications). */
    static PrometheusScrape union(List<PrometheusScrape> scrapes) {
        List<Series> all = new ArrayList<>();
        scrapes.forEach(scrape -> all.addAll(scrape.series));
        return new PrometheusScrape(all);
    }

    /** Every series name: {@code cdc_client_fresh}, {@code cdc_client_invalidation_lag_seconds_bucket}, ... */
    Set<String> names() {
        Set<String> names = new TreeSet<>();
        series.forEach(s -> names.add(s.name()));
        return names;
    }

    /** Whether a series of {@code name} has {@code label} = {@code value}. */
    boolean hasLabelValue(String name, String label, String value) {
        return series.stream().anyMatch(s -> s.name().equals(name) && value.equals(s.labels().get(label)));
    }

    /** The values {@code label} takes on the series of {@code name}. */
    Set<String> labelValues(String name, String label) {
        Set<String> values = new TreeSet<>();
        series.stream().filter(s -> s.name().equals(name) && s.labels().containsKey(label))
                .forEach(s -> values.add(s.labels().get(label)));
        return values;
    }

    /** The value of the one series of {@code name}; fails if there is none or several. */
    double singleValue(String name) {
        return value(name, Map.of());
    }

    /** The value of the one series of {@code name} having (at least) {@code labels}; fails if none or several. */
    double value(String name, Map<String, String> labels) {
        List<Series> matching = series.stream().filter(s -> s.name().equals(name)
                && s.labels().entrySet().containsAll(labels.entrySet())).toList();
        if (matching.size() != 1) {
            throw new IllegalStateException(name + labels + ": expected one series, found " + matching.size());
        }
        return matching.get(0).value();
    }

    private static Series parseLine(String line) {
        int brace = line.indexOf('{');
        int blank = line.indexOf(' ');
        Map<String, String> labels = new LinkedHashMap<>();
        String name;
        String rest;
        if (brace >= 0 && brace < blank) {
            name = line.substring(0, brace);
            int i = brace + 1;
            while (line.charAt(i) != '}') {
                int eq = line.indexOf('=', i);
                String label = line.substring(i, eq).trim();
                StringBuilder value = new StringBuilder();
                int j = eq + 2; // after ="
                for (; line.charAt(j) != '"'; j++) {
                    char c = line.charAt(j);
                    if (c == '\\') {
                        char next = line.charAt(++j);
                        value.append(next == 'n' ? '\n' : next);
                    } else {
                        value.append(c);
                    }
                }
                labels.put(label, value.toString());
                i = j + 1;
                if (line.charAt(i) == ',') {
                    i++;
                }
            }
            rest = line.substring(i + 1);
        } else {
            name = line.substring(0, blank);
            rest = line.substring(blank);
        }
        return new Series(name, labels, number(rest.trim().split("\\s+")[0]));
    }

    private static double number(String value) {
        return switch (value) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> Double.parseDouble(value);
        };
    }
}
