package io.spyglass.core.partial;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.spyglass.core.plan.Aggregation.DistributionKind;
import io.spyglass.core.plan.Aggregation.Points;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * The merge algebra: any split of a stream into partitions, each fed to its own state and merged in
 * a random order (directly, or after an encode/decode round trip), gives the state of the whole
 * stream: exactly for exact states, within the stated error in estimation mode. jqwik prints the
 * seed of a failing try.
 */
class MergeProperties {

  /** Builds one state per partition and merges them, shuffled, into an empty state. */
  private static <P extends Partial> P splitAndMerge(
      Supplier<P> empty,
      BiConsumer<P, Integer> feed,
      List<Integer> stream,
      List<Integer> cuts,
      long seed,
      boolean viaBytes) {
    List<Partial> parts = new ArrayList<>();
    for (List<Integer> part : Fixtures.split(stream, cuts)) {
      P p = empty.get();
      part.forEach(v -> feed.accept(p, v));
      parts.add(viaBytes ? Partials.decode(Partials.encode(p)) : p);
    }
    Collections.shuffle(parts, new Random(seed));
    P merged = empty.get();
    // Fold in two halves then merge them, so merges of merged states are exercised too.
    P left = empty.get();
    for (int i = 0; i < parts.size(); i++) {
      (i % 2 == 0 ? left : merged).merge(parts.get(i));
    }
    merged.merge(left);
    return merged;
  }

  private static <P extends Partial> P whole(
      Supplier<P> empty, BiConsumer<P, Integer> feed, List<Integer> stream) {
    P p = empty.get();
    stream.forEach(v -> feed.accept(p, v));
    return p;
  }

  private static Map<Map<String, Object>, Long> multiset(List<Map<String, Object>> rows) {
    return rows.stream()
        .collect(Collectors.groupingBy(r -> r, HashMap::new, Collectors.counting()));
  }

  @Property(tries = 200)
  void rawMergesToTheWholeStream(
      @ForAll @Size(max = 80) List<@IntRange(min = -1000, max = 1000) Integer> stream,
      @ForAll @Size(max = 6) List<@IntRange(max = 30) Integer> cuts,
      @ForAll @IntRange(min = 1, max = 100) int limit,
      @ForAll long seed,
      @ForAll boolean viaBytes) {
    Supplier<RawPartial> empty = () -> new RawPartial(limit);
    RawPartial merged = splitAndMerge(empty, Fixtures::feedRaw, stream, cuts, seed, viaBytes);
    RawPartial whole = whole(empty, Fixtures::feedRaw, stream);
    if (stream.size() <= limit) {
      assertThat(multiset(merged.rows())).isEqualTo(multiset(whole.rows()));
    } else {
      assertThat(merged.rows()).hasSize(limit);
      Map<Map<String, Object>, Long> all =
          multiset(stream.stream().map(Fixtures::record).collect(Collectors.toList()));
      multiset(merged.rows()).forEach((r, n) -> assertThat(all.get(r)).isGreaterThanOrEqualTo(n));
    }
  }

  @Property(tries = 200)
  void groupsMergeExactlyEvenWhenSampled(
      @ForAll @Size(max = 300) List<@IntRange(min = -500, max = 500) Integer> stream,
      @ForAll @Size(max = 6) List<@IntRange(max = 80) Integer> cuts,
      @ForAll @IntRange(min = 1, max = 100) int capacity,
      @ForAll long seed,
      @ForAll boolean viaBytes) {
    Supplier<GroupPartial> empty = () -> Fixtures.group(capacity);
    Object[] scratch = new Object[2];
    BiConsumer<GroupPartial, Integer> feed = (p, v) -> Fixtures.feedGroup(p, v, scratch);
    GroupPartial merged = splitAndMerge(empty, feed, stream, cuts, seed, viaBytes);
    GroupPartial whole = whole(empty, feed, stream);
    // Kept groups are the smallest hashes of all keys, with complete metrics: same rows, same
    // theta, whatever the split (sums are of whole numbers, so exact in any order).
    assertThat(merged.rows()).isEqualTo(whole.rows());
    assertThat(merged.metadata()).isEqualTo(whole.metadata());
    assertThat(Partials.encode(merged)).isEqualTo(Partials.encode(whole));
  }

  @Property(tries = 100)
  void countDistinctMergesWithinError(
      @ForAll @Size(max = 3000) List<Integer> stream,
      @ForAll @Size(max = 6) List<@IntRange(max = 1000) Integer> cuts,
      @ForAll long seed,
      @ForAll boolean viaBytes) {
    int k = 256;
    Supplier<CountDistinctPartial> empty = () -> Fixtures.countDistinct(k);
    BiConsumer<CountDistinctPartial, Integer> feed = (p, v) -> p.update(v);
    CountDistinctPartial merged = splitAndMerge(empty, feed, stream, cuts, seed, viaBytes);
    CountDistinctPartial whole = whole(empty, feed, stream);
    long truth = stream.stream().distinct().count();
    long estimate = (Long) merged.rows().get(0).get("uniques");
    if (truth < k) {
      assertThat(estimate).isEqualTo(truth);
      assertThat(merged.rows()).isEqualTo(whole.rows());
    } else {
      // Relative standard error about 1/sqrt(k); 5 of them is far beyond chance.
      assertThat((double) estimate).isCloseTo(truth, within(5.0 * truth / Math.sqrt(k)));
    }
  }

