package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code spyglass query --runtime flink} over a file prints what the embedded runtime prints: the
 * same results of every query, table or JSON, with the same exit code and nothing more on stderr.
 * Only the times differ (when each runtime received the query and emitted a result), so JSON is
 * compared with them left out. One worker gives one order of records for raw queries and record
 * windows; with two, queries whose answers do not depend on that order are compared.
 */
class FlinkRuntimeIT {
  private static final long TIMEOUT_S = 180;

  @TempDir static Path dir;
  private static Path events;
  private static Path anyOrder;
  private static Path fileOrder;
  private static Path wholeRecords;

  @BeforeAll
  static void generate() throws Exception {
    Spyglass.Run gen = Spyglass.run("generate", "--count", "3000", "--seed", "11");
    assertThat(gen.exitCode()).as(gen.toString()).isZero();
    events = dir.resolve("events.json");
    Files.writeString(events, gen.stdout() + "{broken\n");
    anyOrder =
        write(
            "any-order.bql",
            "SELECT COUNT(*) AS n, SUM(duration) AS d, MIN(duration) AS lo, AVG(duration) AS a"
                + " FROM STREAM(MAX, TIME)",
            "SELECT device, COUNT(*) AS n, AVG(demographics.age) AS age FROM STREAM(MAX, TIME)"
                + " GROUP BY device",
            "SELECT COUNT(DISTINCT demographics.country) AS countries FROM STREAM(MAX, TIME)",
            // quantile sketches answer exactly below their k (1,024) values; past it their
            // answers depend on how the stream was split into partials, on either runtime
            "SELECT QUANTILE(duration, LINEAR, 5) FROM STREAM(MAX, TIME) WHERE device = 'desktop'",
            "SELECT FREQ(duration, REGION, 2000, 20000, 5000) FROM STREAM(MAX, TIME)"
                + " WHERE device = 'desktop'",
            "SELECT TOP(3, browser_name) AS n FROM STREAM(MAX, TIME)",
            "SELECT DISTINCT device FROM STREAM(MAX, TIME)",
            "SELECT device, SUM(duration) AS s FROM STREAM(MAX, TIME) GROUP BY device"
                + " HAVING COUNT(*) > 10 ORDER BY s DESC LIMIT 3",
            "SELECT COUNT(*) AS groups FROM (SELECT browser_name, COUNT(*) AS n"
                + " FROM STREAM(MAX, TIME) GROUP BY browser_name)",
            "SELECT CAST(MAX(duration) AS FLOAT) AS f, MAX(duration) / 7 AS d"
                + " FROM STREAM(MAX, TIME)");
    fileOrder =
        write(
            "file-order.bql",
            "SELECT id, status, duration FROM STREAM(MAX, TIME) WHERE status >= 500 LIMIT 20",
            "SELECT id, device FROM STREAM(MAX, TIME) WHERE device = 'car'"
                + " WINDOWING TUMBLING(25, RECORD)",
            "SELECT id FROM STREAM(MAX, TIME) WHERE duration > 100000"
                + " WINDOWING EVERY(1, RECORD, FIRST, 1, RECORD)");
    // whole records hold _read_ms, the time each runtime read them: JSON only, without it
    wholeRecords =
        write(
            "whole-records.bql",
            "SELECT * FROM STREAM(MAX, TIME) WHERE status = 404 LIMIT 3",
            "SELECT * FROM STREAM(MAX, TIME) WHERE device = 'car' WINDOWING TUMBLING(40, RECORD)");
  }

  private static Path write(String name, String... queries) throws Exception {
    Path p = dir.resolve(name);
    Files.write(p, List.of(queries));
    return p;
  }

