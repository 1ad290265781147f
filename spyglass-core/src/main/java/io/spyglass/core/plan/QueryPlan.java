package io.spyglass.core.plan;

import java.util.List;
import java.util.Optional;

/**
 * A bound, validated, immutable query: what to read, what to keep, how to aggregate, when to emit
 * and how to shape the result. Produced by the binder from a syntax tree; consumed by the executor
 * and by the canonical printer. Two plans of equivalent text are {@link #equals equal}.
 *
 * @param durationMs how long the query runs, in milliseconds; {@link #UNBOUNDED} for {@code
 *     STREAM(MAX, TIME)}, which the executor caps at the configured maximum; {@link #FOREVER} for
 *     {@code STREAM(FOREVER)}, which runs until stopped
 * @param lateralViews explodes applied to each record, in order, before {@code where}
 * @param where the filter, or empty for all records
 * @param aggregation what is kept of matching records
 * @param postAggregation what is done to the aggregated result before it is emitted
 * @param window when results are emitted
 * @param outer a query over this query's result records, run once per emitted result
 */
public record QueryPlan(
    long durationMs,
    List<LateralView> lateralViews,
    Optional<Expr> where,
    Aggregation aggregation,
    PostAggregation postAggregation,
    Window window,
    Optional<QueryPlan> outer) {

  /** The duration of {@code STREAM(MAX, TIME)}. */
  public static final long UNBOUNDED = Long.MAX_VALUE;

  /** The duration of {@code STREAM(FOREVER)}: no end but being stopped, whatever the maximum. */
  public static final long FOREVER = -1;

  /** Duration when the query names none ({@code STREAM()}). */
  public static final long DEFAULT_DURATION_MS = 30_000;

  /** Whether the query runs until stopped ({@code STREAM(FOREVER)}). */
  public boolean runsForever() {
    return durationMs == FOREVER;
  }

  /**
   * How long the query runs under {@code limits}: its duration capped at the maximum, or {@link
   * Long#MAX_VALUE} when it {@link #runsForever()}.
   */
  public long durationMs(QueryLimits limits) {
    return runsForever() ? Long.MAX_VALUE : Math.min(durationMs, limits.maxDurationMs());
  }

  /**
   * Whether GROUP BY and DISTINCT keep every group exactly (up to {@link
   * QueryLimits#maxExactGroups()}, beyond which a result says it is incomplete) instead of sampling
   * beyond {@link QueryLimits#maxGroups()}: in queries that run forever and in event-time windows,
   * whose results are kept as accounts.
   */
  public boolean exactGroups() {
    return runsForever() || window instanceof Window.EventTime;
  }

  public QueryPlan {
    lateralViews = List.copyOf(lateralViews);
    if (postAggregation.isEmpty()) {
      postAggregation = PostAggregation.NONE; // one shared instance: thousands of queries have none
    }
  }

  /**
   * {@code LATERAL VIEW [OUTER] EXPLODE(source) AS alias} or {@code AS (keyAlias, valueAlias)}. A
   * list explodes to one record per element (valueAlias empty); a map to one record per entry. With
   * {@code outer}, a record whose source is empty or missing is kept once with NULL aliases.
   */
  public record LateralView(
      Expr source, String alias, Optional<String> valueAlias, boolean outer) {}
}
