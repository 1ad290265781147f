package io.spyglass.scenarios;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Regenerates the tables of a Markdown document from the raw results of a benchmark run, so that no
 * figure is typed by hand. The document marks each generated block:
 *
 * <pre>
 * &lt;!-- generated: SPEC --&gt;
 * (replaced on every run)
 * &lt;!-- end --&gt;
 * </pre>
 *
 * <p>where SPEC is one of: {@code run} (the run: date, commit, machine, JDK, load); {@code csv
 * PATH} (a CSV file of the results, as a table); {@code jmh REGEX} (the JMH results whose benchmark
 * matches, one row per benchmark and parameters, secondary scores beside the primary one; {@code
 * jmh FILE.json REGEX} reads another file of JMH results than {@code jmh.json}); {@code targets}
 * (each target of the performance work, its figure in this run and whether it is met); {@code image
 * PATH} (a chart of the run); {@code seed NAME} (a scenario's figures beside the published study's:
 * {@link SeedTables}); {@code plot OUT.png | CSV | x: .. | y: ..} (a chart drawn from a CSV of the
 * run, saved beside it: {@link Plots}); {@code spread versus-bullet} (the ratios of several runs:
 * {@link VersusBulletRuns}). Paths are relative to the results folder. A block whose results are
 * missing says so rather than keeping old figures ({@link PageCheck} finds them).
 */
final class BenchReport {
  private static final Pattern BLOCK =
      Pattern.compile("<!-- generated: (.+?) -->\\n.*?<!-- end -->", Pattern.DOTALL);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path results;
  private final Path doc;

  BenchReport(Path results, Path doc) {
    this.results = results;
    this.doc = doc;
  }

  /** Rewrites every generated block of the document; returns how many there were. */
  int regenerate() throws IOException {
    String text = Files.readString(doc, StandardCharsets.UTF_8);
    Matcher m = BLOCK.matcher(text);
    StringBuilder out = new StringBuilder();
    int blocks = 0;
    while (m.find()) {
      String spec = m.group(1).strip();
      String body = render(spec);
      m.appendReplacement(
          out,
          Matcher.quoteReplacement(
              "<!-- generated: " + spec + " -->\n" + body.stripTrailing() + "\n<!-- end -->"));
      blocks++;
    }
    m.appendTail(out);
    Files.writeString(doc, out.toString(), StandardCharsets.UTF_8);
    return blocks;
  }

  private String render(String spec) throws IOException {
    int space = spec.indexOf(' ');
    String kind = space < 0 ? spec : spec.substring(0, space);
    String arg = space < 0 ? "" : spec.substring(space + 1).strip();
    return switch (kind) {
      case "run" -> run();
      case "csv" -> csv(arg);
      case "jmh" -> jmh(arg);
      case "targets" -> targets();
      case "image" -> image(arg);
      case "seed" -> new SeedTables(results).render(arg);
      case "plot" -> new Plots(results, doc).render(arg);
      case "spread" -> {
        if (!arg.equals("versus-bullet")) {
          throw new IllegalArgumentException("Unknown spread: " + arg);
        }
        yield new VersusBulletRuns(results).render();
      }
      default -> throw new IllegalArgumentException("Unknown generated block: " + spec);
    };
  }

  private String missing(String what) {
    return PageCheck.NOT_MEASURED + " (" + what + " missing)._\n";
  }

  // ------------------------------------------------------------------ run

