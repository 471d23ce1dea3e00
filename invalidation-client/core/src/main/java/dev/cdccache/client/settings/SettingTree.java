package dev.cdccache.client.settings;

import dev.cdccache.client.SettingSuggestion;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The keys of the catalogue as a tree (groups, the map of caches, the list of sources, families, values), to find
 * the setting a flat key names, with its cache, source and list index, or to say why it names none. Names compare
 * in Spring Boot's relaxed way (case and dashes ignored), so {@code maxStaleness} finds {@code max-staleness}.
 */
final class SettingTree {

    private enum Kind { GROUP, VALUE, FAMILY, MAP, LIST }

    private static final class Node {
        final Kind kind;
        final Map<String, Node> children = new LinkedHashMap<>();
        Node element;
        Setting<?> setting;

        Node(Kind kind) {
            this.kind = kind;
        }

        Node child(String element) {
            String uniform = uniform(element);
            for (Map.Entry<String, Node> entry : children.entrySet()) {
                if (uniform(entry.getKey()).equals(uniform)) {
                    return entry.getValue();
                }
            }
            return null;
        }

        String dashedName(String element) {
            String uniform = uniform(element);
            return children.keySet().stream().filter(name -> uniform(name).equals(uniform)).findFirst().orElseThrow();
        }
    }

    /**
     * Where a key leads.
     *
     * @param setting the setting
     * @param cache the cache's name for cache and source settings, else {@code null}
     * @param source the source's index, or {@code -1} for the short form (and for other scopes)
     * @param member the name of a family member ({@code client.rack} of {@code kafka.properties.client.rack})
     * @param index the index of one list item ({@code key-columns[1]}), or {@code -1} for the whole value
     * @param canonical the key as the catalogue writes it, with the given names and indexes, without the item index
     */
    record Located(Setting<?> setting, String cache, int source, String member, int index, String canonical) {
    }

    /** A key that names no setting. */
    static final class UnknownKeyException extends RuntimeException {
        final UnknownSetting unknown;

        UnknownKeyException(UnknownSetting unknown) {
            super(unknown.key(), null, false, false);
            this.unknown = unknown;
        }
    }

    private final Node root = new Node(Kind.GROUP);

    SettingTree(List<Setting<?>> settings) {
        Node cache = new Node(Kind.GROUP);
        Node source = new Node(Kind.GROUP);
        Node caches = new Node(Kind.MAP);
        caches.element = cache;
        Node sources = new Node(Kind.LIST);
        sources.element = source;
        for (Setting<?> setting : settings) {
            switch (setting.scope()) {
                case CLIENT, FRONT_END -> add(root, setting.key(), setting);
                case CACHE -> add(cache, setting.key(), setting);
                case SOURCE -> {
                    add(cache, setting.key(), setting);
                    add(source, setting.key(), setting);
                }
            }
        }
        root.children.put("caches", caches);
        cache.children.put("sources", sources);
    }

    private static void add(Node group, String key, Setting<?> setting) {
        String[] parts = key.split("\\.");
        Node node = group;
        for (int i = 0; i < parts.length - 1; i++) {
            node = node.children.computeIfAbsent(parts[i], name -> new Node(Kind.GROUP));
        }
        Node leaf = new Node(setting.family() ? Kind.FAMILY : Kind.VALUE);
        leaf.setting = setting;
        node.children.put(parts[parts.length - 1], leaf);
    }

