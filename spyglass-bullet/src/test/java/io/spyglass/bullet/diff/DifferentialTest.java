package io.spyglass.bullet.diff;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.spyglass.bullet.BulletReferee;
import io.spyglass.core.result.Result;
import io.spyglass.core.syntax.BqlException;
import io.spyglass.testkit.QueryTestDriver;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Spyglass against Bullet's released engine: seeded generated records and queries ({@link
 * RecordGenerator}, {@link QueryGenerator}) run through both, compared window by window as results
 * (in order for raw records, as multisets otherwise). With the few records each query reads every
 * sketch is exact, so sketch answers compare exactly. A disagreement is either a documented
 * difference the query may meet (its entry in {@code known-differences.txt} points at docs/bql.md)
 * or a failure.
 *
 * <p>{@code -Dspyglass.diff.queries=20000} runs more queries, {@code -Dspyglass.diff.seed=N}
 * repeats a run; the seed is printed with the totals and with every failure. {@code
 * -Dspyglass.diff.report=FILE} writes the totals and every unexplained disagreement to FILE.
 */
class DifferentialTest {
  private static final int RECORDS_PER_SET = 40;
  private static final int QUERIES_PER_SET = 50;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Bullet's defaults where Spyglass's differ only by a setting: 512 groups, as Spyglass. */
  private static final Map<String, Object> SETTINGS =
      Map.of("bullet.query.aggregation.group.max.size", 512);

  @Test
  void spyglassAgreesWithBulletOrTheDifferenceIsDocumented() throws IOException {
    long seed = Long.getLong("spyglass.diff.seed", System.nanoTime());
    int queries = Integer.getInteger("spyglass.diff.queries", 1_000);
    Map<Difference, String> known = KnownDifferences.load();
    BulletReferee bullet = BulletReferee.load(SETTINGS);
    Random random = new Random(seed);
    QueryGenerator generator = new QueryGenerator(random);
    int agreeing = 0;
    int rejectedByBoth = 0;
    Map<Difference, Integer> documented = new EnumMap<>(Difference.class);
    List<String> unexplained = new ArrayList<>();
    List<Map<String, Object>> records = List.of();
    List<String> lines = List.of();
    for (int i = 0; i < queries; i++) {
      if (i % QUERIES_PER_SET == 0) {
        records = RecordGenerator.generate(random, RECORDS_PER_SET);
        lines = new ArrayList<>();
        for (Map<String, Object> r : records) {
          lines.add(JSON.writeValueAsString(r));
        }
      }
      QueryGenerator.Generated q = generator.next();
      BulletReferee.Outcome theirs = bullet.run(q.bql(), records);
      Outcome ours = spyglass(q.bql(), lines);
      String disagreement = compare(theirs, ours, q.ordered());
      if (disagreement == null) {
        if (theirs.rejected()) {
          rejectedByBoth++;
        } else {
          agreeing++;
        }
      } else if (!q.mayDiffer().isEmpty()) {
        Difference kind = java.util.Collections.min(q.mayDiffer());
        documented.merge(kind, 1, Integer::sum);
      } else {
        unexplained.add("query #" + i + ": " + q.bql() + "\n  " + disagreement);
      }
    }
    StringBuilder totals = new StringBuilder();
    totals.append(
        String.format(
            "differential test, seed %d: %d queries, %d agree, %d rejected by both, %d documented"
                + " differences %s, %d unexplained%n",
            seed,
            queries,
            agreeing,
            rejectedByBoth,
            documented.values().stream().mapToInt(Integer::intValue).sum(),
            documented,
            unexplained.size()));
    System.out.print(totals);
    String report = System.getProperty("spyglass.diff.report");
    if (report != null) {
      Files.writeString(Path.of(report), totals + String.join("\n", unexplained));
    }
    assertThat(unexplained)
        .as(
            "disagreements with Bullet that no documented difference explains (seed %d; rerun with"
                + " -Dspyglass.diff.seed=%d); fix them, or document them in docs/bql.md and list them"
                + " in known-differences.txt (documented now: %s)",
            seed, seed, known.values())
        .isEmpty();
  }

  /** What Spyglass made of a query: its errors, or the records of each result. */
  private record Outcome(List<String> errors, List<List<Map<String, Object>>> windows) {}

  private static Outcome spyglass(String bql, List<String> lines) {
    QueryTestDriver driver = new QueryTestDriver();
    try {
      driver.submit("q", bql);
    } catch (BqlException e) {
      return new Outcome(List.of(e.getMessage()), List.of());
    }
    driver.pipe(lines.toArray(new String[0]));
    driver.finishAll();
    List<List<Map<String, Object>>> windows = new ArrayList<>();
    for (Result r : driver.results("q")) {
      windows.add(r.records());
    }
    return new Outcome(List.of(), windows);
  }