  private String run() throws IOException {
    Path p = results.resolve("run.json");
    if (!Files.exists(p)) {
      return missing("run.json");
    }
    JsonNode r = JSON.readTree(p.toFile());
    StringBuilder sb = new StringBuilder();
    sb.append("| run | ").append(text(r, "start")).append(" |\n");
    sb.append("| :--- | :--- |\n");
    sb.append("| commit | `").append(text(r, "commit")).append("` |\n");
    sb.append("| machine | ")
        .append(text(r, "cores"))
        .append(" cores (")
        .append(text(r, "cpu"))
        .append("), ")
        .append(
            String.format(Locale.ROOT, "%.1f GiB", r.path("memoryBytes").asDouble() / (1L << 30)))
        .append(" |\n");
    sb.append("| JDK | ").append(text(r, "jdk")).append(" |\n");
    sb.append("| OS | ").append(text(r, "os")).append(" |\n");
    sb.append("| load average (1 minute) when it started | ")
        .append(text(r, "loadAverageBefore"))
        .append(" |\n");
    if (r.has("end")) {
      sb.append("| ended | ")
          .append(text(r, "end"))
          .append(String.format(Locale.ROOT, " (%.0f minutes)", r.path("seconds").asDouble() / 60))
          .append(" |\n");
      sb.append("| load average (1 minute) when it ended | ")
          .append(text(r, "loadAverageAfter"))
          .append(" |\n");
    }
    sb.append(loadDuring());
    sb.append("| command | `").append(text(r, "command")).append("` |\n");
    if (r.path("quick").asBoolean(false)) {
      sb.append("| quick | yes: a check of the tooling, not a measurement |\n");
    }
    sb.append(parts());
    return sb.toString();
  }

  /** The load sampled every minute of the run ({@code load.csv}): least, median and most. */
  private String loadDuring() throws IOException {
    Path p = results.resolve("load.csv");
    if (!Files.exists(p)) {
      return "";
    }
    List<List<String>> rows = readCsv(p);
    List<Double> loads = new ArrayList<>();
    for (List<String> r : rows.subList(1, rows.size())) {
      if (r.size() > 1) {
        loads.add(Double.parseDouble(r.get(1)));
      }
    }
    if (loads.isEmpty()) {
      return "";
    }
    loads.sort(null);
    return String.format(
        Locale.ROOT,
        "| load average (1 minute) during the run, sampled every minute (%d samples in"
            + " `load.csv`) | least %.2f, median %.2f, most %.2f |%n",
        loads.size(),
        loads.get(0),
        loads.get(loads.size() / 2),
        loads.get(loads.size() - 1));
  }

  /** The parts of the run that did not run to their end ({@code parts.csv}). */
  private String parts() throws IOException {
    Path p = results.resolve("parts.csv");
    if (!Files.exists(p)) {
      return "";
    }
    List<String> done = new ArrayList<>();
    List<String> not = new ArrayList<>();
    for (List<String> r : readCsv(p).subList(1, readCsv(p).size())) {
      if (r.size() < 3) {
        continue;
      }
      // part, seconds, status[, the cores other processes used meanwhile (publish.sh's
      // other-cpu.py)]; a status of an older file may hold an unquoted comma
      String last = r.get(r.size() - 1);
      boolean cores = r.size() > 3 && !Double.isNaN(Csv.parse(last)) && !last.isBlank();
      String status = String.join(",", r.subList(2, cores ? r.size() - 1 : r.size()));
      if (status.startsWith("done")) {
        double seconds = Double.parseDouble(r.get(1));
        String rerun = status.substring("done".length()).strip();
        String others = cores ? "; others " + last + " cores" : "";
        done.add(
            r.get(0)
                + (seconds < 60
                    ? String.format(Locale.ROOT, " (%.0f s", seconds)
                    : String.format(Locale.ROOT, " (%.0f min", seconds / 60))
                + others
                + (rerun.isEmpty() ? ")" : "; " + rerun.replaceAll("^\\(|\\)$", "") + ")"));
      } else {
        not.add(r.get(0) + ": " + status);
      }
    }
    StringBuilder sb = new StringBuilder();
    sb.append("| parts run | ")
        .append(done.isEmpty() ? "none" : String.join(", ", done))
        .append(" |\n");
    if (!not.isEmpty()) {
      sb.append("| parts not run to their end | ").append(String.join("; ", not)).append(" |\n");
    }
    return sb.toString();
  }

  private static String text(JsonNode n, String field) {
    JsonNode v = n.get(field);
    return v == null || v.isNull() ? "unknown" : v.asText();
  }

  // ------------------------------------------------------------------ csv

