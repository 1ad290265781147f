package io.spyglass.core.partial;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.spyglass.core.plan.Aggregation.Metric;
import io.spyglass.core.plan.Aggregation.MetricKind;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GroupPartialTest {
  private static GroupPartial byCountry() {
    return new GroupPartial(
        List.of("country"),
        List.of(
            new Metric(MetricKind.COUNT, List.of(), "count"),
            new Metric(MetricKind.SUM, List.of(), "sum"),
            new Metric(MetricKind.MIN, List.of(), "min"),
            new Metric(MetricKind.MAX, List.of(), "max"),
            new Metric(MetricKind.AVG, List.of(), "avg"),
            new Metric(MetricKind.COUNT_DISTINCT, List.of(), "users")),
        512,
        1024);
  }

  private static void feed(GroupPartial p, String country, Double value, long user) {
    Object[] key = {country};
    int s = p.group(key);
    p.count(s, 0);
    if (value != null) {
      p.add(s, 1, value);
      p.min(s, 2, value);
      p.max(s, 3, value);
      p.add(s, 4, value);
    }
    p.distinct(s, 5, user);
  }

  private static Map<String, Object> row(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  @Test
  void computesExactMetricsPerGroup() {
    GroupPartial p = byCountry();
    feed(p, "fr", 1.0, 1);
    feed(p, "fr", 3.0, 2);
    feed(p, "fr", null, 2);
    feed(p, "us", null, 7);
    feed(p, "de", -2.5, 9);
    assertThat(p.size()).isEqualTo(3);
    Map<Object, Map<String, Object>> byKey = new HashMap<>();
    for (Map<String, Object> r : p.rows()) {
      byKey.put(r.get("country"), r);
    }
    assertThat(byKey.get("fr"))
        .isEqualTo(
            row(
                "country", "fr", "count", 3L, "sum", 4.0, "min", 1.0, "max", 3.0, "avg", 2.0,
                "users", 2L));
    assertThat(byKey.get("us"))
        .isEqualTo(
            row(
                "country", "us", "count", 1L, "sum", null, "min", null, "max", null, "avg", null,
                "users", 1L));
    assertThat(byKey.get("de").get("avg")).isEqualTo(-2.5);
    assertThat(p.rows().get(0).keySet())
        .containsExactly("country", "count", "sum", "min", "max", "avg", "users");
    Map<String, Object> meta = p.metadata();
    assertThat(meta.get(MetadataKeys.WAS_ESTIMATED)).isEqualTo(false);
    assertThat(meta.get(MetadataKeys.THETA)).isEqualTo(1.0);
    assertThat(meta.get(MetadataKeys.UNIQUES_ESTIMATE)).isEqualTo(3.0);
    assertThat(meta.get(MetadataKeys.FAMILY)).isEqualTo("TUPLE");
    @SuppressWarnings("unchecked")
    Map<String, Map<String, Object>> sd =
        (Map<String, Map<String, Object>>) meta.get(MetadataKeys.STANDARD_DEVIATIONS);
    assertThat(sd.keySet()).containsExactly("1", "2", "3");
    assertThat(sd.get("3")).containsEntry("upperBound", 3.0).containsEntry("lowerBound", 3.0);
  }

  @Test
  void reusesTheScratchKeyWithoutKeepingIt() {
    GroupPartial p = byCountry();
    Object[] scratch = {"fr"};
    int a = p.group(scratch);
    scratch[0] = "us";
    int b = p.group(scratch);
    scratch[0] = "fr";
    assertThat(p.group(scratch)).isEqualTo(a);
    assertThat(b).isNotEqualTo(a);
    assertThat(p.rows()).extracting(r -> r.get("country")).containsExactlyInAnyOrder("fr", "us");
  }

  @Test
  void keyValuesCompareByTypeAndValue() {
    GroupPartial p = new GroupPartial(List.of("k"), List.of(), 16, 16);
    p.group(new Object[] {1});
    p.group(new Object[] {1L});
    p.group(new Object[] {null});
    p.group(new Object[] {null});
    p.group(new Object[] {Map.of("a", 1)});
    p.group(new Object[] {Map.of("a", 1)});
    assertThat(p.size()).isEqualTo(4);
    assertThat(p.rows()).allSatisfy(r -> assertThat(r).containsOnlyKeys("k"));
  }

  @Test
  void groupAllAlwaysHasOneRowAndSaysWhichCountDistinctsAreEstimates() {
    GroupPartial p =
        new GroupPartial(
            List.of(),
            List.of(
                new Metric(MetricKind.COUNT, List.of(), "COUNT(*)"),
                new Metric(MetricKind.SUM, List.of(), "SUM(x)"),
                new Metric(MetricKind.COUNT_DISTINCT, List.of(), "CD")),
            512,
            1024);
    assertThat(p.rows()).containsExactly(row("COUNT(*)", 0L, "SUM(x)", null, "CD", 0L));
    int s = p.group(new Object[0]);
    p.count(s, 0);
    p.add(s, 1, 2.0);
    assertThat(p.group(new Object[0])).isEqualTo(s);
    p.count(s, 0);
    assertThat(p.rows()).containsExactly(row("COUNT(*)", 2L, "SUM(x)", 2.0, "CD", 0L));
    // exact, but with a COUNT DISTINCT it says which columns are estimates: none yet
    assertThat(p.metadata())
        .containsExactly(
            Map.entry("wasEstimated", false), Map.entry("estimatedColumns", List.of()));
    for (long v = 0; v < 100_000; v++) {
      p.distinct(s, 2, Hashing.hashValue(v));
    }
    assertThat(p.metadata())
        .containsExactly(
            Map.entry("wasEstimated", true), Map.entry("estimatedColumns", List.of("CD")));
  }

  @Test
  void groupAllWithoutCountDistinctHasNoMetadata() {
    GroupPartial p =
        new GroupPartial(
            List.of(), List.of(new Metric(MetricKind.COUNT, List.of(), "COUNT(*)")), 512, 1024);
    p.count(p.group(new Object[0]), 0);
    assertThat(p.metadata()).isEmpty();
  }

  @Test
  void samplesGroupsUniformlyBeyondCapacity() {
    int capacity = 64;
    int groups = 20_000;
    GroupPartial p =
        new GroupPartial(
            List.of("id"), List.of(new Metric(MetricKind.COUNT, List.of(), "n")), capacity, 16);
    Object[] key = new Object[1];
    int refused = 0;
    for (int round = 0; round < 2; round++) {
      for (int i = 0; i < groups; i++) {
        key[0] = (long) i;
        int s = p.group(key);
        if (s < 0) {
          refused++;
        } else {
          p.count(s, 0);
        }
      }
    }
    assertThat(refused).isGreaterThan(groups);
    List<Map<String, Object>> rows = p.rows();
    assertThat(rows).hasSize(capacity);
    // Every kept group saw both of its rows: sampling never loses part of a group.
    assertThat(rows).allSatisfy(r -> assertThat(r.get("n")).isEqualTo(2L));
    Map<String, Object> meta = p.metadata();
    assertThat(meta.get(MetadataKeys.WAS_ESTIMATED)).isEqualTo(true);
    double theta = (Double) meta.get(MetadataKeys.THETA);
    assertThat(theta).isLessThan(1.0);
    double estimate = (Double) meta.get(MetadataKeys.UNIQUES_ESTIMATE);
    assertThat(estimate).isCloseTo(capacity / theta, within(1e-6));
    @SuppressWarnings("unchecked")
    Map<String, Map<String, Double>> sd =
        (Map<String, Map<String, Double>>) meta.get(MetadataKeys.STANDARD_DEVIATIONS);
    assertThat(sd.get("3").get("lowerBound")).isLessThanOrEqualTo((double) groups);
    assertThat(sd.get("3").get("upperBound")).isGreaterThanOrEqualTo((double) groups);
    assertThat(sd.get("1").get("lowerBound")).isLessThan(estimate);
    // The kept groups are the ones with the smallest hashes: a fresh state agrees.
    GroupPartial again = p.emptyCopy();
    for (int i = groups - 1; i >= 0; i--) {
      key[0] = (long) i;
      int s = again.group(key);
      if (s >= 0) {
        again.count(s, 0);
        again.count(s, 0);
      }
    }
    assertThat(again.rows()).isEqualTo(rows);
  }

  @Test
  void mergeTakesTheSmallerThetaAndTrims() {
    GroupPartial a = Fixtures.group(8);
    GroupPartial b = Fixtures.group(8);
    GroupPartial whole = Fixtures.group(8);
    Object[] scratch = new Object[2];
    for (int v = 0; v < 500; v++) {
      Fixtures.feedGroup(v < 100 ? a : b, v, scratch);
      Fixtures.feedGroup(whole, v, scratch);
    }
    a.merge(b);
    assertThat(a.rows()).hasSize(8).isEqualTo(whole.rows());
    assertThat(a.theta()).isEqualTo(whole.theta());
  }

  @Test
  void refusesWrongKeysAndOtherParameters() {
    GroupPartial p = byCountry();
    assertThatThrownBy(() -> p.group(new Object[] {"a", "b"}))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> p.merge(Fixtures.group(512)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new GroupPartial(List.of(), List.of(), 0, 16))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void resetForgetsGroupsAndTheta() {
    GroupPartial p = Fixtures.group(4);
    Object[] scratch = new Object[2];
    for (int v = 0; v < 100; v++) {
      Fixtures.feedGroup(p, v, scratch);
    }
    assertThat(p.theta()).isLessThan(1.0);
    p.reset();
    assertThat(p.isEmpty()).isTrue();
    assertThat(p.theta()).isEqualTo(1.0);
    assertThat(p.rows()).isEmpty();
    Fixtures.feedGroup(p, 3, scratch);
    assertThat(p.rows()).hasSize(1);
    assertThat(p.rows().get(0).get("n")).isEqualTo(1L);
  }

  @Test
  void roundTripsWithSampling() {
    GroupPartial p = Fixtures.group(16);
    Object[] scratch = new Object[2];
    for (int v = 0; v < 300; v++) {
      Fixtures.feedGroup(p, v, scratch);
    }
    GroupPartial back = (GroupPartial) Partials.decode(Partials.encode(p));
    assertThat(back.rows()).isEqualTo(p.rows());
    assertThat(back.metadata()).isEqualTo(p.metadata());
    assertThat(Partials.encode(back)).isEqualTo(Partials.encode(p));
  }
}