  @Property(tries = 100)
  void distributionsMergeWithinRankError(
      @ForAll @Size(max = 2000) List<@IntRange(min = -10_000, max = 10_000) Integer> stream,
      @ForAll @Size(max = 6) List<@IntRange(max = 500) Integer> cuts,
      @ForAll long seed,
      @ForAll boolean viaBytes) {
    int k = 128;
    Supplier<DistributionPartial> empty =
        () -> Fixtures.distribution(DistributionKind.QUANTILE, new Points.Linear(11), k);
    BiConsumer<DistributionPartial, Integer> feed = (p, v) -> p.update(v);
    DistributionPartial merged = splitAndMerge(empty, feed, stream, cuts, seed, viaBytes);
    DistributionPartial whole = whole(empty, feed, stream);
    assertThat(merged.count()).isEqualTo(stream.size());
    if (stream.size() < 2 * k) {
      assertThat(merged.rows()).isEqualTo(whole.rows());
      return;
    }
    List<Integer> sorted = new ArrayList<>(stream);
    Collections.sort(sorted);
    double eps = Sketches.Quantiles.normalizedRankError(k);
    for (Map<String, Object> row : merged.rows()) {
      double q = (Double) row.get("Quantile");
      double v = (Double) row.get("Value");
      // The true rank range of v must come within 3 eps of q.
      int below = lowerBound(sorted, v);
      int atOrBelow = upperBound(sorted, v);
      double n = sorted.size();
      assertThat(q).isBetween(below / n - 3 * eps, atOrBelow / n + 3 * eps);
    }
  }

  private static int lowerBound(List<Integer> sorted, double v) {
    int i = 0;
    while (i < sorted.size() && sorted.get(i) < v) {
      i++;
    }
    return i;
  }

  private static int upperBound(List<Integer> sorted, double v) {
    int i = 0;
    while (i < sorted.size() && sorted.get(i) <= v) {
      i++;
    }
    return i;
  }

  @Property(tries = 100)
  void pmfAndCdfMergeExactlyWhileSmall(
      @ForAll @Size(max = 200) List<@IntRange(min = -50, max = 50) Integer> stream,
      @ForAll @Size(max = 6) List<@IntRange(max = 60) Integer> cuts,
      @ForAll boolean cumulative,
      @ForAll long seed,
      @ForAll boolean viaBytes) {
    DistributionKind kind = cumulative ? DistributionKind.CDF : DistributionKind.PMF;
    Supplier<DistributionPartial> empty =
        () -> Fixtures.distribution(kind, new Points.Linear(7), 256);
    BiConsumer<DistributionPartial, Integer> feed = (p, v) -> p.update(v);
    DistributionPartial merged = splitAndMerge(empty, feed, stream, cuts, seed, viaBytes);
    DistributionPartial whole = whole(empty, feed, stream);
    assertThat(merged.rows().toString()).isEqualTo(whole.rows().toString());
    assertThat(merged.metadata()).isEqualTo(whole.metadata());
  }

  @Property(tries = 100)
  void topKMergesWithinTheCountError(
      @ForAll @Size(max = 3000) List<@IntRange(min = 1, max = 1 << 20) Integer> stream,
      @ForAll @Size(max = 6) List<@IntRange(max = 1000) Integer> cuts,
      @ForAll boolean small,
      @ForAll long seed,
      @ForAll boolean viaBytes) {
    int maxMapSize = small ? 8 : 256;
    Supplier<TopKPartial> empty = () -> Fixtures.topK(50, Optional.empty(), maxMapSize);
    TopKPartial merged = splitAndMerge(empty, Fixtures::feedTopK, stream, cuts, seed, viaBytes);
    TopKPartial whole = whole(empty, Fixtures::feedTopK, stream);
    Map<List<Object>, Long> truth = new HashMap<>();
    TopKPartial probe = empty.get();
    for (int v : stream) {
      probe.reset();
      Fixtures.feedTopK(probe, v);
      Map<String, Object> r = probe.rows().get(0);
      truth.merge(List.of(r.get("item"), r.get("odd")), 1L, Long::sum);
    }
    long maxError = (Long) merged.metadata().get(MetadataKeys.MAXIMUM_COUNT_ERROR);
    if (maxError == 0) {
      assertThat(merged.rows()).isEqualTo(whole.rows());
    }
    for (Map<String, Object> r : merged.rows()) {
      long count = (Long) r.get("count");
      long real = truth.getOrDefault(List.of(r.get("item"), r.get("odd")), 0L);
      assertThat(count).isBetween(real, real + maxError);
    }
    // No false negatives: every tuple truly above the error is reported (k is large enough).
    truth.forEach(
        (key, n) -> {
          if (n > maxError && merged.rows().size() < 50) {
            assertThat(merged.rows())
                .anySatisfy(r -> assertThat(List.of(r.get("item"), r.get("odd"))).isEqualTo(key));
          }
        });
  }
}
