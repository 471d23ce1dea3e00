package dev.cdccache.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MarkdownSectionTest {

    private final MarkdownSection section = new MarkdownSection("gen");

    @Test
    void appendsTheSectionToAPageWithoutIt() {
        String page = section.apply("# Benchmarks\n\nJMH figures by someone else.\n", "## Mine\nfigures");
        assertThat(page).startsWith("# Benchmarks\n\nJMH figures by someone else.\n\n<!-- BEGIN gen");
        assertThat(page).contains("## Mine\nfigures\n<!-- END gen -->");
    }

    @Test
    void replacesOnlyItsOwnSectionAndKeepsWhatOthersWroteAroundIt() {
        String first = section.apply("# Benchmarks\n\nbefore\n", "old figures");
        String withOthers = first + "\n## Someone else's section\nkeep me\n";
        String second = section.apply(withOthers, "new figures");
        assertThat(second).contains("new figures").doesNotContain("old figures");
        assertThat(second).startsWith("# Benchmarks\n\nbefore\n");
        assertThat(second).endsWith("## Someone else's section\nkeep me\n");
    }
}
