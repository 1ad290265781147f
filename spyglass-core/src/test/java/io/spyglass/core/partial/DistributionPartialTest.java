package io.spyglass.core.partial;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.spyglass.core.plan.Aggregation.DistributionKind;
import io.spyglass.core.plan.Aggregation.Points;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Expectations taken from Bullet's behaviour for the same inputs. */
class DistributionPartialTest {
  private static DistributionPartial feedBulletExample(DistributionKind kind, Points points) {
    DistributionPartial p = new DistributionPartial(kind, points, 64, 100);
    // 0..9 three times, then 0, 1, 2 ten times: 60 values.
    for (int i = 0; i < 30; i++) {
      p.update(i % 10);
    }
    for (int i = 0; i < 30; i++) {
      p.update(i % 3);
    }
    return p;
  }

  @Test
  void linearQuantilesAreExactWhileSmall() {
    DistributionPartial p =
        new DistributionPartial(DistributionKind.QUANTILE, new Points.Linear(11), 64, 100);
    for (int i = 0; i <= 10; i++) {
      p.update(i * 10.0);
    }
    p.update(Double.NaN);
    List<Map<String, Object>> rows = p.rows();
    assertThat(rows).hasSize(11);
    for (Map<String, Object> r : rows) {
      assertThat(r.keySet()).containsExactly("Quantile", "Value");
      assertThat((Double) r.get("Value")).isCloseTo((Double) r.get("Quantile") * 100, within(1e-9));
    }
    assertThat(rows.get(3).get("Quantile")).isEqualTo(0.3);
  }

  @Test
  void pmfMatchesBullet() {
    DistributionPartial p = feedBulletExample(DistributionKind.PMF, new Points.Linear(10));
    List<Map<String, Object>> rows = p.rows();
    assertThat(rows).hasSize(11);
    assertThat(rows.get(0))
        .containsEntry("Range", "(-∞ to 0.0)")
        .containsEntry("Count", 0.0)
        .containsEntry("Probability", 0.0);
    assertThat(rows.get(1)).containsEntry("Range", "[0.0 to 1.0)").containsEntry("Count", 13.0);
    assertThat(rows.get(3)).containsEntry("Range", "[2.0 to 3.0)").containsEntry("Count", 13.0);
    assertThat(rows.get(4)).containsEntry("Range", "[3.0 to 4.0)").containsEntry("Count", 3.0);
    assertThat(rows.get(10))
        .containsEntry("Range", "[9.0 to +∞)")
        .containsEntry("Count", 3.0)
        .containsEntry("Probability", 0.05);
    assertThat(rows.get(0).keySet()).containsExactly("Range", "Count", "Probability");

    Map<String, Object> meta = p.metadata();
    assertThat(meta)
        .containsEntry(MetadataKeys.WAS_ESTIMATED, false)
        .containsEntry(MetadataKeys.FAMILY, "QUANTILES")
        .containsEntry(MetadataKeys.ITEMS_SEEN, 60L)
        .containsEntry(MetadataKeys.MINIMUM_VALUE, 0.0)
        .containsEntry(MetadataKeys.MAXIMUM_VALUE, 9.0)
        .containsEntry(
            MetadataKeys.NORMALIZED_RANK_ERROR, Sketches.Quantiles.normalizedRankError(64));
    assertThat((Integer) meta.get(MetadataKeys.SIZE)).isGreaterThan(60 * 8);
  }

  @Test
  void cdfMatchesBullet() {
    DistributionPartial p =
        feedBulletExample(DistributionKind.CDF, new Points.Region(0.0, 9.0, 1.0));
    List<Map<String, Object>> rows = p.rows();
    assertThat(rows).hasSize(11);
    assertThat(rows.get(0)).containsEntry("Range", "(-∞ to 0.0)").containsEntry("Count", 0.0);
    assertThat(rows.get(2)).containsEntry("Range", "(-∞ to 2.0)").containsEntry("Count", 26.0);
    assertThat(rows.get(5)).containsEntry("Range", "(-∞ to 5.0)").containsEntry("Count", 45.0);
    assertThat(rows.get(10))
        .containsEntry("Range", "(-∞ to +∞)")
        .containsEntry("Count", 60.0)
        .containsEntry("Probability", 1.0);
  }

