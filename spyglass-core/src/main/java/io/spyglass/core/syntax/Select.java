package io.spyglass.core.syntax;

import java.util.List;
import java.util.Optional;

/**
 * One {@code SELECT} as written: positioned and unresolved. An outer query has a {@link SubQuery}
 * source.
 *
 * @param groupBy empty when there is no GROUP BY; an empty list for {@code GROUP BY ()}
 */
public record Select(
    boolean distinct,
    List<SelectItem> select,
    Source source,
    List<LateralView> lateralViews,
    Optional<Expression> where,
    Optional<List<Expression>> groupBy,
    Optional<Expression> having,
    List<SortItem> orderBy,
    Optional<WindowClause> window,
    Optional<Limit> limit,
    Span span) {

  public Select {
    select = List.copyOf(select);
    lateralViews = List.copyOf(lateralViews);
    groupBy = groupBy.map(List::copyOf);
    orderBy = List.copyOf(orderBy);
  }

  /** An item of the select list. */
  public sealed interface SelectItem {
    Span span();
  }

  /** {@code *}. */
  public record Star(Span span) implements SelectItem {}

  /** {@code expression [AS alias]}. */
  public record Item(Expression expression, Optional<String> alias, Span span)
      implements SelectItem {}

  /** {@code [OUTER] EXPLODE(x) AS ...} in the select list. */
  public record Explode(LateralView view, Span span) implements SelectItem {}

  /** Where records come from. */
  public sealed interface Source {
    Span span();
  }

  /**
   * {@code STREAM()} (no duration), {@code STREAM(MAX, TIME)}, {@code STREAM(ms, TIME)} or {@code
   * STREAM(FOREVER)}.
   *
   * @param duration empty for {@code STREAM()}
   */
  public record Stream(Optional<Duration> duration, Span span) implements Source {}

  /**
   * A duration: {@code max} for {@code MAX}, {@code forever} for {@code FOREVER}, else {@code
   * millis}.
   */
  public record Duration(long millis, boolean max, boolean forever, Span span) {}

  /** {@code FROM (inner query)}. */
  public record SubQuery(Select query, Span span) implements Source {}

  /** {@code LATERAL VIEW [OUTER] EXPLODE(source) AS alias | (keyAlias, valueAlias)}. */
  public record LateralView(
      Expression source, String alias, Optional<String> valueAlias, boolean outer, Span span) {}

  public record SortItem(Expression expression, boolean descending, Span span) {}

  public record Limit(long value, Span span) {}

  /** The {@code WINDOWING} clause. */
  public sealed interface WindowClause {
    Span span();
  }

  /** {@code EVERY(emit, unit, ALL)} ({@code first} empty) or {@code EVERY(.., FIRST, n, unit)}. */
  public record Every(Amount emit, Optional<Amount> first, Span span) implements WindowClause {}

  /** {@code TUMBLING(size, unit)}. */
  public record Tumbling(Amount size, Span span) implements WindowClause {}

  /**
   * {@code TUMBLING(size, EVENT_TIME(time) [, LATENESS lateness])}: windows of the time each record
   * carries in {@code time}, in epoch milliseconds.
   */
  public record EventTimeTumbling(
      Amount size, Expression time, Optional<Amount> lateness, Span span) implements WindowClause {}

  /**
   * A count of milliseconds or records.
   *
   * @param suffixed whether written with a time unit ({@code 5s}), which only TIME accepts
   */
  public record Amount(long value, Unit unit, boolean suffixed, Span span) {}

  public enum Unit {
    TIME,
    RECORD
  }
}
