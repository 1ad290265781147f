package io.spyglass.cli;

import static java.util.stream.Collectors.counting;
import static java.util.stream.Collectors.groupingBy;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Queries of every aggregation over a file of generated records, checked against values computed
 * here from the same records.
 */
class QueryFileIT {
  /** Odd, so that the median is one record's value whatever the rank convention. */
  private static final int COUNT = 1001;

  @TempDir static Path dir;
  private static Path events;
  private static List<JsonNode> records;

  /** Each query of the suite with the check of its final result. */
  private static final Map<String, Consumer<JsonNode>> QUERIES = new LinkedHashMap<>();

  @BeforeAll
  static void generate() throws Exception {
    Spyglass.Run gen = Spyglass.run("generate", "--count", Integer.toString(COUNT), "--seed", "7");
    assertThat(gen.exitCode()).as(gen.toString()).isZero();
    events = dir.resolve("events.json");
    Files.writeString(events, gen.stdout());
    records = gen.json();
    assertThat(records).hasSize(COUNT);

    QUERIES.put(
        "SELECT id, status FROM STREAM(MAX, TIME) WHERE status >= 500", QueryFileIT::checkRaw);
    QUERIES.put(
        "SELECT device, COUNT(*) AS n, SUM(duration) AS s FROM STREAM(MAX, TIME) GROUP BY device",
        QueryFileIT::checkGroupBy);
    QUERIES.put(
        "SELECT COUNT(DISTINCT demographics.country) AS c FROM STREAM(MAX, TIME)",
        QueryFileIT::checkCountDistinct);
    QUERIES.put(
        "SELECT QUANTILE(duration, MANUAL, 0.0, 0.5, 1.0) FROM STREAM(MAX, TIME)",
        QueryFileIT::checkQuantile);
    QUERIES.put(
        "SELECT FREQ(duration, MANUAL, 1000, 5000) FROM STREAM(MAX, TIME)", QueryFileIT::checkFreq);
    QUERIES.put(
        "SELECT CUMFREQ(duration, MANUAL, 1000, 5000) FROM STREAM(MAX, TIME)",
        QueryFileIT::checkCumFreq);
    QUERIES.put("SELECT TOP(3, browser_name) AS n FROM STREAM(MAX, TIME)", QueryFileIT::checkTopK);
  }

  @Test
  void everyAggregationAloneGivesExactResults() throws Exception {
    for (Map.Entry<String, Consumer<JsonNode>> q : QUERIES.entrySet()) {
      Spyglass.Run run =
          Spyglass.run("query", "--source", "file:" + events, "--format", "json", q.getKey());
      assertThat(run.exitCode()).as(run.toString()).isZero();
      List<JsonNode> results = run.json();
      assertThat(results).as(run.toString()).hasSize(1);
      JsonNode result = results.get(0);
      assertThat(result.at("/meta/final").asBoolean()).isTrue();
      assertThat(result.at("/meta/query/id").asText()).isEqualTo("q1");
      assertThat(result.at("/meta/query/text").asText()).isEqualTo(q.getKey());
      q.getValue().accept(result.get("records"));
    }
  }

  @Test
  void everyAggregationTogetherInOnePass() throws Exception {
    Path file = dir.resolve("queries.bql");
    Files.writeString(
        file,
        "# every aggregation\n\n" + String.join("\n", QUERIES.keySet()) + "\n",
        StandardCharsets.UTF_8);
    Spyglass.Run run =
        Spyglass.run(
            "query",
            "--source",
            "file:" + events,
            "--format",
            "json",
            "--queries",
            file.toString());
    assertThat(run.exitCode()).as(run.toString()).isZero();
    List<String> texts = new ArrayList<>(QUERIES.keySet());
    assertThat(run.json()).hasSize(texts.size());
    for (int i = 0; i < texts.size(); i++) {
      List<JsonNode> results = run.results("q" + (i + 1));
      assertThat(results).as(run.toString()).hasSize(1);
      JsonNode result = results.get(0);
      assertThat(result.at("/meta/final").asBoolean()).isTrue();
      assertThat(result.at("/meta/query/text").asText()).isEqualTo(texts.get(i));
      QUERIES.get(texts.get(i)).accept(result.get("records"));
    }
  }

