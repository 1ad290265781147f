package io.spyglass.core.plan;

import io.spyglass.core.plan.PostAggregation.SortKey;
import io.spyglass.core.syntax.Expression;
import io.spyglass.core.syntax.Expression.Field;
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

/** Binds queries of raw records: a projection, or {@code SELECT *} with computed columns. */
final class RawBinder {
  private final BindContext cx;

  RawBinder(BindContext cx) {
    this.cx = cx;
  }

  /** {@code SELECT a, b AS c ...}: ORDER BY may name fields not selected, projected then culled. */
  BoundAggregation projection(Select query) {
    List<NamedExpr> projection = items(query);
    Map<Expr, String> known = new LinkedHashMap<>();
    projection.forEach(p -> known.putIfAbsent(p.expr(), p.name()));
    Set<String> names = new LinkedHashSet<>();
    projection.forEach(p -> names.add(p.name()));
    List<String> culled = new ArrayList<>();
    BindContext.Scope scope =
        new BindContext.Scope() {
          @Override
          public Optional<Expr> replace(Expression e) {
            if (e instanceof Expression.Literal || e instanceof Field) {
              return Optional.empty();
            }
            String column = known.get(cx.recordQuietly(e));
            return column == null ? Optional.empty() : Optional.of(FieldRef.of(column));
          }

          @Override
          public Expr field(Field field) {
            if (names.add(field.name())) {
              projection.add(new NamedExpr(FieldRef.of(field.name()), field.name()));
              culled.add(field.name());
            }
            return FieldRef.of(field.name());
          }

          @Override
          public Expr aggregate(Expression aggregate) {
            cx.error(
                aggregate.span(),
                "Aggregates are not allowed in ORDER BY of raw records",
                "Remove it");
            return Literal.NULL;
          }
        };
    List<SortKey> orderBy = cx.orderBy(query, scope);
    PostAggregation post =
        new PostAggregation(
            Optional.empty(), List.of(), orderBy, Optional.empty(), culled, Optional.empty());
    return new BoundAggregation(new Aggregation.Raw(Optional.of(projection), limit(query)), post);
  }

  /** {@code SELECT *[, expr AS name ...]}: whole records, with computed columns added. */
  BoundAggregation all(Select query) {
    List<NamedExpr> computations = items(query);
    List<SortKey> orderBy = cx.orderBy(query, cx.new RecordScope("in ORDER BY of raw records"));
    PostAggregation post =
        new PostAggregation(
            Optional.empty(), computations, orderBy, Optional.empty(), List.of(), Optional.empty());
    return new BoundAggregation(new Aggregation.Raw(Optional.empty(), limit(query)), post);
  }

  /** The select items other than {@code *}, bound over the record and named. */
  private List<NamedExpr> items(Select query) {
    List<NamedExpr> items = new ArrayList<>();
    for (SelectItem item : query.select()) {
      if (item instanceof Item i) {
        Expr bound = cx.bindRecord(i.expression(), "in a query of raw records");
        items.add(new NamedExpr(bound, cx.nameOf(i)));
      } else if (item instanceof Select.Explode explode) {
        Select.LateralView view = explode.view();
        items.add(new NamedExpr(FieldRef.of(view.alias()), view.alias()));
        view.valueAlias().ifPresent(v -> items.add(new NamedExpr(FieldRef.of(v), v)));
      }
    }
    cx.checkDuplicates(items.stream().map(NamedExpr::name).toList(), query.span());
    return items;
  }

  private int limit(Select query) {
    return cx.limit(query, cx.limits.maxRawLimit(), "raw records")
        .orElse(cx.limits.defaultRawLimit());
  }
}
