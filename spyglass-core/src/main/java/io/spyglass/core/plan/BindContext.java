package io.spyglass.core.plan;

import io.spyglass.core.plan.Aggregation.Metric;
import io.spyglass.core.plan.Aggregation.MetricKind;
import io.spyglass.core.plan.PostAggregation.SortKey;
import io.spyglass.core.plan.QueryPlan.LateralView;
import io.spyglass.core.record.Type;
import io.spyglass.core.syntax.BqlError;
import io.spyglass.core.syntax.Expression;
import io.spyglass.core.syntax.Expression.Field;
import io.spyglass.core.syntax.Select;
import io.spyglass.core.syntax.Select.Item;
import io.spyglass.core.syntax.Select.SelectItem;
import io.spyglass.core.syntax.Span;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * What the binders of one statement share: the limits, the errors found so far, the expression
 * binder, the scopes names are resolved in, and the checks every clause makes.
 */
final class BindContext {
  final QueryLimits limits;

  /** Whether the query being bound keeps exact groups ({@link QueryPlan#exactGroups()}). */
  boolean exactGroups;

  final List<BqlError> errors = new ArrayList<>();
  final ExpressionBinder expressions = new ExpressionBinder(errors);
  private final ColumnNames names;

  /**
   * @param text the query text, for naming columns as written
   */
  BindContext(QueryLimits limits, String text) {
    this.limits = limits;
    this.names = new ColumnNames(text);
  }

  void error(Span span, String message, String resolution) {
    errors.add(new BqlError(span, message, resolution));
  }

  /** Binds without reporting errors: for classification and naming, before the real binding. */
  <T> T quietly(Supplier<T> binding) {
    int before = errors.size();
    try {
      return binding.get();
    } finally {
      while (errors.size() > before) {
        errors.remove(errors.size() - 1);
      }
    }
  }

  // ---------------------------------------------------------------- scopes

  interface Scope extends ExpressionBinder.Scope {}

  /** Where the aggregates of a result expression go. */
  interface AggregateSink {
    Expr add(Expression aggregate);
  }

  /** Names are fields of the record; aggregates are errors. */
  final class RecordScope implements Scope {
    private final String clause;

    RecordScope() {
      this("here");
    }

    RecordScope(String clause) {
      this.clause = clause;
    }

    @Override
    public Expr field(Field field) {
      return FieldRef.of(field.name());
    }

    @Override
    public Expr aggregate(Expression aggregate) {
      error(
          aggregate.span(),
          "An aggregate is not allowed " + clause,
          "Move the aggregate to the SELECT list or HAVING");
      return Literal.NULL;
    }
  }

  Expr bindRecord(Expression e, String clause) {
    return expressions.bind(e, new RecordScope(clause));
  }

  /** The binding of an expression over record fields, errors left out: for comparisons. */
  Expr recordQuietly(Expression e) {
    return quietly(() -> expressions.bind(e, new RecordScope()));
  }

  /**
   * Names are result columns. Subexpressions equal to {@code known} expressions (GROUP BY keys,
   * projected expressions) become references to their columns; aggregates go to {@code aggregates}.
   */
  final class ResultScope implements Scope {
    final Map<Expr, String> known;
    final Set<String> columns;
    final AggregateSink aggregates;
    final String context;
    final boolean grouping;

    ResultScope(
        Map<Expr, String> known,
        Set<String> columns,
        AggregateSink aggregates,
        String context,
        boolean grouping) {
      this.known = known;
      this.columns = columns;
      this.aggregates = aggregates;
      this.context = context;
      this.grouping = grouping;
    }

    @Override
    public Optional<Expr> replace(Expression e) {
      if (known.isEmpty()
          || e instanceof Expression.Literal
          || !ExpressionBinder.aggregatesIn(e).isEmpty()) {
        return Optional.empty();
      }
      String column = known.get(recordQuietly(e));
      return column == null ? Optional.empty() : Optional.of(FieldRef.of(column));
    }