  @Test
  void recordWindowsEndingWithTheFileEndWithAFinalResult() throws Exception {
    long matches = records.stream().filter(r -> r.get("status").asInt() >= 500).count();
    Path file = dir.resolve("windows.bql");
    // 1001 records: 143 windows of 7 end exactly with the file, as each match does
    Files.writeString(
        file,
        "SELECT id FROM STREAM(MAX, TIME) WINDOWING TUMBLING(7, RECORD)\n"
            + "SELECT id FROM STREAM(MAX, TIME) WHERE status >= 500"
            + " WINDOWING EVERY(1, RECORD, FIRST, 1, RECORD)\n");
    Spyglass.Run run =
        Spyglass.run(
            "query",
            "--source",
            "file:" + events,
            "--format",
            "json",
            "--queries",
            file.toString());
    assertThat(run.exitCode()).as(run.toString()).isZero();
    for (String id : List.of("q1", "q2")) {
      List<JsonNode> results = run.results(id);
      JsonNode last = results.get(results.size() - 1);
      assertThat(last.at("/meta/final").asBoolean()).as(id).isTrue();
      assertThat(last.at("/meta/errors").isMissingNode()).as(id).isTrue();
      assertThat(results.subList(0, results.size() - 1))
          .noneMatch(r -> r.at("/meta/final").asBoolean());
    }
    assertThat(run.results("q1")).hasSize(COUNT / 7 + 1);
    assertThat(run.results("q2")).hasSize((int) matches + 1);
  }

  @Test
  void eventTimeWindowsOfAForeverQueryEndWithTheFile() throws Exception {
    // Three hours of records a minute apart, a few out of order within the lateness, two for the
    // first hour read after 01:10 and one without a time. Whether those two are late depends on
    // whether a tick moved the watermark past 01:10 before they were read; either way each is
    // counted once, in its window or as late.
    long hour = 3_600_000L;
    StringBuilder lines = new StringBuilder();
    for (int minute = 0; minute < 180; minute++) {
      long ts = minute * 60_000L;
      if (minute % 17 == 5) {
        ts -= 5 * 60_000L; // five minutes behind
      }
      lines.append("{\"account\": \"a").append(minute % 2).append("\", \"ts\": ").append(ts);
      lines.append("}\n");
      if (minute == 75 || minute == 100) {
        lines.append("{\"account\": \"a0\", \"ts\": 1000}\n");
      }
    }
    lines.append("{\"account\": \"a0\", \"ts\": \"noon\"}\n");
    Path file = dir.resolve("usage.json");
    Files.writeString(file, lines);
    String query =
        "SELECT account, COUNT(*) AS n FROM STREAM(FOREVER) GROUP BY account"
            + " WINDOWING TUMBLING(1h, EVENT_TIME(ts), LATENESS 10m)";
    Spyglass.Run run = Spyglass.run("query", "--source", "file:" + file, "--format", "json", query);
    assertThat(run.exitCode()).as(run.toString()).isZero();
    List<JsonNode> windows =
        run.json().stream().filter(r -> !r.at("/meta/window/lateUpdate").asBoolean()).toList();
    assertThat(windows).as(run.toString()).hasSize(3);
    long[] counts = new long[3];
    for (int w = 0; w < 3; w++) {
      JsonNode r = windows.get(w);
      assertThat(r.at("/meta/window/startTime").asLong()).isEqualTo(w * hour);
      assertThat(r.at("/meta/window/final").asBoolean()).isTrue();
      long n = 0;
      for (JsonNode row : r.get("records")) {
        n += row.get("n").asLong();
      }
      counts[w] = n;
    }
    List<JsonNode> all = run.json();
    JsonNode last = all.get(all.size() - 1);
    long late = last.at("/meta/late").asLong();
    // the record of 02:04 says 01:59: the second hour holds 61 records, the third 59
    assertThat(counts).as(run.toString()).containsExactly(62 - late, 61, 59);
    assertThat(last.at("/meta/final").asBoolean()).isTrue();
    assertThat(last.at("/meta/window/startTime").asLong()).isEqualTo(2 * hour);
    assertThat(last.at("/meta/eventTime/withoutTime").asLong()).isEqualTo(1);
    assertThat(all.stream().filter(r -> r.at("/meta/window/lateUpdate").asBoolean()))
        .allSatisfy(r -> assertThat(r.at("/meta/window/startTime").asLong()).isZero());
  }