  private String csv(String path) throws IOException {
    Path p = results.resolve(path);
    if (!Files.exists(p)) {
      return missing(path);
    }
    List<List<String>> rows = readCsv(p);
    if (rows.isEmpty()) {
      return missing(path + " is empty");
    }
    return markdown(rows.get(0), rows.subList(1, rows.size()));
  }

  static List<List<String>> readCsv(Path p) throws IOException {
    List<List<String>> rows = new ArrayList<>();
    for (String line : Files.readAllLines(p, StandardCharsets.UTF_8)) {
      if (line.isEmpty()) {
        continue;
      }
      List<String> cells = new ArrayList<>();
      StringBuilder cell = new StringBuilder();
      boolean quoted = false;
      for (int i = 0; i < line.length(); i++) {
        char c = line.charAt(i);
        if (quoted) {
          if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
            cell.append('"');
            i++;
          } else if (c == '"') {
            quoted = false;
          } else {
            cell.append(c);
          }
        } else if (c == '"') {
          quoted = true;
        } else if (c == ',') {
          cells.add(cell.toString());
          cell.setLength(0);
        } else {
          cell.append(c);
        }
      }
      cells.add(cell.toString());
      rows.add(cells);
    }
    return rows;
  }

  static String markdown(List<String> header, List<List<String>> rows) {
    StringBuilder sb = new StringBuilder("| ").append(String.join(" | ", header)).append(" |\n|");
    for (int i = 0; i < header.size(); i++) {
      sb.append(i == 0 ? " :--- |" : " ---: |");
    }
    sb.append('\n');
    for (List<String> r : rows) {
      sb.append("| ").append(String.join(" | ", r)).append(" |\n");
    }
    return sb.toString();
  }

  // ------------------------------------------------------------------ jmh

  /** {@code [FILE.json] REGEX}: the JMH results of that file (default jmh.json) that match. */
  private String jmh(String arg) throws IOException {
    String file = "jmh.json";
    String regex = arg;
    int space = arg.indexOf(' ');
    if (space > 0 && arg.substring(0, space).endsWith(".json")) {
      file = arg.substring(0, space);
      regex = arg.substring(space + 1).strip();
    }
    Path p = results.resolve(file);
    if (!Files.exists(p)) {
      return missing(file);
    }
    Pattern wanted = Pattern.compile(regex);
    List<List<String>> rows = new ArrayList<>();
    for (JsonNode run : JSON.readTree(p.toFile())) {
      String name = shortName(run.get("benchmark").asText());
      if (!wanted.matcher(name).find()) {
        continue;
      }
      JsonNode primary = run.get("primaryMetric");
      List<String> row = new ArrayList<>();
      row.add("`" + name + "`");
      row.add(params(run));
      row.add(number(primary.get("score").asDouble()) + " " + unit(primary));
      row.add("± " + number(primary.get("scoreError").asDouble()));
      StringBuilder secondary = new StringBuilder();
      JsonNode more = run.get("secondaryMetrics");
      double cpuNsRate = secondary(run, "cpuNs");
      if (!Double.isNaN(cpuNsRate) && cpuNsRate > 0) {
        secondary
            .append("per CPU-second: ")
            .append(number(primary.get("score").asDouble() * 1e9 / cpuNsRate))
            .append(" ops");
        double bytes = secondary(run, "bytes");
        if (!Double.isNaN(bytes)) {
          secondary.append(", ").append(number(bytes / cpuNsRate * 1e3)).append(" MB");
        }
      }
      if (more != null) {
        for (Map.Entry<String, JsonNode> e : more.properties()) {
          if (e.getKey().startsWith("·") || e.getKey().equals("cpuNs")) {
            continue; // profilers' metrics; CPU time is given as rates per CPU-second above
          }
          secondary
              .append(secondary.length() == 0 ? "" : ", ")
              .append(e.getKey())
              .append(' ')
              .append(number(e.getValue().get("score").asDouble()))
              .append(' ')
              .append(unit(e.getValue()));
        }
      }
      row.add(secondary.toString());
      rows.add(row);
    }
    if (rows.isEmpty()) {
      return missing("no JMH result matches " + regex);
    }
    return markdown(List.of("benchmark", "parameters", "score", "error (99.9%)", "also"), rows);
  }

  /** A secondary score of a JMH result, or NaN. */
  private static double secondary(JsonNode run, String metric) {
    JsonNode more = run.get("secondaryMetrics");
    JsonNode m = more == null ? null : more.get(metric);
    return m == null ? Double.NaN : m.get("score").asDouble();
  }

  /**
   * A JMH result's primary score (records/s) or a secondary rate, per CPU-second of the measuring
   * thread when the benchmark counts its CPU time ({@code cpuNs}), else per wall second.
   */
  private double perCpu(String benchmark, String params, String metric) throws IOException {
    JsonNode run = jmhRun("jmh.json", benchmark, params);
    if (run == null) {
      return Double.NaN;
    }
    double rate =
        metric == null ? run.get("primaryMetric").get("score").asDouble() : secondary(run, metric);
    double cpuNs = secondary(run, "cpuNs");
    return Double.isNaN(cpuNs) || cpuNs <= 0 ? rate : rate * 1e9 / cpuNs;
  }

  private static String shortName(String benchmark) {
    String[] parts = benchmark.split("\\.");
    return parts[parts.length - 2] + "." + parts[parts.length - 1];
  }

  private static String params(JsonNode run) {
    JsonNode params = run.get("params");
    if (params == null) {
      return "";
    }
    Map<String, String> sorted = new TreeMap<>();
    params.properties().forEach(e -> sorted.put(e.getKey(), e.getValue().asText()));
    List<String> out = new ArrayList<>();
    sorted.forEach((k, v) -> out.add(k + "=" + v));
    return String.join(", ", out);
  }

  private static String unit(JsonNode metric) {
    return metric.get("scoreUnit").asText();
  }

  /** Three significant figures, with thousands separators. */
  static String number(double v) {
    if (Double.isNaN(v)) {
      return "n/a";
    }
    double a = Math.abs(v);
    if (a >= 100) {
      return String.format(Locale.ROOT, "%,.0f", v);
    }
    if (a >= 10) {
      return String.format(Locale.ROOT, "%.1f", v);
    }
    return String.format(Locale.ROOT, "%.2f", v);
  }

  // ------------------------------------------------------------------ targets

  /** One target: what, the figure this run gives, the bound, whether it holds. */
  private record Target(String what, double value, String unit, double bound, boolean atLeast) {
    String verdict() {
      if (Double.isNaN(value)) {
        return "not measured";
      }
      return (atLeast ? value >= bound : value <= bound) ? "met" : "not met";
    }
  }

  private String targets() throws IOException {
    List<Target> targets = new ArrayList<>();
    targets.add(
        new Target(
            "10,000 equality queries from JSON bytes, Spyglass / bullet-core per CPU-second"
                + " (median of the runs)",
            versusBullet("equality", "JSON"),
            "x",
            5,
            true));
    targets.add(
        new Target(
            "GROUP BY from JSON bytes, Spyglass / bullet-core per CPU-second (median of the runs)",
            versusBullet("GROUP BY device", "JSON"),
            "x",
            4,
            true));
    targets.add(
        new Target(
            "spyglass query over 1M records with 10,000 needle queries (2 cores)",
            endToEnd(),
            "records/s",
            300_000,
            true));
    targets.add(
        new Target(
            "the same, every needle found (runs that missed one)",
            endToEndMisses(),
            "runs",
            0,
            false));
    targets.add(
        new Target(
            "setting up a query when 10,000 arrive at once (QuerySetupBench.submit, MIX)",
            jmhScore("jmh.json", "QuerySetupBench.submit", "kind=MIX"),
            "µs",
            100,
            false));
    targets.add(
        new Target(
            "the same in a JVM that has done nothing before (single shots, fresh forks)",
            jmhScore("jmh-cold.json", "QuerySetupBench.submit", "kind=MIX"),
            "µs",
            100,
            false));
    targets.add(
        new Target(
            "the selective scan, 3 fields of 1.8 KiB records, per CPU-second (ParseBench.scanOnly)",
            perCpu("ParseBench.scanOnly", "fields=THREE", "bytes") / 1e9,
            "GB/s",
            1.5,
            true));
    for (String workload : List.of("SELECT_STAR", "EVERY_FIELD")) {
      double read = perCpu("FromJsonBench.filter", "path=READ, workload=" + workload, null);
      double first = perCpu("FromJsonBench.filter", "path=PARSE_FIRST, workload=" + workload, null);
      targets.add(
          new Target(
              "queries that read every field ("
                  + workload
                  + "), from JSON: FilterSet.read / parsing first per CPU-second"
                  + " (FromJsonBench)",
              read / first,
              "x",
              1,
              true));
    }
    targets.add(
        new Target(
            "10,000 needle queries, the embedded engine from Kafka / from a file, per CPU-second"
                + " (spyglass bench flink, the same records in the same run)",
            flinkNeedles("records per CPU-second, embedded: from Kafka / from a file"),
            "x",
            0.6,
            true));
    targets.add(
        new Target(
            "the same, the Flink job per slot / the embedded engine from Kafka, per CPU-second",
            flinkNeedles("records per CPU-second"),
            "x",
            0.75,
            true));
    targets.add(
        new Target(
            "the same, p99 from a record's send to Kafka to its result on the Flink job",
            flinkNeedles("p99 latency (ms), Flink job"),
            "ms",
            100,
            false));
    targets.add(
        new Target(
            "cores for Bullet's test 6 (1,004,500 records/s of 4.1 KiB, 400 RAW queries) on the"
                + " Flink job at 70% load (spyglass bench bullet-kafka; Bullet: 1,189.4)",
            cell(
                "bullet-kafka/bullet-kafka-test6.csv",
                r -> r.get(0).equals("1,004,500"),
                "Flink job: cores"),
            "cores",
            12,
            false));
    double jackson = perCpu("ParseBench.jacksonScan", "", "bytes");
    double scan = perCpu("ParseBench.scanOnly", "fields=THREE", "bytes");
    List<List<String>> rows = new ArrayList<>();
    for (Target t : targets) {
      rows.add(
          List.of(
              t.what,
              Double.isNaN(t.value) ? "n/a" : number(t.value) + " " + t.unit,
              (t.atLeast ? ">= " : "<= ") + number(t.bound) + " " + t.unit,
              t.verdict()));
    }
    String table = markdown(List.of("target", "this run", "bound", ""), rows);
    if (!Double.isNaN(jackson) && !Double.isNaN(scan)) {
      table +=
          String.format(
              Locale.ROOT,
              "%nIn the same run Jackson's streaming parser reads the same bytes at %s MB per"
                  + " CPU-second: the scan is %.1f times as fast. JMH's errors (99.9%%) are %.0f%%"
                  + " of the scan's score and %.0f%% of Jackson's.%n",
              number(jackson / 1e6),
              scan / jackson,
              relativeError("ParseBench.scanOnly", "fields=THREE"),
              relativeError("ParseBench.jacksonScan", ""));
    }
    return table;
  }

  /**
   * A column of {@code spyglass bench flink}'s ratios for the needle queries, at the most slots
   * run; NaN when not measured.
   */
  private double flinkNeedles(String column) throws IOException {
    Path p = results.resolve("flink/flink-ratios.csv");
    if (!Files.exists(p)) {
      return Double.NaN;
    }
    List<List<String>> rows = readCsv(p);
    int slots = rows.get(0).indexOf("slots");
    List<String> best = null;
    for (List<String> r : rows.subList(1, rows.size())) {
      if (r.get(0).endsWith("needles")
          && (best == null || parse(r.get(slots)) >= parse(best.get(slots)))) {
        best = r;
      }
    }
    return best == null ? Double.NaN : value(rows.get(0), best, column);
  }

  /** The cell of a results CSV in {@code column} of the first row that {@code which} picks. */
  private double cell(String path, java.util.function.Predicate<List<String>> which, String column)
      throws IOException {
    Path p = results.resolve(path);
    if (!Files.exists(p)) {
      return Double.NaN;
    }
    List<List<String>> rows = readCsv(p);
    for (List<String> r : rows.subList(1, rows.size())) {
      if (which.test(r)) {
        return value(rows.get(0), r, column);
      }
    }
    return Double.NaN;
  }

  private static double value(List<String> header, List<String> row, String column) {
    int i = header.indexOf(column);
    return i < 0 || i >= row.size() ? Double.NaN : parse(row.get(i));
  }

  /** A formatted number of a results CSV ("1,189.4", "0.78", "n/a"); NaN when not a number. */
  private static double parse(String cell) {
    try {
      return Double.parseDouble(cell.replace(",", "").replace("x", "").strip());
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }

  /**
   * The CPU-second ratio of the versus-bullet rows whose workload and input contain these: the
   * median over the publication's runs of versus-bullet ({@link VersusBulletRuns}).
   */
  private double versusBullet(String workload, String input) throws IOException {
    return new VersusBulletRuns(results).median(workload, input);
  }

  private double endToEnd() throws IOException {
    Path p = results.resolve("end-to-end/end-to-end.csv");
    if (!Files.exists(p)) {
      return Double.NaN;
    }
    List<List<String>> rows = readCsv(p);
    int col = rows.get(0).indexOf("records/s");
    List<Double> rates = new ArrayList<>();
    for (List<String> r : rows.subList(1, rows.size())) {
      rates.add(Double.parseDouble(r.get(col).replace(",", "")));
    }
    rates.sort(null);
    return rates.isEmpty() ? Double.NaN : rates.get(rates.size() / 2);
  }

  /** How many end-to-end runs did not find every needle. */
  private double endToEndMisses() throws IOException {
    Path p = results.resolve("end-to-end/end-to-end.csv");
    if (!Files.exists(p)) {
      return Double.NaN;
    }
    List<List<String>> rows = readCsv(p);
    int col = rows.get(0).indexOf("needles found");
    if (col < 0 || rows.size() < 2) {
      return Double.NaN;
    }
    int misses = 0;
    for (List<String> r : rows.subList(1, rows.size())) {
      String[] found = r.get(col).split("/");
      if (found.length != 2 || !found[0].strip().equals(found[1].strip())) {
        misses++;
      }
    }
    return misses;
  }

  /** A JMH result's error (99.9%) as a percentage of its score. */
  private double relativeError(String benchmark, String params) throws IOException {
    JsonNode run = jmhRun("jmh.json", benchmark, params);
    if (run == null) {
      return Double.NaN;
    }
    JsonNode primary = run.get("primaryMetric");
    return 100 * primary.get("scoreError").asDouble() / primary.get("score").asDouble();
  }

  private double jmhScore(String file, String benchmark, String params) throws IOException {
    JsonNode run = jmhRun(file, benchmark, params);
    return run == null ? Double.NaN : run.get("primaryMetric").get("score").asDouble();
  }

  private JsonNode jmhRun(String file, String benchmark, String params) throws IOException {
    Path p = results.resolve(file);
    if (!Files.exists(p)) {
      return null;
    }
    for (JsonNode run : JSON.readTree(p.toFile())) {
      if (shortName(run.get("benchmark").asText()).equals(benchmark)
          && params(run).contains(params)) {
        return run;
      }
    }
    return null;
  }

  // ------------------------------------------------------------------ image

  private String image(String path) {
    Path p = results.resolve(path);
    if (!Files.exists(p)) {
      return missing(path);
    }
    Path relative = doc.toAbsolutePath().getParent().relativize(p.toAbsolutePath());
    String name = p.getFileName().toString().replace(".png", "");
    return "![" + name + "](" + relative.toString().replace('\\', '/') + ")\n";
  }
}
