package io.spyglass.core.partial;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class CountDistinctPartialTest {
  @Test
  void exactWhileSmall() {
    CountDistinctPartial p = Fixtures.countDistinct(1024);
    assertThat(p.isEmpty()).isTrue();
    assertThat(p.rows()).containsExactly(Map.of("uniques", 0L));
    for (int i = 0; i < 500; i++) {
      p.update(i % 200);
    }
    p.update("a");
    p.update("a");
    assertThat(p.rows()).containsExactly(Map.of("uniques", 201L));
    Map<String, Object> meta = p.metadata();
    assertThat(meta.get(MetadataKeys.WAS_ESTIMATED)).isEqualTo(false);
    assertThat(meta.get(MetadataKeys.FAMILY)).isEqualTo("THETA");
    assertThat(meta.get(MetadataKeys.THETA)).isEqualTo(1.0);
    assertThat((Integer) meta.get(MetadataKeys.SIZE)).isGreaterThan(201 * 8);
    assertThat(meta).containsKey(MetadataKeys.STANDARD_DEVIATIONS);
  }

  @Test
  void estimatesWithinTheStatedError() {
    int k = 1024;
    CountDistinctPartial p = Fixtures.countDistinct(k);
    int n = 200_000;
    for (long i = 0; i < n; i++) {
      p.update(Hashing.fmix64(i));
    }
    long estimate = (Long) p.rows().get(0).get("uniques");
    // Relative standard error of theta is about 1/sqrt(k); allow 4 of them.
    assertThat(Math.abs(estimate - n)).isLessThan((long) (4.0 * n / Math.sqrt(k)));
    Map<String, Object> meta = p.metadata();
    assertThat(meta.get(MetadataKeys.WAS_ESTIMATED)).isEqualTo(true);
    assertThat((Double) meta.get(MetadataKeys.THETA)).isLessThan(1.0);
    @SuppressWarnings("unchecked")
    Map<String, Map<String, Double>> sd =
        (Map<String, Map<String, Double>>) meta.get(MetadataKeys.STANDARD_DEVIATIONS);
    assertThat(sd.get("3").get("lowerBound")).isLessThan(n);
    assertThat(sd.get("3").get("upperBound")).isGreaterThan(n);
  }

  @Test
  void mergesAndRoundTrips() {
    CountDistinctPartial a = Fixtures.countDistinct(64);
    CountDistinctPartial b = a.emptyCopy();
    for (int i = 0; i < 40; i++) {
      a.update(i);
      b.update(i + 20);
    }
    CountDistinctPartial back = (CountDistinctPartial) Partials.decode(Partials.encode(b));
    a.merge(back);
    assertThat(a.rows()).containsExactly(Map.of("uniques", 60L));
    a.reset();
    assertThat(a.isEmpty()).isTrue();
    assertThat(a.rows()).containsExactly(Map.of("uniques", 0L));
  }
}