    /**
     * The setting {@code key} (relative to {@code cdc.invalidation.}) names.
     *
     * @throws UnknownKeyException if it names none
     */
    Located locate(String key) {
        List<String> elements = elements(key);
        Node node = root;
        StringBuilder canonical = new StringBuilder();
        String cache = null;
        int source = -1;
        int index = -1;
        for (int i = 0; i < elements.size(); i++) {
            String element = elements.get(i);
            switch (node.kind) {
                case GROUP -> {
                    Node child = indexed(element) ? null : node.child(element);
                    if (child == null) {
                        throw unknown(key, canonical.toString(), node, element, elements, i);
                    }
                    append(canonical, node.dashedName(element));
                    node = child;
                }
                case MAP -> {
                    if (indexed(element)) {
                        throw unknown(key, canonical.toString(), node, element, elements, i);
                    }
                    cache = element;
                    append(canonical, element.contains(".") ? "[" + element + "]" : element);
                    node = node.element;
                }
                case LIST -> {
                    if (!indexed(element)) {
                        throw unknown(key, canonical.toString(), node, element, elements, i);
                    }
                    source = indexOf(element);
                    canonical.append(element);
                    node = node.element;
                }
                case FAMILY -> {
                    StringBuilder member = new StringBuilder();
                    for (String rest : elements.subList(i, elements.size())) {
                        member.append(indexed(rest) || member.isEmpty() ? "" : ".").append(rest);
                    }
                    return new Located(node.setting, cache, source, member.toString(), -1,
                            canonical + "." + member);
                }
                case VALUE -> {
                    boolean listItem = indexed(element) && i == elements.size() - 1
                            && java.util.List.class.equals(node.setting.valueType());
                    if (!listItem) {
                        throw unknown(key, canonical.toString(), node, element, elements, i);
                    }
                    index = indexOf(element);
                }
            }
        }
        if (node.kind != Kind.VALUE) {
            // A group (or a family without a member) given a value of its own.
            throw new UnknownKeyException(new UnknownSetting(key, canonical.toString(), Optional.empty(),
                    new ArrayList<>(node.kind == Kind.GROUP ? node.children.keySet() : node.element != null
                            ? node.element.children.keySet() : List.of("<name>"))));
        }
        return new Located(node.setting, cache, source, null, index, canonical.toString());
    }

    private static UnknownKeyException unknown(String key, String parent, Node node, String element,
            List<String> elements, int at) {
        List<String> valid = switch (node.kind) {
            case GROUP -> new ArrayList<>(node.children.keySet());
            case LIST -> List.of("[0]", "[1]", "...");
            default -> List.of();
        };
        Optional<String> suggestion = node.kind != Kind.GROUP ? Optional.empty()
                : SettingSuggestion.closest(element, node.children.keySet()).map(closest -> {
                    StringBuilder suggested = new StringBuilder(parent);
                    append(suggested, closest);
                    for (String rest : elements.subList(at + 1, elements.size())) {
                        append(suggested, rest);
                    }
                    return suggested.toString();
                });
        return new UnknownKeyException(new UnknownSetting(key, parent, suggestion, valid));
    }

    private static void append(StringBuilder key, String element) {
        if (indexed(element)) {
            key.append(element);
        } else {
            key.append(key.isEmpty() ? "" : ".").append(element);
        }
    }

    /** The elements of a key: {@code caches.[a.b].sources[0].table} is {@code caches, a.b, sources, [0], table}. */
    static List<String> elements(String key) {
        List<String> elements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c == '[') {
                int close = key.indexOf(']', i);
                if (close < 0) {
                    current.append(key, i, key.length());
                    break;
                }
                flush(elements, current);
                String inside = key.substring(i + 1, close);
                elements.add(inside.chars().allMatch(Character::isDigit) && !inside.isEmpty() ? "[" + inside + "]"
                        : inside);
                i = close;
            } else if (c == '.') {
                flush(elements, current);
            } else {
                current.append(c);
            }
        }
        flush(elements, current);
        return elements;
    }

    private static void flush(List<String> elements, StringBuilder current) {
        if (!current.isEmpty()) {
            elements.add(current.toString());
            current.setLength(0);
        }
    }

    private static boolean indexed(String element) {
        return element.startsWith("[") && element.endsWith("]");
    }

    private static int indexOf(String element) {
        return Integer.parseInt(element.substring(1, element.length() - 1));
    }

    private static String uniform(String name) {
        return name.replace("-", "").replace("_", "").toLowerCase(Locale.ROOT);
    }
}
