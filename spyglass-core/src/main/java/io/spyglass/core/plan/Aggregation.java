package io.spyglass.core.plan;

import java.util.List;
import java.util.Optional;

/** What a query keeps of the records it matches. Bullet allows one kind per query. */
public sealed interface Aggregation {

  /**
   * Raw records: {@code SELECT *} (empty {@code projection}: the whole record, exploded aliases
   * added) or {@code SELECT a, b AS c}. At most {@code limit} records per window.
   */
  record Raw(Optional<List<NamedExpr>> projection, int limit) implements Aggregation {}

  /**
   * {@code GROUP BY keys} with metrics; {@code keys} empty is GROUP ALL ({@code SELECT COUNT(*)}).
   * {@code SELECT DISTINCT a, b} is a group with no metrics. At most {@code limit} groups emitted
   * (the LIMIT, or the default); groups beyond the sketch capacity are sampled uniformly.
   */
  record Group(List<NamedExpr> keys, List<Metric> metrics, int limit) implements Aggregation {
    /**
     * Its lists are immutable copies: the binder's are growable lists with room to spare, which ten
     * thousand idle queries would each hold.
     */
    public Group {
      keys = keys == null ? null : List.copyOf(keys);
      metrics = metrics == null ? null : List.copyOf(metrics);
    }
  }

  /** {@code COUNT(DISTINCT a, b) AS name}: a theta sketch of the distinct tuples. */
  record CountDistinct(List<Expr> fields, String name) implements Aggregation {}

  /** {@code QUANTILE}, {@code FREQ} (PMF) or {@code CUMFREQ} (CDF) of a numeric expression. */
  record Distribution(DistributionKind kind, Expr value, Points points, int limit)
      implements Aggregation {}

  /**
   * {@code TOP(k[, minCount], fields...) AS countName}: the k most frequent tuples, counts as upper
   * bounds (frequent-items sketch). Also what {@code GROUP BY f HAVING COUNT(*) >= n ORDER BY
   * COUNT(*) DESC LIMIT k} is rewritten to.
   */
  record TopK(int k, Optional<Long> minCount, List<NamedExpr> fields, String countName)
      implements Aggregation {}

  /** The metric of a group. {@code argument} is empty for {@code COUNT(*)}. */
  record Metric(MetricKind kind, List<Expr> arguments, String name) {
    /** The name is interned: the same few column names recur in every query. */
    public Metric {
      name = name == null ? null : name.intern();
    }
  }

  enum MetricKind {
    COUNT,
    SUM,
    MIN,
    MAX,
    AVG,
    /** {@code COUNT(DISTINCT x, ...)} inside GROUP BY, per group. */
    COUNT_DISTINCT
  }

  enum DistributionKind {
    QUANTILE,
    PMF,
    CDF
  }

  /** The points at which a distribution is read. */
  sealed interface Points {
    /** {@code LINEAR, n}: n evenly spaced points (fractions 0..1 for QUANTILE). */
    record Linear(int count) implements Points {}

    /** {@code REGION, start, end, step}. */
    record Region(double start, double end, double step) implements Points {}

    /** {@code MANUAL, p1, p2, ...}, sorted ascending by the binder. */
    record Manual(List<Double> points) implements Points {}
  }
}
