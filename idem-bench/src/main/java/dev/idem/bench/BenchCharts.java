package dev.idem.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogarithmicAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** The PNG charts of the benchmark reports, drawn headless with JFreeChart. */
final class BenchCharts {

  private static final int WIDTH = 900;
  private static final int HEIGHT = 400;

  private BenchCharts() {}

  /** The folder a report's charts go to: {@code benchmarks/} beside its Markdown file. */
  static Path folder(Path doc) throws IOException {
    Path parent = doc.toAbsolutePath().getParent();
    Path folder = parent.resolve("benchmarks");
    Files.createDirectories(folder);
    return folder;
  }

  /**
   * Lines through points, one series per entry, both axes logarithmic.
   *
   * @param series each series' points as {x, y} pairs, in the order they are drawn
   */
  static void logLines(
      Path file, String title, String x, String y, Map<String, List<double[]>> series)
      throws IOException {
    System.setProperty("java.awt.headless", "true");
    XYSeriesCollection data = new XYSeriesCollection();
    for (Map.Entry<String, List<double[]>> entry : series.entrySet()) {
      XYSeries line = new XYSeries(entry.getKey());
      for (double[] point : entry.getValue()) {
        line.add(point[0], point[1]);
      }
      data.addSeries(line);
    }
    JFreeChart chart =
        ChartFactory.createXYLineChart(
            title, x, y, data, PlotOrientation.VERTICAL, true, false, false);
    XYPlot plot = chart.getXYPlot();
    plot.setDomainAxis(log(x));
    plot.setRangeAxis(log(y));
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
    for (int i = 0; i < series.size(); i++) {
      renderer.setSeriesStroke(i, new BasicStroke(1.8f));
    }
    plot.setRenderer(renderer);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, HEIGHT);
  }

  // Ranges widened to whole powers of ten, so that every axis has labelled ticks.
  private static LogarithmicAxis log(String label) {
    LogarithmicAxis axis = new LogarithmicAxis(label);
    axis.setAllowNegativesFlag(false);
    axis.setAutoRangeNextLogFlag(true);
    return axis;
  }

  /**
   * Horizontal bars, one group per category and one bar per series in it.
   *
   * @param values series, then category, then value
   */
  static void bars(Path file, String title, String axis, Map<String, Map<String, Double>> values)
      throws IOException {
    System.setProperty("java.awt.headless", "true");
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    values.forEach(
        (series, byCategory) ->
            byCategory.forEach((category, value) -> data.addValue(value, series, category)));
    JFreeChart chart =
        ChartFactory.createBarChart(
            title, null, axis, data, PlotOrientation.HORIZONTAL, true, false, false);
    CategoryPlot plot = chart.getCategoryPlot();
    // Names are long ("Spring Integration JdbcLockRegistry"): room for them, not an ellipsis.
    plot.getDomainAxis().setMaximumCategoryLabelWidthRatio(0.35f);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    ChartUtils.saveChartAsPNG(
        file.toFile(), chart, WIDTH, Math.max(HEIGHT, 60 * data.getColumnCount()));
  }
}
