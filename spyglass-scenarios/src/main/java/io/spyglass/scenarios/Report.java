package io.spyglass.scenarios;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Where a scenario's findings go: Markdown on the console, a CSV per table and a PNG per chart in
 * the output folder. Correctness problems (a needle not found, a wrong total) are collected apart
 * from timings: they are what the tests check.
 */
public final class Report {
  private final Path out;
  private final PrintStream console;
  private final List<String> problems = new ArrayList<>();
  private final List<Path> files = new ArrayList<>();

  Report(Path out, PrintStream console) {
    this.out = out;
    this.console = console;
    try {
      Files.createDirectories(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public Path out() {
    return out;
  }

  public void heading(String text) {
    console.println();
    console.println("## " + text);
    console.println();
  }

  public void note(String text) {
    console.println(text);
  }

  /** Progress of a long run, on one line. */
  public void progress(String text) {
    console.println("  .. " + text);
    console.flush();
  }

  public void table(Table t) {
    console.println();
    console.println("### " + t.title);
    console.println();
    console.print(t.markdown());
    write(t.name + ".csv", t.csv());
  }

  /** A table saved as CSV only, not printed: raw measurements. */
  public void csv(Table t) {
    write(t.name + ".csv", t.csv());
    console.println("(" + t.rows.size() + " rows: " + out.resolve(t.name + ".csv") + ")");
  }

  /** A file of the run, such as its description. */
  public void file(String name, String content) {
    write(name, content);
  }

  /** A correctness problem: the scenario's answer is wrong, whatever the timings. */
  public void problem(String text) {
    problems.add(text);
    console.println("PROBLEM: " + text);
  }

  public List<String> problems() {
    return List.copyOf(problems);
  }

  List<Path> files() {
    return List.copyOf(files);
  }

  private void write(String file, String content) {
    Path p = out.resolve(file);
    try {
      Files.writeString(p, content, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    files.add(p);
  }

  /** A line chart, saved as {@code name.png}. */
  public Chart chart(String name, String title, String xTitle, String yTitle) {
    return new Chart(name, title, xTitle, yTitle);
  }

  public final class Chart {
    private final String name;
    private final XYChart chart;
    private final Map<String, double[][]> series = new LinkedHashMap<>();
    private boolean logX;
    private boolean logY;

    private Chart(String name, String title, String xTitle, String yTitle) {
      this.name = name;
      this.chart =
          new XYChartBuilder()
              .width(800)
              .height(500)
              .title(title)
              .xAxisTitle(xTitle)
              .yAxisTitle(yTitle)
              .build();
    }

    public Chart logX() {
      logX = true;
      return this;
    }

    public Chart logY() {
      logY = true;
      return this;
    }

    public Chart series(String label, List<? extends Number> xs, List<? extends Number> ys) {
      double[] x = new double[xs.size()];
      double[] y = new double[ys.size()];
      for (int i = 0; i < x.length; i++) {
        x[i] = xs.get(i).doubleValue();
        y[i] = ys.get(i).doubleValue();
      }
      series.put(label, new double[][] {x, y});
      return this;
    }

    /** Renders the chart to {@code name.png}; charts without data points are skipped. */
    public void save() {
      boolean any = false;
      for (Map.Entry<String, double[][]> e : series.entrySet()) {
        double[] x = e.getValue()[0];
        double[] y = e.getValue()[1];
        if (x.length == 0) {
          continue;
        }
        if (logY) {
          for (int i = 0; i < y.length; i++) {
            y[i] = Math.max(y[i], 0.1);
          }
        }
        XYSeries s = chart.addSeries(e.getKey(), x, y);
        s.setMarker(SeriesMarkers.CIRCLE);
        any = true;
      }
      if (!any) {
        return;
      }
      chart.getStyler().setXAxisLogarithmic(logX);
      chart.getStyler().setYAxisLogarithmic(logY);
      chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
      Path p = out.resolve(name + ".png");
      try {
        BitmapEncoder.saveBitmap(chart, p.toString(), BitmapEncoder.BitmapFormat.PNG);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      files.add(p);
      console.println("(chart: " + p + ")");
    }
  }
}
