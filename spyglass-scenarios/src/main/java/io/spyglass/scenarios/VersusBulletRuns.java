package io.spyglass.scenarios;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The runs of {@code versus-bullet} in one publication: the whole comparison in {@code
 * versus-bullet/}, and further runs of some comparisons, each in a JVM of its own, in {@code
 * versus-bullet/run-N/}. A ratio is published as the median of the runs' ratios (each the median of
 * its alternated pairs) with their spread, and each run's commit beside it ({@code <!-- generated:
 * spread versus-bullet -->}).
 */
final class VersusBulletRuns {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One run: its name, its table, its commit (with "-dirty" when the tree had changes). */
  record Run(String name, Csv table, String commit) {}

  private final List<Run> runs = new ArrayList<>();

  VersusBulletRuns(Path results) throws IOException {
    Path dir = results.resolve("versus-bullet");
    add("1", dir);
    if (Files.isDirectory(dir)) {
      List<Path> more;
      try (Stream<Path> s = Files.list(dir)) {
        more =
            s.filter(p -> p.getFileName().toString().matches("run-\\d+"))
                .sorted(
                    (a, b) ->
                        Integer.compare(
                            Integer.parseInt(a.getFileName().toString().substring(4)),
                            Integer.parseInt(b.getFileName().toString().substring(4))))
                .toList();
      }
      for (Path p : more) {
        add(p.getFileName().toString().substring(4), p);
      }
    }
  }

  private void add(String name, Path dir) throws IOException {
    Csv table = Csv.read(dir.resolve("versus-bullet.csv"));
    if (table == null) {
      return;
    }
    String commit = "unknown";
    Path run = dir.resolve("run.json");
    if (Files.exists(run)) {
      JsonNode n = JSON.readTree(run.toFile());
      commit = n.path("commit").asText("unknown");
    }
    runs.add(new Run(name, table, commit));
  }

  List<Run> runs() {
    return runs;
  }

  /** The CPU-second ratio of each run that compared the workload on the input (NaN if none). */
  List<Double> ratios(String workload, String input) {
    List<Double> out = new ArrayList<>();
    for (Run r : runs) {
      List<String> row =
          r.table.first(x -> x.get(0).contains(workload) && x.get(1).contains(input));
      if (row != null) {
        out.add(r.table.number(row, "ratio (CPU)"));
      }
    }
    return out;
  }

  /** The median of the runs' ratios, NaN when no run compared them. */
  double median(String workload, String input) {
    List<Double> r = new ArrayList<>(ratios(workload, input));
    r.removeIf(d -> Double.isNaN(d));
    if (r.isEmpty()) {
      return Double.NaN;
    }
    r.sort(null);
    int n = r.size();
    return n % 2 == 1 ? r.get(n / 2) : (r.get(n / 2 - 1) + r.get(n / 2)) / 2;
  }

  /** The table of every comparison more than one run made, each run's ratio, median and range. */
  String render() {
    if (runs.isEmpty()) {
      return PageCheck.NOT_MEASURED + " (versus-bullet/versus-bullet.csv missing)._\n";
    }
    Map<String, List<String>> keys = new LinkedHashMap<>();
    for (Run r : runs) {
      for (List<String> row : r.table.rows()) {
        keys.putIfAbsent(row.get(0) + "\u0000" + row.get(1), List.of(row.get(0), row.get(1)));
      }
    }
    List<String> header = new ArrayList<>(List.of("workload", "input"));
    for (Run r : runs) {
      header.add("run " + r.name);
    }
    header.add("median of the runs");
    header.add("least-most");
    List<List<String>> rows = new ArrayList<>();
    for (List<String> key : keys.values()) {
      List<String> row = new ArrayList<>(key);
      List<Double> found = new ArrayList<>();
      for (Run r : runs) {
        List<String> x =
            r.table.first(y -> y.get(0).equals(key.get(0)) && y.get(1).equals(key.get(1)));
        double v = x == null ? Double.NaN : r.table.number(x, "ratio (CPU)");
        row.add(Double.isNaN(v) ? "" : BenchReport.number(v) + "x");
        if (!Double.isNaN(v)) {
          found.add(v);
        }
      }
      if (found.size() < 2) {
        continue;
      }
      found.sort(null);
      double median = median(key.get(0), key.get(1));
      row.add(BenchReport.number(median) + "x");
      row.add(
          BenchReport.number(found.get(0)) + "-" + BenchReport.number(found.get(found.size() - 1)));
      rows.add(row);
    }
    StringBuilder sb = new StringBuilder();
    if (rows.isEmpty()) {
      sb.append(
          PageCheck.NOT_MEASURED
              + " (one run of versus-bullet only: versus-bullet/run-2/ missing)._\n");
    } else {
      sb.append(BenchReport.markdown(header, rows));
    }
    sb.append(
        "\nRatios per CPU-second of the measuring thread, Spyglass / Bullet, each run's the"
            + " median of its alternated pairs; runs at ");
    List<String> commits = new ArrayList<>();
    for (Run r : runs) {
      String c =
          r.commit.length() > 7 && !r.commit.startsWith("unknown")
              ? r.commit.substring(0, 7)
                  + (r.commit.endsWith("-dirty") ? " with uncommitted changes" : "")
              : r.commit;
      commits.add("run " + r.name + " `" + c + "`");
    }
    sb.append(String.join(", ", commits)).append(".\n");
    return sb.toString();
  }
}
