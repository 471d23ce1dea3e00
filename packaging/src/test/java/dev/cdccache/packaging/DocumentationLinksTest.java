package dev.cdccache.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.commonmark.ext.heading.anchor.IdGenerator;
import org.commonmark.node.AbstractVisitor;
import org.commonmark.node.Code;
import org.commonmark.node.Heading;
import org.commonmark.node.Image;
import org.commonmark.node.Link;
import org.commonmark.node.Text;
import org.commonmark.parser.Parser;
import org.junit.jupiter.api.Test;

/**
 * No broken links in the documentation: every relative link and image of README.md, docs/*.md and the
 * other Markdown files of the repository points at a file or folder that exists, and every {@code #anchor} at a
 * heading (GitHub's anchor of it) or an explicit {@code id}/{@code name} of the target page. Links are read with
 * a CommonMark parser, so examples inside code blocks and code spans are not links. External links
 * ({@code http:}, {@code https:}, {@code mailto:}) are not fetched: the build runs without internet.
 *
 * <p>File names written in backticks are references too: every code span that by the rule of
 * {@link BacktickedPaths} names a repository path ({@code `cdc-connector/sql/setup.sql`}, {@code `setup.sql`},
 * {@code `infra/bin/local-run --exit-after-demo`}) must name an existing file or folder.
 */
class DocumentationLinksTest {

