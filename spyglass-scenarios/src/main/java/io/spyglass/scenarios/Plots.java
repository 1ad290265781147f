package io.spyglass.scenarios;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * A chart drawn from a results CSV when the document is rewritten ({@code <!-- generated: plot ...
 * -->}), saved beside the CSV in the results folder and linked from the document, so that every
 * table of a run has its picture even when the part that measured it draws none. The spec:
 *
 * <pre>
 * plot OUT.png | CSV | x: COLUMN [+ COLUMN ...] | y: COLUMN [; COLUMN ...] [| by: COLUMN]
 *     [| where: COLUMN = VALUE [&amp; COLUMN = max ...]] [| log: x|y|xy] [| title: TEXT]
 * </pre>
 *
 * <p>Paths are relative to the results folder. Numbers on x give a line chart (one series per y
 * column, or per value of the {@code by} column); other values of x give a bar chart. Columns
 * joined with {@code +} on x are one label ("500 x 4 x 10"). {@code where} keeps the rows whose
 * column holds the value ({@code max}: the column's largest number). Every row is drawn, whatever
 * its verdict: the table beside it says which runs held.
 */
final class Plots {
  private final Path results;
  private final Path doc;

  Plots(Path results, Path doc) {
    this.results = results;
    this.doc = doc;
  }

  String render(String spec) throws IOException {
    String[] parts = spec.split("\\|");
    if (parts.length < 4) {
      throw new IllegalArgumentException(
          "A plot is: plot OUT.png | CSV | x: COLUMN | y: COLUMN [| by: COLUMN] ...; not " + spec);
    }
    String out = parts[0].strip();
    String csvPath = parts[1].strip();
    Map<String, String> opts = new LinkedHashMap<>();
    for (int i = 2; i < parts.length; i++) {
      String p = parts[i].strip();
      int colon = p.indexOf(':');
      if (colon < 0) {
        throw new IllegalArgumentException("A plot's option is NAME: VALUE, not " + p);
      }
      opts.put(p.substring(0, colon).strip(), p.substring(colon + 1).strip());
    }
    Csv c = Csv.read(results.resolve(csvPath));
    if (c == null || c.rows().isEmpty()) {
      return PageCheck.NOT_MEASURED + " (" + csvPath + " missing)._\n";
    }
    List<String> xs = List.of(opts.getOrDefault("x", "").split("\\+"));
    List<String> ys = List.of(opts.getOrDefault("y", "").split(";"));
    for (String col : concat(xs, ys)) {
      if (!c.header().contains(col.strip())) {
        throw new IllegalArgumentException(
            "The plot " + out + ": " + csvPath + " has no column " + col.strip());
      }
    }
    List<List<String>> rows = c.rows();
    String where = opts.get("where");
    if (where != null) {
      for (String condition : where.split("&")) {
        String[] kv = condition.split("=", 2);
        String column = kv[0].strip();
        String value = kv[1].strip();
        if (value.equals("max")) {
          double most = Double.NEGATIVE_INFINITY;
          for (List<String> r : rows) {
            most = Math.max(most, c.number(r, column));
          }
          double m = most;
          rows = filter(rows, r -> c.number(r, column) == m);
        } else {
          rows = filter(rows, r -> c.cell(r, column).equals(value));
        }
      }
    }
    String by = opts.get("by");
    String log = opts.getOrDefault("log", "");
    String title = opts.getOrDefault("title", out.replace(".png", ""));
    boolean numeric = xs.size() == 1;
    for (List<String> r : rows) {
      numeric &= !Double.isNaN(c.number(r, xs.get(0).strip()));
    }
    Chart<?, ?> chart =
        numeric
            ? line(c, rows, xs.get(0).strip(), ys, by, log, title)
            : bars(c, rows, xs, ys, by, log, title);
    Path png = results.resolve(out).normalize();
    if (!png.startsWith(results.normalize()) || !out.endsWith(".png")) {
      throw new IllegalArgumentException(
          "A plot is written as a .png inside the results folder, not " + out);
    }
    Files.createDirectories(png.getParent());
    BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
    Path relative = doc.toAbsolutePath().getParent().relativize(png.toAbsolutePath());
    return "!["
        + png.getFileName().toString().replace(".png", "")
        + "]("
        + relative.toString().replace('\\', '/')
        + ")\n";
  }

  private static List<List<String>> filter(
      List<List<String>> rows, java.util.function.Predicate<List<String>> keep) {
    return rows.stream().filter(keep).toList();
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  /** The series of the chart: one per y column, or per value of {@code by} (one y column). */
  private static Map<String, List<List<String>>> series(
      Csv c, List<List<String>> rows, List<String> ys, String by) {
    Map<String, List<List<String>>> out = new LinkedHashMap<>();
    for (List<String> r : rows) {
      String key = by == null ? "" : c.cell(r, by);
      if (by != null && !Double.isNaN(Csv.parse(key))) {
        key = by + " " + key; // "workers 2" rather than "2"
      }
      out.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
    }
    return out;
  }

  private static XYChart line(
      Csv c,
      List<List<String>> rows,
      String x,
      List<String> ys,
      String by,
      String log,
      String title) {
    XYChart chart =
        new XYChartBuilder()
            .width(800)
            .height(500)
            .title(title)
            .xAxisTitle(x)
            .yAxisTitle(ys.size() == 1 ? ys.get(0).strip() : "")
            .build();
    for (Map.Entry<String, List<List<String>>> e : series(c, rows, ys, by).entrySet()) {
      for (String y : ys) {
        List<Double> px = new ArrayList<>();
        List<Double> py = new ArrayList<>();
        for (List<String> r : e.getValue()) {
          double vx = c.number(r, x);
          double vy = c.number(r, y.strip());
          if (!Double.isNaN(vx) && !Double.isNaN(vy) && (!log.contains("y") || vy > 0)) {
            px.add(vx);
            py.add(vy);
          }
        }
        if (px.isEmpty()) {
          continue;
        }
        String name = label(e.getKey(), y.strip(), ys.size());
        XYSeries s = chart.addSeries(name, px, py);
        s.setMarker(SeriesMarkers.CIRCLE);
      }
    }
    chart.getStyler().setXAxisLogarithmic(log.contains("x"));
    chart.getStyler().setYAxisLogarithmic(log.contains("y"));
    chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
    return chart;
  }

  private static CategoryChart bars(
      Csv c,
      List<List<String>> rows,
      List<String> xs,
      List<String> ys,
      String by,
      String log,
      String title) {
    CategoryChart chart =
        new CategoryChartBuilder()
            .width(900)
            .height(500)
            .title(title)
            .xAxisTitle(String.join(" x ", xs.stream().map(String::strip).toList()))
            .yAxisTitle(ys.size() == 1 ? ys.get(0).strip() : "")
            .build();
    for (Map.Entry<String, List<List<String>>> e : series(c, rows, ys, by).entrySet()) {
      for (String y : ys) {
        List<String> labels = new ArrayList<>();
        List<Double> values = new ArrayList<>();
        for (List<String> r : e.getValue()) {
          List<String> parts = new ArrayList<>();
          for (String x : xs) {
            parts.add(c.cell(r, x.strip()));
          }
          double v = c.number(r, y.strip());
          labels.add(String.join(" x ", parts));
          values.add(Double.isNaN(v) ? 0 : v);
        }
        chart.addSeries(label(e.getKey(), y.strip(), ys.size()), labels, values);
      }
    }
    chart.getStyler().setYAxisLogarithmic(log.contains("y"));
    chart.getStyler().setXAxisLabelRotation(20);
    chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
    return chart;
  }

  private static String label(String group, String y, int ys) {
    if (group.isEmpty()) {
      return y;
    }
    return ys == 1 ? group : group + ", " + y;
  }
}
