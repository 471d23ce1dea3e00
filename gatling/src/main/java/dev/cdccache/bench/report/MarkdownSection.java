package dev.cdccache.bench.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Replaces one generated section of a Markdown page, between a begin and an end marker, and leaves the
 * rest of the page (other people's sections) untouched. A page without the markers gets the section
 * appended; a missing page is created with a title.
 */
public final class MarkdownSection {

    private final String begin;
    private final String end;

    /** @param id names the section in its markers, e.g. {@code gatling/bin/benchmark-report} */
    public MarkdownSection(String id) {
        this.begin = "<!-- BEGIN " + id + " (generated; edit the generator, not this text) -->";
        this.end = "<!-- END " + id + " -->";
    }

    /** The page with the section's content replaced (or added). */
    public String apply(String page, String content) {
        String section = begin + "\n" + content.strip() + "\n" + end;
        int from = page.indexOf(begin);
        int to = page.indexOf(end);
        if (from >= 0 && to > from) {
            return page.substring(0, from) + section + page.substring(to + end.length());
        }
        String separator = page.isEmpty() || page.endsWith("\n\n") ? "" : page.endsWith("\n") ? "\n" : "\n\n";
        return page + separator + section + "\n";
    }

    /** Rewrites {@code file} with the section replaced. */
    public void write(Path file, String content) throws IOException {
        String page = Files.isRegularFile(file) ? Files.readString(file, StandardCharsets.UTF_8) : "# Benchmarks\n\n";
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, apply(page, content), StandardCharsets.UTF_8);
    }
}