    private static final Parser PARSER = Parser.builder().build();
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"");
    private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");
    private static final Set<String> SKIPPED_DIRECTORIES = Set.of("target", "node_modules", ".git", ".mvn", "data");

    private final Map<Path, Set<String>> anchorsByFile = new HashMap<>();

    @Test
    void everyRelativeLinkAndAnchorOfTheDocumentationResolves() throws IOException {
        List<Path> pages = markdownFiles();
        assertThat(pages).as("the pages the check covers")
                .contains(Repository.root().resolve("README.md"), Repository.root().resolve("docs/client.md"));
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path page : pages) {
            for (String destination : links(Files.readString(page))) {
                if (SCHEME.matcher(destination).find()) {
                    continue; // external
                }
                checked++;
                String problem = problem(page, destination);
                if (problem != null) {
                    broken.add(Repository.root().relativize(page) + ": (" + destination + ") " + problem);
                }
            }
        }
        assertThat(broken).as("broken links").isEmpty();
        assertThat(checked).as("relative links checked").isGreaterThan(pages.size());
    }

    @Test
    void everyFileNameWrittenInBackticksExists() throws IOException {
        List<Path> pages = markdownFiles();
        assertThat(pages).as("the pages the check covers").contains(Repository.root().resolve("CHANGELOG.md"));
        BacktickedPaths rule = BacktickedPaths.of(Repository.root());
        List<String> missing = new ArrayList<>();
        for (Path page : pages) {
            for (String problem : rule.missing(page, Files.readString(page))) {
                missing.add(Repository.root().relativize(page) + ": " + problem);
            }
        }
        assertThat(missing).as("file names in backticks that name nothing in the repository").isEmpty();
    }

    @Test
    void theBacktickRuleFindsMissingPathsAndLeavesOtherCodeAlone() throws IOException {
        BacktickedPaths rule = BacktickedPaths.of(Repository.root());
        Path readme = Repository.root().resolve("README.md");
        Path example = Repository.root().resolve("examples/coupon-lookup-service/README.md");
        String sample = String.join("\n",
                "Run `infra/bin/local-run --exit-after-demo` after `cdc-connector/sql/setup.sql`; see `docs/client.md#metrics`,",
                "`docs/img/*.png`, `coupon-service/.../caching/hibernate`, `setup.sql` and `.ci/run`.",
                "Broken: `cdc-connector/sql/no-such.sql`, `infra/bin/no-such-script --flag`, `docs/no-such/*.png`,",
                "`infra/no-such/.../x.sh`, `src/main/resources/no-such.yml`, `NoSuchClass.java`, `no-such.sql`, `../../no-such`.",
                "Not paths: `my.cnf`, `connector.yml`, `kafka-configs.sh`, `/actuator/health`, `/tmp/x.md`, `~/.m2/repository`,",
                "`jdbc:mariadb://h/db.sql`, `cdc-connector/target/gone.jar`, `META-INF/spring-configuration-metadata.json`,",
                "`db.table`, `cache.gets`, `caching/hibernate`, `GET /coupons/{id}`.",
                "```",
                "cat no-such.sql infra/no-such.yml",
                "```");
        assertThat(rule.missing(readme, sample)).containsExactly(
                "`cdc-connector/sql/no-such.sql` names no file or folder of the repository",
                "`infra/bin/no-such-script --flag` names no file or folder of the repository",
                "`docs/no-such/*.png` names no file or folder of the repository",
                "`infra/no-such/.../x.sh` names no file or folder of the repository",
                "`src/main/resources/no-such.yml` names no file of the repository, relative to the page or inside a module",
                "`NoSuchClass.java` is the name of no file in the repository",
                "`no-such.sql` is the name of no file in the repository",
                "`../../no-such` names no file or folder relative to the page");
        assertThat(rule.missing(example, "`src/main/resources/application.yml`, `../../mvnw package`, `CouponLookup.java`"))
                .as("paths relative to the page").isEmpty();
    }

    @Test
    void theCheckFindsAMissingFileAndAMissingAnchor() {
        Path readme = Repository.root().resolve("README.md");
        assertThat(problem(readme, "docs/client.md#quick-start-spring-boot")).isNull();
        assertThat(problem(readme, "docs/no-such-page.md")).contains("no such file");
        assertThat(problem(readme, "docs/client.md#no-such-heading")).contains("no heading");
        assertThat(links("see `[x](nowhere.md)` and\n\n```\n[y](nowhere.md)\n```\n[z](docs/client.md)"))
                .as("code is not a link").containsExactly("docs/client.md");
    }

    @Test
    void anchorsAreThoseGitHubGivesHeadings() {
        assertThat(anchors("# `topic-prefix` must be the connector's\n## Metrics (Micrometer; all tagged `client=<client-id>-<n>`)\n"
                + "## Metrics (Micrometer; all tagged `client=<client-id>-<n>`)\n<a name=\"manual\"></a>\n"))
                .containsExactlyInAnyOrder("topic-prefix-must-be-the-connectors",
                        "metrics-micrometer-all-tagged-clientclient-id-n",
                        "metrics-micrometer-all-tagged-clientclient-id-n-1", "manual");
    }

    /** Why a relative link does not resolve, or {@code null} if it does. */
    private String problem(Path page, String destination) {
        int hash = destination.indexOf('#');
        String path = URLDecoder.decode(hash < 0 ? destination : destination.substring(0, hash), StandardCharsets.UTF_8);
        String anchor = hash < 0 ? null : destination.substring(hash + 1);
        Path target = path.isEmpty() ? page : page.getParent().resolve(path).normalize();
        if (!target.startsWith(Repository.root())) {
            return "points outside the repository";
        }
        if (!Files.exists(target)) {
            return "no such file";
        }
        if (anchor == null || anchor.isEmpty()) {
            return null;
        }
        if (!target.toString().endsWith(".md")) {
            return anchor.matches("L\\d+(-L\\d+)?") ? null : "anchor on a file that is not Markdown";
        }
        Set<String> anchors = anchorsByFile.computeIfAbsent(target, file -> {
            try {
                return anchors(Files.readString(file));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        return anchors.contains(anchor) ? null : "no heading with anchor #" + anchor + " in " + Repository.root().relativize(target);
    }

    /** The link and image destinations of a page, in order. */
    static List<String> links(String markdown) {
        List<String> destinations = new ArrayList<>();
        PARSER.parse(markdown).accept(new AbstractVisitor() {
            @Override
            public void visit(Link link) {
                destinations.add(link.getDestination());
                visitChildren(link);
            }

            @Override
            public void visit(Image image) {
                destinations.add(image.getDestination());
            }
        });
        return destinations;
    }

    /** The anchors of a page: GitHub's id of each heading (lower case, punctuation dropped, -n for repeats). */
    static Set<String> anchors(String markdown) {
        IdGenerator ids = IdGenerator.builder().build();
        Set<String> anchors = new LinkedHashSet<>();
        PARSER.parse(markdown).accept(new AbstractVisitor() {
            @Override
            public void visit(Heading heading) {
                StringBuilder text = new StringBuilder();
                heading.accept(new AbstractVisitor() {
                    @Override
                    public void visit(Text t) {
                        text.append(t.getLiteral());
                    }

                    @Override
                    public void visit(Code code) {
                        text.append(code.getLiteral());
                    }
                });
                anchors.add(ids.generateId(text.toString()));
            }
        });
        Matcher explicit = HTML_ANCHOR.matcher(markdown);
        while (explicit.find()) {
            anchors.add(explicit.group(1));
        }
        return anchors;
    }

    private static List<Path> markdownFiles() throws IOException {
        try (Stream<Path> files = Files.walk(Repository.root())) {
            return files.filter(p -> p.toString().endsWith(".md") && Files.isRegularFile(p))
                    .filter(p -> {
                        for (Path part : Repository.root().relativize(p)) {
                            if (SKIPPED_DIRECTORIES.contains(part.toString())) {
                                return false;
                            }
                        }
                        return true;
                    })
                    .sorted().toList();
        }
    }
}
