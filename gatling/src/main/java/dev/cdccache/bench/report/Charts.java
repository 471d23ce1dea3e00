package dev.cdccache.bench.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** PNG plots of the report, drawn with XChart (headless). */
final class Charts {

    private static final int WIDTH = 900;
    private static final int HEIGHT = 500;

    static {
        System.setProperty("java.awt.headless", "true");
    }

    private Charts() {
    }

    /** Lines through points, one line per series: series name -> [x values, y values]. */
    static void lines(Path file, String title, String xTitle, String yTitle, Map<String, double[][]> series,
            boolean logarithmicY) throws IOException {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title)
                .xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.getStyler().setYAxisLogarithmic(logarithmicY);
        series.forEach((name, xy) -> {
            if (xy[0].length > 0) {
                chart.addSeries(name, xy[0], xy[1]).setMarker(SeriesMarkers.CIRCLE);
            }
        });
        save(chart, file);
    }

    /**
     * A histogram from {@code upper_ms -> count} 1 ms buckets, one series per phase, re-bucketed to a common
     * width so that the plot has about a hundred bars whatever the range.
     */
    static void histogram(Path file, String title, Map<String, Map<Long, Long>> phases) throws IOException {
        long maxMs = phases.values().stream().flatMap(m -> m.keySet().stream()).mapToLong(Long::longValue).max().orElse(1);
        long width = Math.max(1, (maxMs + 99) / 100);
        Map<String, Map<Long, Long>> wide = new LinkedHashMap<>();
        phases.forEach((name, buckets) -> {
            Map<Long, Long> merged = new java.util.TreeMap<>();
            buckets.forEach((upper, count) -> merged.merge(((upper - 1) / width + 1) * width, count, Long::sum));
            wide.put(name, merged);
        });
        phases = wide;
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title)
                .xAxisTitle("commit-to-eviction lag (ms, " + width + " ms buckets)").yAxisTitle("changes").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
        chart.getStyler().setDefaultSeriesRenderStyle(org.knowm.xchart.XYSeries.XYSeriesRenderStyle.Step);
        for (Map.Entry<String, Map<Long, Long>> phase : phases.entrySet()) {
            Map<Long, Long> buckets = new LinkedHashMap<>(phase.getValue());
            if (buckets.isEmpty()) {
                continue;
            }
            double[] x = buckets.keySet().stream().mapToDouble(Long::doubleValue).toArray();
            double[] y = buckets.values().stream().mapToDouble(Long::doubleValue).toArray();
            chart.addSeries(phase.getKey(), x, y).setMarker(SeriesMarkers.NONE);
        }
        save(chart, file);
    }

    private static void save(org.knowm.xchart.internal.chartpart.Chart<?, ?> chart, Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    }
}