  @ParameterizedTest
  @CsvSource({
    "any-order, 2, table",
    "any-order, 2, json",
    "file-order, 1, table",
    "file-order, 1, json",
    "whole-records, 1, json"
  })
  void flinkPrintsWhatEmbeddedPrints(String set, int workers, String format) throws Exception {
    Path queries =
        switch (set) {
          case "any-order" -> anyOrder;
          case "file-order" -> fileOrder;
          default -> wholeRecords;
        };
    Spyglass.Run embedded = query(queries, workers, format, "embedded");
    Spyglass.Run flink = query(queries, workers, format, "flink");
    assertThat(embedded.exitCode()).as(embedded.toString()).isZero();
    assertThat(flink.exitCode()).as(flink.toString()).isEqualTo(embedded.exitCode());
    assertThat(stderr(flink)).as(flink.toString()).isEqualTo(stderr(embedded));
    Map<String, List<String>> e = byQuery(embedded.stdout(), format);
    Map<String, List<String>> f = byQuery(flink.stdout(), format);
    assertThat(e.keySet().stream().filter(k -> k.startsWith("q")))
        .hasSize((int) Files.readAllLines(queries).stream().filter(l -> !l.isBlank()).count());
    if (format.equals("json")) {
      // the file's last line is broken: the queries that run to its end say so, once
      assertThat(e.get("bad input").get(0)).contains("malformedJson=1");
    }
    assertThat(f).isEqualTo(e);
  }

  private static Spyglass.Run query(Path queries, int workers, String format, String runtime)
      throws Exception {
    return Spyglass.run(
        new ProcessBuilder(
            Spyglass.command(
                "query",
                "--runtime",
                runtime,
                "--source",
                "file:" + events,
                "--workers",
                Integer.toString(workers),
                "--format",
                format,
                "--queries",
                queries.toString())),
        null,
        TIMEOUT_S);
  }

  /** Stderr without the JVM's own note about incubator modules. */
  private static String stderr(Spyglass.Run r) {
    return r.stderr().lines().filter(l -> !l.contains("incubator modules")).toList().toString();
  }

  /**
   * Each query's output in the order printed: table blocks as printed; JSON results with the times
   * of the run (receive, finish, emit and window start, _read_ms) left out, and their bad input
   * summed per query and reason under "bad input".
   */
  private static Map<String, List<String>> byQuery(String stdout, String format) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    if (format.equals("json")) {
      Map<String, Long> badInput = new TreeMap<>();
      for (String line : stdout.split("\n")) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode r = Spyglass.parse(line);
        ObjectNode query = (ObjectNode) r.at("/meta/query");
        query.remove(List.of("receiveTime", "finishTime"));
        if (r.at("/meta/window").isObject()) {
          ((ObjectNode) r.at("/meta/window")).remove(List.of("emitTime", "startTime"));
        }
        r.get("records").forEach(rec -> ((ObjectNode) rec).remove("_read_ms"));
        // bad input is counted by the readers while results are made elsewhere: which result of
        // a query carries a bad record may differ (docs/results.md), the total per query may not
        JsonNode bad = ((ObjectNode) r.get("meta")).remove("badInput");
        String id = query.get("id").asText();
        out.computeIfAbsent(id, k -> new ArrayList<>()).add(r.toString());
        // a query that ends at its LIMIT before the input does: whether the readers counted a bad
        // record read after its end depends on when its end reached them (on the job, through
        // the combiner), so its bad input is left out; the queries that run to the end must agree
        String text = query.get("text").asText();
        boolean endsAtItsLimit =
            text.contains(" LIMIT ") && !text.contains("GROUP BY") && !text.contains("WINDOWING");
        if (bad != null && !endsAtItsLimit) {
          for (Map.Entry<String, JsonNode> e : bad.properties()) {
            badInput.merge(id + " " + e.getKey(), e.getValue().asLong(), Long::sum);
          }
        }
      }
      out.put("bad input", List.of(badInput.toString()));
      return out;
    }
    String id = null;
    StringBuilder block = new StringBuilder();
    for (String line : (stdout + "\n== end: x").split("\n")) {
      if (line.startsWith("== ")) {
        if (id != null) {
          // the last block printed ends with the output's end: compared without trailing newlines
          out.computeIfAbsent(id, k -> new ArrayList<>()).add(block.toString().stripTrailing());
        }
        id = line.substring(3, line.indexOf(':'));
        block.setLength(0);
      }
      block.append(line).append('\n');
    }
    return out;
  }
}
