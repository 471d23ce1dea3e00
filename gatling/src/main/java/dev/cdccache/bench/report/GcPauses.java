package dev.cdccache.bench.report;

import dev.cdccache.bench.measure.LatencySummary;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;

/**
 * Stop-the-world pauses from unified GC logs ({@code -Xlog:gc}): every line with "Pause" and a duration,
 * e.g. {@code [12.3s][info][gc] GC(7) Pause Young (Normal) (G1 Evacuation Pause) 40M->9M(512M) 3.456ms}.
 * Concurrent phases (no "Pause") are not counted.
 */
public final class GcPauses {

    private static final Pattern PAUSE = Pattern.compile("\\bPause\\b.*?(\\d+(?:\\.\\d+)?)ms\\s*$");

    private final Histogram micros = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
    private double totalMillis;

    /** Adds the pauses of {@code log}, skipping its first {@code skipLines} lines (before the measured load). */
    public GcPauses add(Path log, int skipLines) throws IOException {
        if (!Files.isRegularFile(log)) {
            return this;
        }
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        for (int i = Math.max(0, skipLines); i < lines.size(); i++) {
            addLine(lines.get(i));
        }
        return this;
    }

    /** Adds one log line (ignored unless it reports a pause). */
    public GcPauses addLine(String line) {
        Matcher matcher = PAUSE.matcher(line);
        if (matcher.find()) {
            double millis = Double.parseDouble(matcher.group(1));
            totalMillis += millis;
            micros.recordValue(Math.max(0, Math.round(millis * 1000)));
        }
        return this;
    }

    public long count() {
        return micros.getTotalCount();
    }

    public double totalMillis() {
        return totalMillis;
    }

    public LatencySummary summary() {
        return LatencySummary.of(micros);
    }
}
