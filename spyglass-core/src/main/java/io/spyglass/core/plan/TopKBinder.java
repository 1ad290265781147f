package io.spyglass.core.plan;

import static io.spyglass.core.plan.BindContext.columnOrder;

import io.spyglass.core.syntax.Expression;
import io.spyglass.core.syntax.Select;
import io.spyglass.core.syntax.Select.Item;
import io.spyglass.core.syntax.Select.SelectItem;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Binds a query whose aggregate is {@code TOP(k[, minCount], field, ...)}. */
final class TopKBinder {
  private static final String TOP_COUNT = "Count";

  private final BindContext cx;

  TopKBinder(BindContext cx) {
    this.cx = cx;
  }

  /** TOP's arguments: k, the optional minimum count, and where the fields start. */
  private record Arguments(int k, Optional<Long> minCount, int firstField) {}

  BoundAggregation bind(Select query) {
    Expression.Call top = theTop(query);
    Arguments args = arguments(top);
    List<Expr> fields = new ArrayList<>();
    List<String> writtenNames = new ArrayList<>();
    List<Expression> fieldArgs =
        top.args().subList(Math.min(args.firstField(), top.args().size()), top.args().size());
    for (Expression arg : fieldArgs) {
      Expr bound = cx.bindRecord(arg, "inside TOP: aggregates cannot be nested");
      cx.primitiveKey(bound, arg.span(), "TOP");
      fields.add(bound);
      writtenNames.add(cx.nameOf(arg));
    }
    // Other select items that are a TOP field name it; the TOP item names the count.
    Map<Expr, String> fieldNames = new LinkedHashMap<>();
    String countName = TOP_COUNT;
    List<Item> rest = new ArrayList<>();
    List<String> selected = new ArrayList<>();
    for (SelectItem item : query.select()) {
      if (!(item instanceof Item i)) {
        cx.error(item.span(), "SELECT * cannot be used with TOP", "Remove the *");
        continue;
      }
      if (i.expression() instanceof Expression.Call c && c.name().equals("TOP")) {
        countName = i.alias().orElse(TOP_COUNT);
        selected.add(countName);
        continue;
      }
      if (ExpressionBinder.aggregatesIn(i.expression()).isEmpty()) {
        Expr bound = cx.recordQuietly(i.expression());
        if (fields.contains(bound) && !fieldNames.containsKey(bound)) {
          String name = cx.nameOf(i);
          fieldNames.put(bound, name);
          selected.add(name);
          continue;
        }
      }
      rest.add(i);
    }
    List<NamedExpr> named = new ArrayList<>();
    for (int f = 0; f < fields.size(); f++) {
      Expr field = fields.get(f);
      named.add(new NamedExpr(field, fieldNames.getOrDefault(field, writtenNames.get(f))));
    }
    boolean allFieldsListed = fieldNames.keySet().containsAll(fields);
    List<NamedExpr> computations = computations(rest, named, countName, selected);
    List<String> natural = new ArrayList<>();
    named.forEach(n -> natural.add(n.name()));
    natural.add(countName);
    computations.forEach(c -> natural.add(c.name()));
    cx.checkDuplicates(natural, query.span());
    cx.forbidLimitAndOrder(
        query,
        "TOP",
        "Remove the LIMIT: TOP's k is the number of results",
        "Remove the ORDER BY: TOP sorts by count");
    Optional<List<String>> order =
        allFieldsListed ? columnOrder(natural, selected) : Optional.empty();
    PostAggregation post =
        new PostAggregation(
            Optional.empty(), computations, List.of(), Optional.empty(), List.of(), order);
    return new BoundAggregation(
        new Aggregation.TopK(args.k(), args.minCount(), named, countName), post);
  }

  /** The query's TOP call; another, different TOP is an error. */
  private Expression.Call theTop(Select query) {
    Expression.Call top = null;
    for (Expression a : BindContext.allAggregates(query)) {
      Expression.Call found = (Expression.Call) a;
      if (top != null && !sameTop(top, found)) {
        cx.error(found.span(), "A query can have only one TOP", "Split it into one query per TOP");
      }
      if (top == null) {
        top = found;
      }
    }
    return top;
  }

  private boolean sameTop(Expression.Call a, Expression.Call b) {
    return cx.quietly(() -> topArgs(a)).equals(cx.quietly(() -> topArgs(b)));
  }

  private List<Expr> topArgs(Expression.Call call) {
    List<Expr> args = new ArrayList<>();
    for (Expression arg : call.args()) {
      args.add(cx.bindRecord(arg, ""));
    }
    return args;
  }

  private Arguments arguments(Expression.Call top) {
    List<Expression> args = top.args();
    int k = 1;
    Optional<Long> minCount = Optional.empty();
    int first = 1;
    if (args.isEmpty() || !(args.get(0) instanceof Expression.Literal size) || !isWhole(size)) {
      cx.error(
          top.span(),
          "TOP needs k, a whole number, first",
          "Call it as " + ExpressionBinder.usage("TOP"));
    } else {
      long value = ((Number) size.value()).longValue();
      int max = cx.limits.maxTopK();
      if (value < 1 || value > max) {
        cx.error(
            size.span(),
            "TOP's k must be between 1 and " + max + ", not " + value,
            "Use a k of " + max + " or less");
      } else {
        k = (int) value;
      }
      if (args.size() > 2
          && args.get(1) instanceof Expression.Literal threshold
          && isWhole(threshold)) {
        minCount = Optional.of(((Number) threshold.value()).longValue());
        first = 2;
      }
    }
    if (args.size() <= first) {
      cx.error(
          top.span(),
          "TOP needs at least one field",
          "Call it as " + ExpressionBinder.usage("TOP"));
    }
    return new Arguments(k, minCount, first);
  }

  private static boolean isWhole(Expression.Literal literal) {
    return literal.value() instanceof Integer || literal.value() instanceof Long;
  }

  /** Select items that compute on TOP's columns. */
  private List<NamedExpr> computations(
      List<Item> items, List<NamedExpr> fields, String countName, List<String> selected) {
    Set<String> columns = new LinkedHashSet<>();
    fields.forEach(n -> columns.add(n.name()));
    columns.add(countName);
    BindContext.ResultScope scope =
        cx
        .new ResultScope(
            Map.of(),
            columns,
            cx.noAggregate(
                "TOP cannot be used as a value", "Use its count column instead, named with AS"),
            "of TOP",
            false);
    List<NamedExpr> computations = new ArrayList<>();
    for (Item i : items) {
      Expr bound = cx.expressions.bind(i.expression(), scope);
      String name = cx.nameOf(i);
      computations.add(new NamedExpr(bound, name));
      columns.add(name);
      selected.add(name);
    }
    return computations;
  }
}
