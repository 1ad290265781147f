package io.spyglass.core.partial;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TopKPartialTest {
  private static TopKPartial feed(int k, Optional<Long> minCount) {
    TopKPartial p = new TopKPartial(k, minCount, List.of("country", "os"), "hits", 64);
    String[][] tuples = {{"fr", "ios"}, {"us", "android"}, {"de", "ios"}};
    int[] counts = {5, 9, 2};
    for (int t = 0; t < tuples.length; t++) {
      for (int i = 0; i < counts[t]; i++) {
        p.update(tuples[t]);
      }
    }
    p.update(GroupKey.of("us", null));
    return p;
  }

  @Test
  void exactCountsSortedDescending() {
    TopKPartial p = feed(10, Optional.empty());
    assertThat(p.rows())
        .containsExactly(
            Map.of("country", "us", "os", "android", "hits", 9L),
            Map.of("country", "fr", "os", "ios", "hits", 5L),
            Map.of("country", "de", "os", "ios", "hits", 2L),
            row("us", null, 1L));
    assertThat(p.rows().get(0).keySet()).containsExactly("country", "os", "hits");
    assertThat(p.metadata())
        .containsEntry(MetadataKeys.WAS_ESTIMATED, false)
        .containsEntry(MetadataKeys.FAMILY, "FREQUENCY")
        .containsEntry(MetadataKeys.MAXIMUM_COUNT_ERROR, 0L)
        .containsEntry(MetadataKeys.ACTIVE_ITEMS, 4)
        .containsEntry(MetadataKeys.ITEMS_SEEN, 17L);
  }

  private static Map<String, Object> row(String country, String os, long hits) {
    Map<String, Object> m = new HashMap<>();
    m.put("country", country);
    m.put("os", os);
    m.put("hits", hits);
    return m;
  }

  @Test
  void keepsKAndMinCount() {
    assertThat(feed(2, Optional.empty()).rows())
        .extracting(r -> r.get("hits"))
        .containsExactly(9L, 5L);
    assertThat(feed(10, Optional.of(5L)).rows())
        .extracting(r -> r.get("hits"))
        .containsExactly(9L, 5L);
  }

  @Test
  void heavyHittersSurviveEstimation() {
    TopKPartial p = new TopKPartial(3, Optional.empty(), List.of("v"), "count", 16);
    for (int i = 0; i < 20_000; i++) {
      p.update(new Object[] {i % 4 == 0 ? "hot" + (i % 3) : "cold" + i});
    }
    Map<String, Object> meta = p.metadata();
    assertThat(meta.get(MetadataKeys.WAS_ESTIMATED)).isEqualTo(true);
    long maxError = (Long) meta.get(MetadataKeys.MAXIMUM_COUNT_ERROR);
    List<Map<String, Object>> rows = p.rows();
    assertThat(rows).extracting(r -> r.get("v")).containsExactlyInAnyOrder("hot0", "hot1", "hot2");
    for (Map<String, Object> r : rows) {
      long upper = (Long) r.get("count");
      long truth = 5000 / 3 + 1;
      assertThat(upper).isBetween(truth - 1, truth + maxError);
    }
  }

  @Test
  void roundTripsAndRefusesOtherParameters() {
    TopKPartial p = feed(10, Optional.of(2L));
    TopKPartial back = (TopKPartial) Partials.decode(Partials.encode(p));
    assertThat(back.rows()).isEqualTo(p.rows());
    assertThat(back.metadata()).isEqualTo(p.metadata());
    assertThatThrownBy(() -> p.merge(feed(9, Optional.of(2L))))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> p.update(GroupKey.of("x")))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void keepsErrorAndItemsSeenWhenAPurgeEmptiesTheSketch() {
    // Eight distinct singletons in a map of 8: the purge removes every item.
    TopKPartial part = new TopKPartial(5, Optional.empty(), List.of("v"), "count", 8);
    for (int i = 0; i < 7; i++) {
      part.update(new Object[] {i});
    }
    long error = part.maximumCountError();
    assertThat(part.itemsSeen()).isEqualTo(7);
    TopKPartial merged = part.emptyCopy();
    merged.merge(Partials.decode(Partials.encode(part)));
    merged.merge(part);
    assertThat(merged.itemsSeen()).isEqualTo(14);
    assertThat(merged.maximumCountError()).isEqualTo(2 * error);
    assertThat(merged.isEmpty()).isFalse();
  }
}
