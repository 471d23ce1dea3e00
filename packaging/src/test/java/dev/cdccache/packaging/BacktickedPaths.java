package dev.cdccache.packaging;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.commonmark.node.AbstractVisitor;
import org.commonmark.node.Code;
import org.commonmark.parser.Parser;

/**
 * File names the documentation writes in backticks, and which of them name nothing in the repository.
 *
 * <p>Only code spans are read ({@code `like this`}), never code blocks, whose commands and examples name the
 * reader's files. A span is taken as a repository path when its first word (the program of a command such as
 * {@code `infra/bin/local-run --exit-after-demo`}), without a {@code #anchor} and a leading {@code ./}:
 * <ol>
 * <li>starts with a top-level file or folder of the repository ({@code `infra/bin/local-run`}, {@code `docs/`},
 *     {@code `.ci/run`}, {@code `pom.xml`}): it must exist under the repository root;</li>
 * <li>starts with {@code ../}: it must exist relative to the page's folder;</li>
 * <li>otherwise contains a {@code /} and ends in a file extension of {@link #PATH_EXTENSIONS}
 *     ({@code `src/main/resources/application.yml`}): it must exist relative to the page's folder, or be how the
 *     path of some repository file ends (a path inside a module);</li>
 * <li>otherwise is a bare file name ending in one of {@link #SOURCE_EXTENSIONS} ({@code `setup.sql`},
 *     {@code `CouponLookup.java`}): some repository file must have that name. Other bare names ({@code `my.cnf`},
 *     {@code `connector.yml`}, {@code `kafka-configs.sh`}) are as often the reader's files or another product's
 *     tools, so they are not checked.</li>
 * </ol>
 * Never taken as paths: spans with a {@code :} (URLs, {@code key: value}), spans starting with {@code /}, {@code ~},
 * {@code -} or {@code $} (HTTP paths such as {@code `/actuator/health`}, paths on the reader's machine, options,
 * variables), and paths through a {@code target} folder (build output) or {@code META-INF} (inside a jar).
 * A placeholder ({@code ...}, {@code …}, {@code <name>}, {@code {id}}) ends the checked part: the folder before it
 * must exist. A {@code *} is a glob that must match at least one file.
 */
final class BacktickedPaths {

    /** Extensions that make a span with a {@code /} a file path (rule 3). */
    static final Set<String> PATH_EXTENSIONS = Set.of("md", "java", "sql", "sh", "yml", "yaml", "json", "xml", "csv",
            "properties", "png", "svg", "txt", "html", "conf", "kts", "py");
    /** Extensions of bare file names that are checked (rule 4): kinds of file this repository writes itself. */
    static final Set<String> SOURCE_EXTENSIONS = Set.of("java", "sql", "md", "csv");

    private static final Parser PARSER = Parser.builder().build();
    private static final Set<String> SKIPPED_DIRECTORIES = Set.of("target", "node_modules", ".git");
    private static final Set<String> NEVER_PATHS = Set.of("target", "META-INF");
    private static final Pattern PLACEHOLDER = Pattern.compile("\\.\\.\\.|…|<|\\{");

    private final Path root;
    private final List<String> files;
    private final Set<String> topLevel;

    private BacktickedPaths(Path root, List<String> files, Set<String> topLevel) {
        this.root = root;
        this.files = files;
        this.topLevel = topLevel;
    }

