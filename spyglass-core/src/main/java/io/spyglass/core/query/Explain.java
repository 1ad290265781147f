package io.spyglass.core.query;

import io.spyglass.core.plan.Aggregation;
import io.spyglass.core.plan.Bql;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.plan.QueryPlan;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/** Describes how a query will run: its canonical text, what it keeps, and how it is routed. */
public final class Explain {
  private Explain() {}

  /** A few lines for people; see {@code spyglass explain}. */
  public static String of(QueryPlan plan, QueryLimits limits) {
    StringBuilder out = new StringBuilder();
    out.append("query:       ").append(Bql.print(plan)).append('\n');
    out.append("duration:    ")
        .append(
            plan.runsForever()
                ? "until stopped (no maximum)"
                : plan.durationMs() >= limits.maxDurationMs()
                    ? "until stopped (at most " + limits.maxDurationMs() + " ms)"
                    : plan.durationMs() + " ms")
        .append('\n');
    out.append("aggregation: ").append(describe(plan, limits)).append('\n');
    String window = Bql.print(plan.window());
    out.append("window:      ").append(window == null ? "none: one result at the end" : window);
    out.append('\n');
    Set<String> fields = new TreeSet<>();
    boolean all = FilterSet.collectFields(plan, fields);
    out.append("reads:       ")
        .append(all ? "whole records" : fields.isEmpty() ? "no fields" : String.join(", ", fields))
        .append('\n');
    Optional<QueryIndex.Key> key = QueryIndex.keyOf(plan);
    out.append("routing:     ")
        .append(
            key.map(
                    k ->
                        "indexed on "
                            + k.describe()
                            + " ("
                            + k.values().size()
                            + " value"
                            + (k.values().size() == 1 ? "" : "s")
                            + "): only records with a matching value reach it")
                .orElseGet(
                    () ->
                        RangeIndex.rangeOf(plan)
                            .map(
                                r ->
                                    "range-indexed on "
                                        + r.field()
                                        + " ["
                                        + r.lo()
                                        + ", "
                                        + r.hi()
                                        + "]: only records with a value in range reach it")
                            .orElse(
                                "evaluated on every record (no equality, IN or range on a"
                                    + " top-level field)")))
        .append('\n');
    plan.outer().ifPresent(o -> out.append("outer:       ").append(describe(o, limits)));
    return out.toString();
  }

  /** The top-level fields a query reads; empty when it reads whole records ({@code SELECT *}). */
  public static Optional<Set<String>> fieldsRead(QueryPlan plan) {
    Set<String> fields = new TreeSet<>();
    return FilterSet.collectFields(plan, fields) ? Optional.empty() : Optional.of(fields);
  }

  private static String describe(QueryPlan plan, QueryLimits limits) {
    Aggregation a = plan.aggregation();
    if (a instanceof Aggregation.Raw) {
      Aggregation.Raw r = (Aggregation.Raw) a;
      return "raw records, at most " + r.limit() + " per window";
    } else if (a instanceof Aggregation.Group) {
      Aggregation.Group g = (Aggregation.Group) a;
      return g.keys().isEmpty()
          ? "group all: " + g.metrics().size() + " metric(s), exact"
          : "group by "
              + g.keys().size()
              + " key(s), "
              + g.metrics().size()
              + (plan.exactGroups()
                  ? " metric(s): exact, up to "
                      + limits.maxExactGroups()
                      + " groups per window (a window with more says so in its errors)"
                  : " metric(s): exact per group up to the group capacity, then sampled");
    } else if (a instanceof Aggregation.CountDistinct) {
      return "count distinct: theta sketch, exact up to its size, then estimated";
    } else if (a instanceof Aggregation.Distribution) {
      return ((Aggregation.Distribution) a).kind().name().toLowerCase()
          + " distribution: quantiles sketch, with a stated rank error";
    }
    Aggregation.TopK t = (Aggregation.TopK) a;
    return "top " + t.k() + ": frequent-items sketch, counts are upper bounds";
  }
}
