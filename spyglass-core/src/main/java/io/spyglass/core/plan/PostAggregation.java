package io.spyglass.core.plan;

import java.util.List;
import java.util.Optional;

/**
 * What is done to a window's result records, in this order: {@code having} filters, {@code
 * computations} add columns (expressions over result columns, e.g. {@code AVG(x) * 2 AS y}), {@code
 * orderBy} sorts, {@code limit} cuts, {@code culled} columns (helpers the query did not ask for)
 * are removed, and {@code columnOrder}, when present, fixes the order of the remaining columns.
 */
public record PostAggregation(
    Optional<Expr> having,
    List<NamedExpr> computations,
    List<SortKey> orderBy,
    Optional<Integer> limit,
    List<String> culled,
    Optional<List<String>> columnOrder) {

  public static final PostAggregation NONE =
      new PostAggregation(
          Optional.empty(), List.of(), List.of(), Optional.empty(), List.of(), Optional.empty());

  public PostAggregation {
    computations = List.copyOf(computations);
    orderBy = List.copyOf(orderBy);
    culled = List.copyOf(culled);
  }

  public boolean isEmpty() {
    return equals(NONE);
  }

  /** One key of {@code ORDER BY}: an expression over result columns. NULLs sort first ascending. */
  public record SortKey(Expr expr, boolean descending) {}
}