    /** The rule applied to the repository at {@code root}: its files (outside build output) and top-level entries. */
    static BacktickedPaths of(Path root) throws IOException {
        List<String> files = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(root)) {
            walk.filter(Files::isRegularFile)
                    .map(root::relativize)
                    .filter(relative -> {
                        for (Path part : relative) {
                            if (SKIPPED_DIRECTORIES.contains(part.toString())) {
                                return false;
                            }
                        }
                        return true;
                    })
                    .forEach(relative -> files.add(relative.toString().replace('\\', '/')));
        }
        Set<String> topLevel;
        try (Stream<Path> entries = Files.list(root)) {
            topLevel = Set.copyOf(entries.map(p -> p.getFileName().toString())
                    .filter(name -> !SKIPPED_DIRECTORIES.contains(name)).toList());
        }
        return new BacktickedPaths(root, List.copyOf(files), topLevel);
    }

    /** The code spans of a page, in order; code blocks are left out. */
    static List<String> codeSpans(String markdown) {
        List<String> spans = new ArrayList<>();
        PARSER.parse(markdown).accept(new AbstractVisitor() {
            @Override
            public void visit(Code code) {
                spans.add(code.getLiteral());
            }
        });
        return spans;
    }

    /** For each span of the page that names a repository path (see the class comment) and finds nothing, why. */
    List<String> missing(Path page, String markdown) {
        List<String> problems = new ArrayList<>();
        for (String span : codeSpans(markdown)) {
            String problem = problem(page, span);
            if (problem != null) {
                problems.add("`" + span + "` " + problem);
            }
        }
        return problems;
    }

    /** Why the span names a missing path, or {@code null} if it names an existing one or, by the rule, no path. */
    String problem(Path page, String span) {
        String path = path(span);
        if (path == null) {
            return null;
        }
        String[] segments = path.split("/");
        String name = segments[segments.length - 1];
        boolean placeholder = PLACEHOLDER.matcher(path).find();
        String checked = placeholder ? folderBeforePlaceholder(path) : path;
        Path folder = root.relativize(page.toAbsolutePath().normalize().getParent());
        if (topLevel.contains(segments[0])) {
            return exists(checked) ? null : "names no file or folder of the repository";
        }
        if (path.startsWith("../")) {
            return exists(folder.resolve(checked).normalize().toString().replace('\\', '/'))
                    ? null : "names no file or folder relative to the page";
        }
        if (path.contains("/") && PATH_EXTENSIONS.contains(extension(name))) {
            if (exists(folder.resolve(checked).normalize().toString().replace('\\', '/'))) {
                return null;
            }
            PathMatcher suffix = FileSystems.getDefault().getPathMatcher("glob:**/" + checked);
            return files.stream().anyMatch(file -> suffix.matches(Path.of(file)))
                    ? null : "names no file of the repository, relative to the page or inside a module";
        }
        if (!path.contains("/") && !placeholder && SOURCE_EXTENSIONS.contains(extension(name))) {
            return files.stream().anyMatch(file -> file.equals(name) || file.endsWith("/" + name))
                    ? null : "is the name of no file in the repository";
        }
        return null;
    }

    /** The path a span could name: its first word without anchor and leading ./, or null if it cannot be a path. */
    private static String path(String span) {
        String trimmed = span.strip();
        if (trimmed.isEmpty()) {
            return null;
        }
        String word = trimmed.split("\\s+")[0];
        int hash = word.indexOf('#');
        if (hash >= 0) {
            word = word.substring(0, hash);
        }
        while (word.startsWith("./")) {
            word = word.substring(2);
        }
        if (word.isEmpty() || word.contains(":") || "/~-$".indexOf(word.charAt(0)) >= 0) {
            return null;
        }
        for (String segment : word.split("/")) {
            if (NEVER_PATHS.contains(segment)) {
                return null;
            }
        }
        return word;
    }

    private static String folderBeforePlaceholder(String path) {
        String before = path.substring(0, PLACEHOLDER.matcher(path).results().findFirst().orElseThrow().start());
        return before.substring(0, before.lastIndexOf('/') + 1);
    }

    private static String extension(String name) {
        int dot = name.lastIndexOf('.');
        return dot <= 0 ? "" : name.substring(dot + 1);
    }

    /** Whether a repository-relative path (a file, a folder ending in / or not, or a glob with *) exists. */
    private boolean exists(String relative) {
        if (relative.isEmpty()) {
            return true;
        }
        if (relative.contains("*")) {
            PathMatcher glob = FileSystems.getDefault().getPathMatcher("glob:" + relative);
            return files.stream().anyMatch(file -> glob.matches(Path.of(file)));
        }
        Path target = root.resolve(relative).normalize();
        return target.startsWith(root) && Files.exists(target);
    }
}
