package io.spyglass.core.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.partial.Partial;
import io.spyglass.core.partial.Partials;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.record.Record;
import io.spyglass.core.result.Result;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Splitting a stream into any number of partitions, each with its own filter set, and merging their
 * partials in any order (through the binary format) gives the same result as one partition.
 */
class PartitionMergeProperties {
  private static final List<String> QUERIES =
      List.of(
          "SELECT COUNT(*) AS n, SUM(v) AS s, MIN(v) AS lo, MAX(v) AS hi, AVG(v) AS a"
              + " FROM STREAM(10000, TIME) WHERE v > 2",
          "SELECT k, COUNT(*) AS n, AVG(v) AS a, COUNT(DISTINCT u) AS du FROM STREAM(10000, TIME)"
              + " GROUP BY k",
          "SELECT COUNT(DISTINCT u, k) AS d FROM STREAM(10000, TIME)",
          "SELECT QUANTILE(v, LINEAR, 5) FROM STREAM(10000, TIME)",
          "SELECT FREQ(v, MANUAL, 2, 5, 8) FROM STREAM(10000, TIME)",
          "SELECT TOP(3, k) AS c FROM STREAM(10000, TIME)",
          "SELECT DISTINCT k FROM STREAM(10000, TIME)",
          "SELECT k, v FROM STREAM(10000, TIME) WHERE v >= 7 LIMIT 1000",
          "SELECT k, SUM(v) AS s FROM STREAM(10000, TIME) GROUP BY k HAVING SUM(v) > 20"
              + " ORDER BY s DESC LIMIT 3");

  @Property(tries = 60)
  void anySplitMergedInAnyOrderEqualsOnePartition(
      @ForAll long seed, @ForAll @IntRange(min = 1, max = 6) int partitions) {
    Random random = new Random(seed);
    List<Record> records = new ArrayList<>();
    int n = random.nextInt(400);
    for (int i = 0; i < n; i++) {
      records.add(
          new Record()
              .putString("k", "k" + random.nextInt(7))
              .putLong("v", random.nextInt(10))
              .putString("u", "u" + random.nextInt(50)));
    }
    for (String text : QUERIES) {
      Query q = Query.parse("q", text, QueryLimits.DEFAULTS, 0L);
      List<Map<String, Object>> whole = run(q, records, 1, random);
      List<Map<String, Object>> split = run(q, records, partitions, random);
      assertThat(canonical(split)).as("seed %d, %s", seed, text).isEqualTo(canonical(whole));
    }
  }

  private static List<Map<String, Object>> run(
      Query q, List<Record> records, int partitions, Random random) {
    List<byte[]> encoded = new ArrayList<>();
    List<FilterSet> sets = new ArrayList<>();
    for (int i = 0; i < partitions; i++) {
      FilterSet set =
          new FilterSet(
              QueryLimits.DEFAULTS, () -> 0L, (query, p) -> encoded.add(Partials.encode(p)));
      set.add(q);
      sets.add(set);
    }
    for (Record r : records) {
      FilterSet set = sets.get(random.nextInt(partitions));
      set.process(r);
      if (random.nextInt(50) == 0) {
        set.flush();
      }
    }
    sets.forEach(FilterSet::flush);
    Collections.shuffle(encoded, random);
    List<Result> results = new ArrayList<>();
    QueryCombiner combiner =
        new QueryCombiner(q, QueryLimits.DEFAULTS, (query, r) -> results.add(r), () -> 0L);
    for (byte[] bytes : encoded) {
      Partial p = Partials.decode(bytes);
      combiner.accept(p, 0L);
    }
    combiner.finish(10_000L);
    assertThat(results).hasSize(1);
    return results.get(0).records();
  }

  /** Rows as comparable strings, sorted unless the query orders them. */
  private static List<String> canonical(List<Map<String, Object>> rows) {
    List<String> out = new ArrayList<>();
    for (Map<String, Object> row : rows) {
      Map<String, Object> rounded = new HashMap<>();
      row.forEach(
          (k, v) -> rounded.put(k, v instanceof Double ? Math.round((Double) v * 1e9) / 1e9 : v));
      out.add(new java.util.TreeMap<>(rounded).toString());
    }
    Collections.sort(out);
    return out;
  }
}