    @Override
    public Expr field(Field field) {
      if (!columns.contains(field.name()) && grouping) {
        String typo = closeGroupedField(field.name());
        error(
            field.span(),
            "The field "
                + field.name()
                + " is neither grouped nor aggregated"
                + (typo == null ? "" : " (GROUP BY names " + typo + ")"),
            (typo == null ? "Add" : "Did you mean GROUP BY " + field.name() + "? Else add")
                + " it to GROUP BY, or aggregate it, e.g. MIN("
                + field.name()
                + ")");
      } else if (!columns.contains(field.name())) {
        error(
            field.span(),
            "The field " + field.name() + " is not a column of the result " + context,
            columns.isEmpty()
                ? "Refer only to aggregates here"
                : "Use one of the columns " + String.join(", ", columns) + ", or an aggregate");
      }
      return FieldRef.of(field.name());
    }

    /** A grouped field whose name is close to {@code name}: a likely typo of it; or null. */
    private String closeGroupedField(String name) {
      for (Expr key : known.keySet()) {
        if (key instanceof FieldRef f
            && !f.name().equals(name)
            && Names.distance(f.name(), name) <= Math.max(1, name.length() / 3)) {
          return f.name();
        }
      }
      return null;
    }

    @Override
    public Expr aggregate(Expression aggregate) {
      return aggregates.add(aggregate);
    }
  }

  /** A scope of result columns without aggregates: {@code message} names what forbids them. */
  AggregateSink noAggregate(String message, String resolution) {
    return a -> {
      error(a.span(), message, resolution);
      return Literal.NULL;
    };
  }

  // ---------------------------------------------------------------- common pieces

  LateralView lateralView(Select.LateralView view) {
    Expr source = bindRecord(view.source(), "in EXPLODE");
    Type t = source.type();
    if (view.valueAlias().isPresent() && t.kind() == Type.Kind.LIST) {
      error(
          view.span(),
          "A LIST explodes to one column, not a key and a value",
          "Write EXPLODE(x) AS alias");
    } else if (view.valueAlias().isEmpty() && t.kind() == Type.Kind.MAP) {
      error(
          view.span(),
          "A MAP explodes to a key and a value column",
          "Write EXPLODE(x) AS (key, value)");
    } else if (!ExpressionBinder.isUnknown(t)
        && t.kind() != Type.Kind.LIST
        && t.kind() != Type.Kind.MAP) {
      error(
          view.source().span(),
          "Only a LIST or a MAP can be exploded, not " + t,
          "Explode a LIST or MAP");
    }
    return new LateralView(source, view.alias(), view.valueAlias(), view.outer());
  }

  static String aliasOr(Item item, String name) {
    return item.alias().orElse(name);
  }

  /** The column name of a select item: its alias, or its expression as written. */
  String nameOf(Item item) {
    return item.alias().orElseGet(() -> names.of(item.expression()));
  }

  /** The name of a column computed by {@code e} without an alias: {@code e} as written. */
  String nameOf(Expression e) {
    return names.of(e);
  }

  void checkDuplicates(List<String> names, Span span) {
    Set<String> seen = new HashSet<>();
    Set<String> reported = new HashSet<>();
    for (String name : names) {
      if (!seen.add(name) && reported.add(name)) {
        error(
            span,
            "More than one column is named " + name,
            "Give the columns different names with AS");
      }
    }
  }

  Optional<Integer> limit(Select query, int max, String kind) {
    if (query.limit().isEmpty()) {
      return Optional.empty();
    }
    Select.Limit limit = query.limit().get();
    if (limit.value() < 1) {
      error(limit.span(), "LIMIT must be positive, not " + limit.value(), "Use LIMIT 1 or more");
      return Optional.empty();
    }
    if (limit.value() > max) {
      error(
          limit.span(),
          "LIMIT " + limit.value() + " is above the maximum of " + max + " for " + kind,
          "Use LIMIT " + max + " or less");
      return Optional.of(max);
    }
    return Optional.of((int) limit.value());
  }

