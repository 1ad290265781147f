package io.spyglass.core.plan;

import static io.spyglass.core.plan.BindContext.columnOrder;

import io.spyglass.core.plan.Aggregation.Metric;
import io.spyglass.core.syntax.Expression;
import io.spyglass.core.syntax.Select;
import io.spyglass.core.syntax.Select.Item;
import io.spyglass.core.syntax.Select.SelectItem;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Binds a query whose one aggregate is a {@code COUNT(DISTINCT ...)}. */
final class CountDistinctBinder {
  private final BindContext cx;

  CountDistinctBinder(BindContext cx) {
    this.cx = cx;
  }

  BoundAggregation bind(Select query) {
    Metric metric = cx.metric((Expression.Call) BindContext.allAggregates(query).get(0));
    String name = metric.name();
    for (SelectItem item : query.select()) {
      if (item instanceof Item i
          && i.expression() instanceof Expression.Call c
          && ExpressionBinder.isAggregate(c)) {
        name = cx.nameOf(i);
        break;
      }
    }
    String cdName = name;
    Set<String> columns = new LinkedHashSet<>(List.of(cdName));
    BindContext.ResultScope scope =
        cx.new ResultScope(Map.of(), columns, a -> FieldRef.of(cdName), "of COUNT DISTINCT", false);
    List<String> selected = new ArrayList<>();
    List<NamedExpr> computations = new ArrayList<>();
    boolean cdSelected = false;
    for (SelectItem item : query.select()) {
      if (!(item instanceof Item i)) {
        continue;
      }
      Expr bound = cx.expressions.bind(i.expression(), scope);
      String itemName;
      if (!cdSelected
          && ExpressionBinder.isAggregate(i.expression())
          && cx.nameOf(i).equals(cdName)) {
        cdSelected = true;
        itemName = cdName;
      } else {
        itemName = cx.nameOf(i);
        computations.add(new NamedExpr(bound, itemName));
        columns.add(itemName);
      }
      selected.add(itemName);
    }
    cx.forbidLimitAndOrder(query, "COUNT DISTINCT", "Remove the LIMIT", "Remove the ORDER BY");
    List<String> natural = new ArrayList<>();
    List<String> culled = new ArrayList<>();
    (cdSelected ? natural : culled).add(cdName);
    computations.forEach(c -> natural.add(c.name()));
    List<String> all = new ArrayList<>(natural);
    all.addAll(culled);
    cx.checkDuplicates(all, query.span());
    PostAggregation post =
        new PostAggregation(
            Optional.empty(),
            computations,
            List.of(),
            Optional.empty(),
            culled,
            columnOrder(natural, selected));
    return new BoundAggregation(new Aggregation.CountDistinct(metric.arguments(), cdName), post);
  }
}
