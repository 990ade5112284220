package dev.idem.chaos;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogarithmicAxis;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The two PNG charts of a scenario, drawn headless with JFreeChart: answers per second, and p50 /
 * p99 latency per second on a log scale; each fault is a labelled vertical marker.
 */
final class Charts {

  private static final int WIDTH = 900;
  private static final int HEIGHT = 360;

  private Charts() {}

  /** Writes {@code <name>-throughput.png} and {@code <name>-latency.png} into {@code dir}. */
  static void write(ChaosRun.Result result, Path dir) throws IOException {
    System.setProperty("java.awt.headless", "true");
    String name = result.scenario().name();
    Timeline timeline = result.timeline();
    XYSeries rate = new XYSeries("answers/s");
    XYSeries p50 = new XYSeries("p50");
    XYSeries p99 = new XYSeries("p99");
    for (int s : timeline.range()) {
      Histogram h = timeline.second(s);
      rate.add(s, h.getTotalCount());
      if (h.getTotalCount() > 0) {
        p50.add(s, Math.max(0.1, Timeline.millis(h, 50)));
        p99.add(s, Math.max(0.1, Timeline.millis(h, 99)));
      }
    }
    JFreeChart throughput =
        ChartFactory.createXYLineChart(
            name + ": throughput",
            "seconds",
            "answers per second",
            new XYSeriesCollection(rate),
            PlotOrientation.VERTICAL,
            false,
            false,
            false);
    XYSeriesCollection latencies = new XYSeriesCollection();
    latencies.addSeries(p50);
    latencies.addSeries(p99);
    JFreeChart latency =
        ChartFactory.createXYLineChart(
            name + ": latency per second",
            "seconds",
            "ms",
            latencies,
            PlotOrientation.VERTICAL,
            true,
            false,
            false);
    LogarithmicAxis log = new LogarithmicAxis("ms (log scale)");
    log.setAllowNegativesFlag(false);
    latency.getXYPlot().setRangeAxis(log);
    for (JFreeChart chart : List.of(throughput, latency)) {
      style(chart.getXYPlot(), result.faults());
    }
    ChartUtils.saveChartAsPNG(
        dir.resolve(name + "-throughput.png").toFile(), throughput, WIDTH, HEIGHT);
    ChartUtils.saveChartAsPNG(dir.resolve(name + "-latency.png").toFile(), latency, WIDTH, HEIGHT);
  }

  private static void style(XYPlot plot, List<FaultMark> faults) {
    plot.setBackgroundPaint(Color.WHITE);
    plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    plot.getRenderer().setSeriesStroke(0, new BasicStroke(1.5f));
    plot.getRenderer().setSeriesStroke(1, new BasicStroke(1.5f));
    for (FaultMark f : faults) {
      ValueMarker marker = new ValueMarker(f.atMillis() / 1000.0);
      marker.setPaint(f.action() == null ? new Color(0, 140, 0) : new Color(200, 0, 0));
      marker.setStroke(
          new BasicStroke(
              1.2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {4, 3}, 0));
      marker.setLabel(f.label());
      marker.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
      marker.setLabelAnchor(RectangleAnchor.TOP_RIGHT);
      marker.setLabelTextAnchor(TextAnchor.TOP_LEFT);
      plot.addDomainMarker(marker);
    }
  }
}