  /** Rejects LIMIT and ORDER BY, which an aggregation of fixed shape cannot take. */
  void forbidLimitAndOrder(Select query, String kind, String limitFix, String orderFix) {
    if (query.limit().isPresent()) {
      error(query.span(), "LIMIT is not supported with " + kind, limitFix);
    }
    if (!query.orderBy().isEmpty()) {
      error(query.orderBy().get(0).span(), "ORDER BY is not supported with " + kind, orderFix);
    }
  }

  /** The select order of the columns when it is not their natural order, else empty. */
  static Optional<List<String>> columnOrder(List<String> natural, List<String> selected) {
    if (selected.equals(natural) || !new HashSet<>(selected).equals(new HashSet<>(natural))) {
      return Optional.empty();
    }
    return Optional.of(List.copyOf(selected));
  }

  List<SortKey> orderBy(Select query, Scope scope) {
    List<SortKey> keys = new ArrayList<>();
    for (Select.SortItem sort : query.orderBy()) {
      keys.add(new SortKey(expressions.bind(sort.expression(), scope), sort.descending()));
    }
    return keys;
  }

  void primitiveKey(Expr key, Span span, String clause) {
    Type t = key.type();
    if (!ExpressionBinder.isUnknown(t) && !t.kind().isPrimitive()) {
      error(
          span, clause + " needs primitive values, but this is " + t, "Group by a primitive field");
    }
  }

  /** The aggregate calls of the select list, HAVING and ORDER BY, in order. */
  static List<Expression> allAggregates(Select query) {
    List<Expression> aggregates = new ArrayList<>();
    for (SelectItem item : query.select()) {
      if (item instanceof Item i) {
        aggregates.addAll(ExpressionBinder.aggregatesIn(i.expression()));
      }
    }
    query.having().ifPresent(h -> aggregates.addAll(ExpressionBinder.aggregatesIn(h)));
    for (Select.SortItem sort : query.orderBy()) {
      aggregates.addAll(ExpressionBinder.aggregatesIn(sort.expression()));
    }
    return aggregates;
  }

  /** Binds an aggregate call's arguments as the metric kind and arguments. */
  Call metricArguments(Expression.Call call, boolean report) {
    if (report) {
      checkMetricCall(call);
    }
    String name = call.name();
    boolean numeric =
        name.equals("SUM") || name.equals("AVG") || name.equals("MIN") || name.equals("MAX");
    List<Expr> args = new ArrayList<>();
    for (Expression arg : call.args()) {
      if (!report) {
        args.add(quietly(() -> bindRecord(arg, "")));
        continue;
      }
      Expr bound = bindRecord(arg, "inside another aggregate: aggregates cannot be nested");
      if (numeric) {
        expressions.requireNumeric(bound, arg.span(), name);
      }
      args.add(bound);
    }
    return new Call(Op.LIST, call.star() ? List.of() : args, Type.LIST);
  }

  private void checkMetricCall(Expression.Call call) {
    String name = call.name();
    if (name.equals("COUNT")) {
      if (!call.star() && !call.distinct()) {
        error(call.span(), "COUNT takes * or DISTINCT", "Write COUNT(*) or COUNT(DISTINCT x)");
      }
    } else if (call.star() || call.distinct()) {
      error(call.span(), name + " takes neither * nor DISTINCT", "Write " + name + "(x)");
    } else if (call.args().size() != 1) {
      error(
          call.span(),
          name + " takes 1 argument, not " + call.args().size(),
          "Write " + name + "(x)");
    }
  }

  Metric metric(Expression.Call call) {
    Call args = metricArguments(call, true);
    MetricKind kind =
        call.name().equals("COUNT")
            ? (call.distinct() ? MetricKind.COUNT_DISTINCT : MetricKind.COUNT)
            : MetricKind.valueOf(call.name());
    return new Metric(kind, args.args(), BqlPrinter.aggregateName(kind, args.args()));
  }
}
