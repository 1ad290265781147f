package io.spyglass.core.plan;

import io.spyglass.core.plan.PostAggregation.SortKey;
import io.spyglass.core.syntax.Expression;
import io.spyglass.core.syntax.Select;
import io.spyglass.core.syntax.Select.Item;
import io.spyglass.core.syntax.Select.SelectItem;
import io.spyglass.core.syntax.Span;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Binds a query whose aggregate is a distribution: QUANTILE, FREQ or CUMFREQ. */
final class DistributionBinder {
  private final BindContext cx;

  DistributionBinder(BindContext cx) {
    this.cx = cx;
  }

  private static final List<String> QUANTILE_COLUMNS = List.of("Value", "Quantile");
  private static final List<String> FREQUENCY_COLUMNS = List.of("Probability", "Count", "Range");

  BoundAggregation bind(Select query) {
    Expression.Distribution d = null;
    for (Expression a : BindContext.allAggregates(query)) {
      if (a instanceof Expression.Distribution found) {
        if (d != null && !sameDistribution(d, found)) {
          cx.error(
              found.span(),
              "A query can have only one distribution",
              "Split it into one query per distribution");
        }
        if (d == null) {
          d = found;
        }
      }
    }
    Aggregation.DistributionKind kind =
        switch (d.function()) {
          case QUANTILE -> Aggregation.DistributionKind.QUANTILE;
          case FREQ -> Aggregation.DistributionKind.PMF;
          default -> Aggregation.DistributionKind.CDF;
        };
    Expr value = cx.bindRecord(d.value(), "inside a distribution: aggregates cannot be nested");
    cx.expressions.requireNumeric(value, d.value().span(), d.function().name());
    Aggregation.Points points = points(d, kind);
    List<String> outputs =
        kind == Aggregation.DistributionKind.QUANTILE ? QUANTILE_COLUMNS : FREQUENCY_COLUMNS;
    Set<String> columns = new LinkedHashSet<>(outputs);
    BindContext.AggregateSink sink =
        a -> {
          cx.error(
              a.span(),
              "An aggregate cannot be used as a value in a distribution query",
              "Use the distribution's columns instead: " + String.join(", ", outputs));
          return Literal.NULL;
        };
    BindContext.ResultScope scope =
        cx.new ResultScope(Map.of(), columns, sink, "of " + d.function(), false);
    List<NamedExpr> computations = new ArrayList<>();
    for (SelectItem item : query.select()) {
      if (item instanceof Item i) {
        if (i.expression() instanceof Expression.Distribution) {
          continue; // Its columns are fixed; an alias has nothing to name, as in Bullet.
        }
        Expr bound = cx.expressions.bind(i.expression(), scope);
        String name = cx.nameOf(i);
        computations.add(new NamedExpr(bound, name));
        columns.add(name);
      } else {
        cx.error(item.span(), "SELECT * cannot be used with a distribution", "Remove the *");
      }
    }
    List<String> names = new ArrayList<>(outputs);
    computations.forEach(c -> names.add(c.name()));
    cx.checkDuplicates(names, query.span());
    List<SortKey> orderBy = cx.orderBy(query, scope);
    int limit =
        cx.limit(query, cx.limits.maxDistributionPoints() + 1, "distributions")
            .orElse(cx.limits.maxDistributionPoints() + 1);
    PostAggregation post =
        new PostAggregation(
            Optional.empty(), computations, orderBy, Optional.empty(), List.of(), Optional.empty());
    return new BoundAggregation(new Aggregation.Distribution(kind, value, points, limit), post);
  }

  private static boolean sameDistribution(Expression.Distribution a, Expression.Distribution b) {
    return a.function() == b.function()
        && a.mode() == b.mode()
        && a.numbers().stream()
            .map(Expression.Literal::value)
            .toList()
            .equals(b.numbers().stream().map(Expression.Literal::value).toList());
  }

  private Aggregation.Points points(Expression.Distribution d, Aggregation.DistributionKind kind) {
    List<Expression.Literal> numbers = d.numbers();
    int max = cx.limits.maxDistributionPoints();
    boolean quantile = kind == Aggregation.DistributionKind.QUANTILE;
    switch (d.mode()) {
      case LINEAR:
        {
          Expression.Literal n = numbers.get(0);
          if (!(n.value() instanceof Integer || n.value() instanceof Long)) {
            cx.error(n.span(), "LINEAR needs a whole number of points", "Write e.g. LINEAR, 11");
            return new Aggregation.Points.Linear(1);
          }
          long count = ((Number) n.value()).longValue();
          if (count < 1 || count > max) {
            cx.error(
                n.span(),
                "LINEAR needs between 1 and " + max + " points, not " + count,
                "Ask for 1 to " + max + " points");
            return new Aggregation.Points.Linear(1);
          }
          return new Aggregation.Points.Linear((int) count);
        }
      case REGION:
        {
          double start = ((Number) numbers.get(0).value()).doubleValue();
          double end = ((Number) numbers.get(1).value()).doubleValue();
          double step = ((Number) numbers.get(2).value()).doubleValue();
          Span span = numbers.get(0).span().to(numbers.get(2).span());
          if (step <= 0) {
            cx.error(
                numbers.get(2).span(), "The step of REGION must be positive", "Use a step above 0");
          } else if (start >= end) {
            cx.error(span, "The start of REGION must be below its end", "Swap start and end");
          } else if ((end - start) / step + 1 > max) {
            cx.error(
                span,
                "REGION asks for more than " + max + " points",
                "Use a larger step or a narrower region");
          } else if (quantile && (start < 0 || end > 1)) {
            cx.error(
                span,
                "QUANTILE points are fractions between 0 and 1",
                "Use a region within [0, 1]");
          }
          return new Aggregation.Points.Region(start, end, step);
        }
      default:
        {
          List<Double> points = new ArrayList<>();
          for (Expression.Literal n : numbers) {
            double p = ((Number) n.value()).doubleValue();
            if (quantile && (p < 0 || p > 1)) {
              cx.error(
                  n.span(),
                  "QUANTILE points are fractions between 0 and 1, not " + p,
                  "Use fractions such as 0.5 or 0.99");
            }
            points.add(p);
          }
          if (points.size() > max) {
            cx.error(
                d.span(),
                "MANUAL asks for " + points.size() + " points, more than " + max,
                "Ask for fewer points");
          }
          points.sort(null);
          return new Aggregation.Points.Manual(List.copyOf(points));
        }
    }
  }

  // ---------------------------------------------------------------- TOP K
}
