package io.spyglass.core.partial;

import io.spyglass.core.plan.Aggregation.DistributionKind;
import io.spyglass.core.plan.Aggregation.MetricKind;
import io.spyglass.core.plan.Aggregation.Points;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Deterministic ways to feed each partial from a stream of ints, shared by the tests. */
final class Fixtures {
  private Fixtures() {}

  static final String[] GROUP_METRIC_NAMES = {"n", "total", "lo", "hi", "mean", "uniques"};
  static final MetricKind[] GROUP_METRIC_KINDS = {
    MetricKind.COUNT,
    MetricKind.SUM,
    MetricKind.MIN,
    MetricKind.MAX,
    MetricKind.AVG,
    MetricKind.COUNT_DISTINCT
  };

  static Map<String, Object> record(int v) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("id", v);
    r.put("name", "user-" + (v % 7));
    r.put("score", v * 1.5);
    r.put("tags", List.of("t" + (v % 3), v % 2 == 0));
    r.put("big", (long) v << 33);
    r.put("missing", null);
    return r;
  }

  static RawPartial raw(int limit) {
    return new RawPartial(limit);
  }

  static void feedRaw(RawPartial p, int v) {
    p.add(record(v));
  }

  static GroupPartial group(int capacity) {
    return new GroupPartial(
        new String[] {"bucket", "parity"}, GROUP_METRIC_KINDS, GROUP_METRIC_NAMES, capacity, 1024);
  }

  /** Key (v mod 37, parity); value v (nulls skipped for v divisible by 5, as the executor does). */
  static void feedGroup(GroupPartial p, int v, Object[] scratch) {
    scratch[0] = "b" + Math.floorMod(v, 37);
    scratch[1] = v % 2 == 0;
    int s = p.group(scratch);
    if (s < 0) {
      return;
    }
    p.count(s, 0);
    if (v % 5 != 0) {
      p.add(s, 1, v);
      p.min(s, 2, v);
      p.max(s, 3, v);
      p.add(s, 4, v);
    }
    p.distinct(s, 5, v / 3);
  }

  static CountDistinctPartial countDistinct(int nominal) {
    return new CountDistinctPartial(nominal, "uniques");
  }

  static DistributionPartial distribution(DistributionKind kind, Points points, int k) {
    return new DistributionPartial(kind, points, k, 100);
  }

  static TopKPartial topK(int k, Optional<Long> minCount, int maxMapSize) {
    return new TopKPartial(k, minCount, List.of("item", "odd"), "count", maxMapSize);
  }

  /** Skewed: small values are frequent. */
  static void feedTopK(TopKPartial p, int v) {
    int item = Integer.numberOfTrailingZeros(v | 1 << 12) * 10 + Math.floorMod(v, 3);
    p.update(new Object[] {"i" + item, item % 2 == 1});
  }

  static List<List<Integer>> split(List<Integer> stream, List<Integer> cuts) {
    List<List<Integer>> parts = new ArrayList<>();
    int from = 0;
    for (int c : cuts) {
      int to = Math.min(stream.size(), from + c);
      parts.add(stream.subList(from, to));
      from = to;
    }
    parts.add(stream.subList(from, stream.size()));
    return parts;
  }
}