  @Test
  void manualAndRegionPoints() {
    DistributionPartial manual =
        feedBulletExample(DistributionKind.QUANTILE, new Points.Manual(List.of(0.0, 0.5, 1.0)));
    assertThat(manual.rows()).extracting(r -> r.get("Value")).containsExactly(0.0, 2.0, 9.0);
    DistributionPartial region =
        new DistributionPartial(
            DistributionKind.QUANTILE, new Points.Region(0.0, 1.0, 0.1), 64, 100);
    assertThat(region.rows())
        .extracting(r -> r.get("Quantile"))
        .containsExactly(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0);
    DistributionPartial capped =
        new DistributionPartial(DistributionKind.PMF, new Points.Region(0, 1000, 1), 64, 5);
    capped.update(1);
    assertThat(capped.rows()).hasSize(6);
  }

  @Test
  void emptySketchAnswersAsBullet() {
    DistributionPartial q =
        new DistributionPartial(
            DistributionKind.QUANTILE, new Points.Manual(List.of(0.0, 0.3, 1.0)), 64, 100);
    assertThat(q.rows())
        .extracting(r -> r.get("Value"))
        .containsExactly(Double.POSITIVE_INFINITY, Double.NaN, Double.NEGATIVE_INFINITY);
    assertThat(q.metadata())
        .containsEntry(MetadataKeys.ITEMS_SEEN, 0L)
        .containsEntry(MetadataKeys.WAS_ESTIMATED, false)
        .containsEntry(MetadataKeys.MINIMUM_VALUE, Double.POSITIVE_INFINITY)
        .containsEntry(MetadataKeys.MAXIMUM_VALUE, Double.NEGATIVE_INFINITY);
    DistributionPartial pmf =
        new DistributionPartial(DistributionKind.PMF, new Points.Linear(10), 64, 100);
    List<Map<String, Object>> rows = pmf.rows();
    assertThat(rows)
        .extracting(r -> r.get("Range"))
        .containsExactly("(-∞ to Infinity)", "[Infinity to +∞)");
    assertThat(rows).allSatisfy(r -> assertThat((Double) r.get("Probability")).isNaN());
  }

  @Test
  void estimatesWithinTheRankError() {
    int k = 32;
    DistributionPartial p =
        new DistributionPartial(DistributionKind.QUANTILE, new Points.Linear(21), k, 100);
    int n = 100_000;
    for (int i = 0; i < n; i++) {
      p.update((i * 7919L) % n);
    }
    assertThat(p.metadata()).containsEntry(MetadataKeys.WAS_ESTIMATED, true);
    double eps = Sketches.Quantiles.normalizedRankError(k);
    for (Map<String, Object> r : p.rows()) {
      double q = (Double) r.get("Quantile");
      double rank = (Double) r.get("Value") / n;
      assertThat(rank).isCloseTo(q, within(2 * eps));
    }
  }

  @Test
  void refusesBadParameters() {
    assertThatThrownBy(
            () ->
                new DistributionPartial(
                    DistributionKind.QUANTILE, new Points.Manual(List.of(1.5)), 64, 10))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> new DistributionPartial(DistributionKind.PMF, new Points.Linear(3), 63, 10))
        .isInstanceOf(IllegalArgumentException.class);
    DistributionPartial a =
        new DistributionPartial(DistributionKind.PMF, new Points.Linear(3), 64, 10);
    assertThatThrownBy(
            () ->
                a.merge(
                    new DistributionPartial(DistributionKind.CDF, new Points.Linear(3), 64, 10)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