  @Test
  void aFileThatFailsMidReadEndsEveryQueryWithTheErrorAndExitsWithOne() throws Exception {
    byte[] gz;
    try (ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        GZIPOutputStream out = new GZIPOutputStream(bytes)) {
      out.write(Files.readAllBytes(events));
      out.finish();
      gz = bytes.toByteArray();
    }
    Path broken = dir.resolve("broken.json.gz");
    // the first half of the compressed file: its records, then an end in the middle of the stream
    Files.write(broken, Arrays.copyOf(gz, gz.length / 2));
    Spyglass.Run run =
        Spyglass.run(
            "query",
            "--source",
            "file:" + broken,
            "--format",
            "json",
            "SELECT COUNT(*) AS n FROM STREAM(MAX, TIME)");
    assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
    JsonNode r = run.json().get(0);
    assertThat(r.at("/meta/final").asBoolean()).isTrue();
    assertThat(r.at("/records/0/n").asLong()).isPositive().isLessThan(COUNT);
    assertThat(r.at("/meta/errors/0/message").asText()).startsWith("The source failed: ");
    assertThat(r.at("/meta/errors/0/fatal").asBoolean()).isTrue();
    assertThat(run.stderr()).contains("spyglass: source file:" + broken + " failed: ");
  }

  @Test
  void tableForPeopleIsAligned() throws Exception {
    Spyglass.Run run =
        Spyglass.run(
            "query",
            "--source",
            "file:" + events,
            "SELECT device, COUNT(*) AS n FROM STREAM(MAX, TIME) GROUP BY device");
    assertThat(run.exitCode()).as(run.toString()).isZero();
    Map<String, Long> expected = countBy("device");
    List<String> lines = run.stdout().lines().toList();
    assertThat(lines.get(0)).isEqualTo("== result (final) | " + expected.size() + " records");
    assertThat(lines.get(1)).matches("device +\\| n");
    assertThat(lines.get(2)).matches("-+-\\+-+");
    int bar = lines.get(1).indexOf('|');
    assertThat(lines.get(2).indexOf('+')).isEqualTo(bar);
    List<String> rows = lines.subList(3, lines.size()).stream().filter(l -> !l.isEmpty()).toList();
    assertThat(rows).hasSize(expected.size());
    Map<String, Long> shown = new HashMap<>();
    for (String row : rows) {
      assertThat(row.indexOf('|')).as("column of | in %s", row).isEqualTo(bar);
      shown.put(row.substring(0, bar).strip(), Long.parseLong(row.substring(bar + 1).strip()));
    }
    assertThat(shown).isEqualTo(expected);
    // the device column is as wide as its longest value
    int widest = expected.keySet().stream().mapToInt(String::length).max().orElseThrow();
    assertThat(bar).isEqualTo(Math.max(widest, "device".length()) + 1);
  }