  /** Null when both agree, else what differs. */
  private static String compare(BulletReferee.Outcome theirs, Outcome ours, boolean ordered) {
    if (theirs.rejected() || !ours.errors().isEmpty()) {
      if (theirs.rejected() && !ours.errors().isEmpty()) {
        return null;
      }
      return theirs.rejected()
          ? "Bullet rejects it (" + theirs.errors() + "), Spyglass runs it: " + ours.windows()
          : "Spyglass rejects it (" + ours.errors() + "), Bullet runs it: " + records(theirs);
    }
    List<List<Map<String, Object>>> bulletWindows = records(theirs);
    // Spyglass emits a last, empty window only when no window came before it.
    if (bulletWindows.size() > 1 && bulletWindows.get(bulletWindows.size() - 1).isEmpty()) {
      bulletWindows = bulletWindows.subList(0, bulletWindows.size() - 1);
    }
    if (bulletWindows.size() != ours.windows().size()) {
      return "Bullet emits " + bulletWindows + ", Spyglass " + ours.windows();
    }
    for (int w = 0; w < bulletWindows.size(); w++) {
      List<Object> a = normalize(bulletWindows.get(w));
      List<Object> b = normalize(ours.windows().get(w));
      if (!ordered) {
        a.sort((x, y) -> x.toString().compareTo(y.toString()));
        b.sort((x, y) -> x.toString().compareTo(y.toString()));
      }
      if (!a.equals(b)) {
        return "window " + w + ": Bullet " + a + "\n  Spyglass " + b;
      }
    }
    return null;
  }

  private static List<List<Map<String, Object>>> records(BulletReferee.Outcome o) {
    List<List<Map<String, Object>>> windows = new ArrayList<>();
    o.windows().forEach(w -> windows.add(w.records()));
    return windows;
  }

  private static List<Object> normalize(List<Map<String, Object>> records) {
    List<Object> out = new ArrayList<>();
    for (Map<String, Object> r : records) {
      out.add(normalize(r));
    }
    return out;
  }

  /** Values in one form: maps sorted by key, integers as LONGs, decimals rounded to 1e-9. */
  private static Object normalize(Object v) {
    if (v instanceof Map<?, ?> m) {
      Map<String, Object> out = new TreeMap<>();
      m.forEach((k, x) -> out.put(String.valueOf(k), normalize(x)));
      return out;
    }
    if (v instanceof List<?> l) {
      List<Object> out = new ArrayList<>();
      l.forEach(x -> out.add(normalize(x)));
      return out;
    }
    if (v instanceof Integer || v instanceof Short) {
      return ((Number) v).longValue();
    }
    if (v instanceof Float f) {
      return normalize(Double.parseDouble(Float.toString(f)));
    }
    if (v instanceof Double d) {
      if (d.isNaN() || d.isInfinite() || d == 0) {
        return d == 0 ? 0.0 : d;
      }
      double scale = Math.pow(10, 9 - Math.ceil(Math.log10(Math.abs(d))));
      return "D" + Math.round(d * scale) / scale;
    }
    return v;
  }

  /** The file of documented differences: each kind points at its item in docs/bql.md. */
  static final class KnownDifferences {
    private KnownDifferences() {}

    static Map<Difference, String> load() throws IOException {
      List<String> docs =
          Files.readAllLines(Path.of("..", "docs", "bql.md"), StandardCharsets.UTF_8);
      int section = docs.indexOf("## Differences from Bullet's BQL");
      assertThat(section).as("docs/bql.md has a section of differences from Bullet").isPositive();
      Map<Difference, String> known = new LinkedHashMap<>();
      String text;
      try (var in = DifferentialTest.class.getResourceAsStream("/known-differences.txt")) {
        text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      for (String line : text.split("\n")) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        String[] parts = line.split("\\|");
        Difference kind = Difference.valueOf(parts[0].strip());
        String anchor = parts[1].strip();
        int at = -1;
        for (int i = section; i < docs.size(); i++) {
          if (docs.get(i).contains("**" + anchor + "**")) {
            at = i + 1;
            break;
          }
        }
        assertThat(at)
            .as("known difference %s points at **%s** in docs/bql.md's differences", kind, anchor)
            .isPositive();
        known.put(kind, "docs/bql.md:" + at + " **" + anchor + "**");
      }
      for (Difference d : Difference.values()) {
        assertThat(known).as("known-differences.txt documents %s", d).containsKey(d);
      }
      return known;
    }
  }
}