  @Test
  void readsStandardInput() throws Exception {
    Spyglass.Run run =
        Spyglass.run(
            events,
            "query",
            "--source",
            "-",
            "--format",
            "json",
            "SELECT device, COUNT(*) AS n, SUM(duration) AS s FROM STREAM(MAX, TIME) GROUP BY device");
    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.json()).hasSize(1);
    checkGroupBy(run.json().get(0).get("records"));
  }

  private static void checkRaw(JsonNode rows) {
    Map<String, Long> expected = new HashMap<>();
    for (JsonNode r : records) {
      if (r.get("status").asLong() >= 500) {
        expected.put(r.get("id").asText(), r.get("status").asLong());
      }
    }
    Map<String, Long> got = new HashMap<>();
    for (JsonNode row : rows) {
      assertThat(row.size()).isEqualTo(2);
      got.put(row.get("id").asText(), row.get("status").asLong());
    }
    assertThat(rows).hasSize(expected.size());
    assertThat(got).isNotEmpty().isEqualTo(expected);
  }

  private static void checkGroupBy(JsonNode rows) {
    Map<String, Long> counts = countBy("device");
    Map<String, Double> sums = new HashMap<>();
    for (JsonNode r : records) {
      sums.merge(r.get("device").asText(), r.get("duration").asDouble(), Double::sum);
    }
    assertThat(rows).hasSize(counts.size());
    for (JsonNode row : rows) {
      String device = row.get("device").asText();
      assertThat(row.get("n").asLong()).as(device).isEqualTo(counts.get(device));
      assertThat(row.get("s").asDouble()).as(device).isEqualTo(sums.get(device));
    }
  }

  private static void checkCountDistinct(JsonNode rows) {
    Set<String> countries = new HashSet<>();
    for (JsonNode r : records) {
      countries.add(r.at("/demographics/country").asText());
    }
    assertThat(rows).hasSize(1);
    assertThat(rows.get(0).get("c").asLong()).isEqualTo(countries.size());
  }

  private static double[] sortedDurations() {
    return records.stream().mapToDouble(r -> r.get("duration").asDouble()).sorted().toArray();
  }

  private static void checkQuantile(JsonNode rows) {
    double[] d = sortedDurations();
    assertThat(rows).hasSize(3);
    double[][] expected = {{0.0, d[0]}, {0.5, d[d.length / 2]}, {1.0, d[d.length - 1]}};
    for (int i = 0; i < 3; i++) {
      assertThat(rows.get(i).get("Quantile").asDouble()).isEqualTo(expected[i][0]);
      assertThat(rows.get(i).get("Value").asDouble()).isEqualTo(expected[i][1]);
    }
  }

  /** Records below 1000, in [1000, 5000), and from 5000 up. */
  private static long[] durationBands() {
    long[] bands = new long[3];
    for (double v : sortedDurations()) {
      bands[v < 1000 ? 0 : v < 5000 ? 1 : 2]++;
    }
    return bands;
  }

  private static void checkFreq(JsonNode rows) {
    long[] bands = durationBands();
    assertThat(bands[0]).isPositive();
    assertThat(bands[1]).isPositive();
    assertThat(bands[2]).isPositive();
    String[] ranges = {"(-∞ to 1000.0)", "[1000.0 to 5000.0)", "[5000.0 to +∞)"};
    assertThat(rows).hasSize(3);
    for (int i = 0; i < 3; i++) {
      JsonNode row = rows.get(i);
      assertThat(row.get("Range").asText()).isEqualTo(ranges[i]);
      assertThat(row.get("Count").asDouble()).isEqualTo(bands[i]);
      assertThat(row.get("Probability").asDouble()).isEqualTo((double) bands[i] / COUNT);
    }
  }

  private static void checkCumFreq(JsonNode rows) {
    long[] bands = durationBands();
    long[] cumulative = {bands[0], bands[0] + bands[1], COUNT};
    String[] ranges = {"(-∞ to 1000.0)", "(-∞ to 5000.0)", "(-∞ to +∞)"};
    assertThat(rows).hasSize(3);
    for (int i = 0; i < 3; i++) {
      JsonNode row = rows.get(i);
      assertThat(row.get("Range").asText()).isEqualTo(ranges[i]);
      assertThat(row.get("Count").asDouble()).isEqualTo(cumulative[i]);
      assertThat(row.get("Probability").asDouble()).isEqualTo((double) cumulative[i] / COUNT);
    }
  }

  private static void checkTopK(JsonNode rows) {
    Map<String, Long> counts = countBy("browser_name");
    List<Long> top = counts.values().stream().sorted(Comparator.reverseOrder()).limit(3).toList();
    assertThat(rows).hasSize(3);
    List<Long> got = new ArrayList<>();
    for (JsonNode row : rows) {
      String browser = row.get("browser_name").asText();
      assertThat(row.get("n").asLong()).as(browser).isEqualTo(counts.get(browser));
      got.add(row.get("n").asLong());
    }
    assertThat(got).as("most frequent first").isEqualTo(top);
  }

  private static Map<String, Long> countBy(String field) {
    return records.stream().collect(groupingBy(r -> r.get(field).asText(), counting()));
  }
}
