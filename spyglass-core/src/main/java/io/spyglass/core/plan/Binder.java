package io.spyglass.core.plan;

import io.spyglass.core.plan.Aggregation.Metric;
import io.spyglass.core.plan.Aggregation.MetricKind;
import io.spyglass.core.plan.PostAggregation.SortKey;
import io.spyglass.core.plan.QueryPlan.LateralView;
import io.spyglass.core.record.Type;
import io.spyglass.core.syntax.BqlError;
import io.spyglass.core.syntax.BqlException;
import io.spyglass.core.syntax.Expression;
import io.spyglass.core.syntax.Expression.Field;
import io.spyglass.core.syntax.Query;
import io.spyglass.core.syntax.Query.Item;
import io.spyglass.core.syntax.Query.SelectItem;
import io.spyglass.core.syntax.Span;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Turns a syntax tree into a validated {@link QueryPlan}. Collects every error it can find before
 * failing. One instance binds one statement.
 */
final class Binder {
  private static final String TOP_COUNT = "Count";

  private final QueryLimits limits;
  private final List<BqlError> errors = new ArrayList<>();
  private final ExpressionBinder expressions = new ExpressionBinder(errors);

  Binder(QueryLimits limits) {
    this.limits = limits;
  }

  private void error(Span span, String message, String resolution) {
    errors.add(new BqlError(span, message, resolution));
  }

  QueryPlan bindStatement(Query query) {
    QueryPlan plan;
    if (query.source() instanceof Query.SubQuery sub) {
      Query inner = sub.query();
      if (inner.source() instanceof Query.SubQuery nested) {
        error(
            nested.span(),
            "Queries can be nested only one level deep",
            "Select FROM a query that reads FROM STREAM(...)");
        throw new BqlException(errors);
      }
      QueryPlan innerPlan = bindQuery(inner, Optional.empty());
      QueryPlan outerPlan = bindQuery(query, Optional.of(innerPlan.durationMs()));
      plan =
          new QueryPlan(
              innerPlan.durationMs(),
              innerPlan.lateralViews(),
              innerPlan.where(),
              innerPlan.aggregation(),
              innerPlan.postAggregation(),
              innerPlan.window(),
              Optional.of(outerPlan));
    } else {
      plan = bindQuery(query, Optional.empty());
    }
    if (!errors.isEmpty()) {
      errors.sort(Comparator.comparingInt((BqlError e) -> e.span().start()));
      throw new BqlException(errors);
    }
    return plan;
  }

  /** The kinds of aggregation; Bullet allows one per query. */
  private enum Kind {
    RAW("raw records"),
    ALL("SELECT *"),
    DISTINCT("SELECT DISTINCT"),
    GROUP("GROUP BY or group functions (COUNT, SUM, AVG, MIN, MAX)"),
    COUNT_DISTINCT("COUNT(DISTINCT ...)"),
    DISTRIBUTION("a distribution (QUANTILE, FREQ, CUMFREQ)"),
    TOP_K("TOP");

    final String description;

    Kind(String description) {
      this.description = description;
    }
  }

  /** The state of binding one SELECT. */
  private final class QueryBinding {
    final Query query;
    final boolean outer;
    final List<LateralView> views = new ArrayList<>();

    QueryBinding(Query query, boolean outer) {
      this.query = query;
      this.outer = outer;
    }
  }

  private QueryPlan bindQuery(Query query, Optional<Long> outerDuration) {
    QueryBinding q = new QueryBinding(query, outerDuration.isPresent());
    long duration = outerDuration.isPresent() ? outerDuration.get() : duration(query);
    for (Query.LateralView view : query.lateralViews()) {
      q.views.add(lateralView(view, q));
    }
    for (SelectItem item : query.select()) {
      if (item instanceof Query.Explode explode) {
        q.views.add(lateralView(explode.view(), q));
      }
    }
    Optional<Expr> where = Optional.empty();
    if (query.where().isPresent()) {
      Expression w = query.where().get();
      Expr bound = bindRecord(w, "in WHERE");
      expressions.requireBoolean(bound, w.span(), "WHERE");
      where = Optional.of(bound);
    }
    Kind kind = classify(query);
    Shape shape =
        switch (kind) {
          case RAW -> raw(q);
          case ALL -> selectAll(q);
          case DISTINCT -> distinct(q);
          case GROUP -> group(q);
          case COUNT_DISTINCT -> countDistinct(q);
          case DISTRIBUTION -> distribution(q);
          default -> topK(q);
        };
    if (query.having().isPresent() && query.groupBy().isEmpty()) {
      error(
          query.having().get().span(),
          "HAVING needs a GROUP BY",
          "Add a GROUP BY, or filter records with WHERE instead");
    }
    Window window = window(query, kind == Kind.RAW || kind == Kind.ALL, q.outer);
    return new QueryPlan(
        duration, q.views, where, shape.aggregation, shape.post, window, Optional.empty());
  }

  /** An aggregation and what follows it. */
  private record Shape(Aggregation aggregation, PostAggregation post) {}

  // ---------------------------------------------------------------- durations and windows

  private long duration(Query query) {
    Query.Stream stream = (Query.Stream) query.source();
    if (stream.duration().isEmpty()) {
      return limits.defaultDurationMs();
    }
    Query.Duration d = stream.duration().get();
    if (d.max()) {
      return QueryPlan.UNBOUNDED;
    }
    if (d.millis() <= 0) {
      error(d.span(), "The duration must be positive", "Give a duration such as 30000 or 30s");
      return limits.defaultDurationMs();
    }
    // Longer than allowed: capped, as for STREAM(MAX, TIME).
    return Math.min(d.millis(), limits.maxDurationMs());
  }

  private Window window(Query query, boolean raw, boolean outer) {
    if (query.window().isEmpty()) {
      return Window.NONE;
    }
    Query.WindowClause clause = query.window().get();
    if (outer) {
      error(
          clause.span(),
          "An outer query cannot have a WINDOWING clause",
          "Put the WINDOWING clause in the inner query");
      return Window.NONE;
    }
    if (clause instanceof Query.Tumbling tumbling) {
      Query.Amount size = tumbling.size();
      if (!amount(size, raw)) {
        return Window.NONE;
      }
      return new Window.Tumbling(size.value(), unit(size.unit()));
    }
    Query.Every every = (Query.Every) clause;
    Query.Amount emit = every.emit();
    if (!amount(emit, raw)) {
      return Window.NONE;
    }
    if (every.first().isEmpty()) {
      if (emit.unit() == Query.Unit.RECORD) {
        error(
            every.span(),
            "EVERY(n, RECORD, ALL) is not supported",
            "Use EVERY(ms, TIME, ALL), or EVERY(n, RECORD, FIRST, n, RECORD)");
        return Window.NONE;
      }
      return new Window.Additive(emit.value());
    }
    Query.Amount size = every.first().get();
    if (!amount(size, raw)) {
      return Window.NONE;
    }
    if (size.unit() != emit.unit()) {
      error(
          every.span(),
          "A window must emit and include in the same unit",
          "Use TIME for both or RECORD for both");
      return Window.NONE;
    }
    if (emit.unit() == Query.Unit.RECORD && size.value() != emit.value()) {
      error(
          size.span(),
          "A record window must include as many records as it emits every",
          "Use EVERY(" + emit.value() + ", RECORD, FIRST, " + emit.value() + ", RECORD)");
      return Window.NONE;
    }
    if (size.value() < emit.value() || size.value() % emit.value() != 0) {
      error(
          size.span(),
          "A sliding window's size must be a multiple of its emit period",
          "Use a size of " + emit.value() + " times a whole number, e.g. " + 2 * emit.value());
      return Window.NONE;
    }
    if (size.value() / emit.value() > MAX_PANES) {
      error(
          size.span(),
          "A sliding window keeps one pane per emit period, and "
              + size.value() / emit.value()
              + " panes is more than the "
              + MAX_PANES
              + " allowed",
          "Emit less often or use a shorter size: at most "
              + MAX_PANES
              + " emit periods per window, e.g. EVERY("
              + Math.max(emit.value(), size.value() / MAX_PANES)
              + ", TIME, FIRST, "
              + size.value()
              + ", TIME)");
      return Window.NONE;
    }
    return new Window.Sliding(emit.value(), unit(emit.unit()), size.value(), unit(size.unit()));
  }

  /** Most panes (size / emit) of a time-based sliding window: each pane holds a partial. */
  static final int MAX_PANES = 1_000;

  private boolean amount(Query.Amount amount, boolean raw) {
    if (amount.unit() == Query.Unit.RECORD) {
      if (!raw) {
        error(
            amount.span(),
            "RECORD windows are only supported for queries of raw records",
            "Use a TIME window, or remove the aggregation");
        return false;
      }
      if (amount.value() < 1) {
        error(amount.span(), "A record window needs at least 1 record", "Use a positive count");
        return false;
      }
      return true;
    }
    if (amount.value() < limits.minWindowEmitMs()) {
      error(
          amount.span(),
          "A time window must be at least " + limits.minWindowEmitMs() + " ms long",
          "Use a window of " + limits.minWindowEmitMs() + " ms or more");
      return false;
    }
    if (amount.value() > limits.maxDurationMs()) {
      error(
          amount.span(),
          "A time window cannot be longer than the longest query, "
              + limits.maxDurationMs()
              + " ms",
          "Use a shorter window");
      return false;
    }
    return true;
  }

  private static Window.Unit unit(Query.Unit unit) {
    return unit == Query.Unit.TIME ? Window.Unit.TIME : Window.Unit.RECORD;
  }

  // ---------------------------------------------------------------- classification

  private Kind classify(Query query) {
    Map<Kind, Span> kinds = new LinkedHashMap<>();
    Set<Expr> countDistincts = new LinkedHashSet<>();
    boolean groupFunctions = false;
    if (query.distinct()) {
      kinds.putIfAbsent(Kind.DISTINCT, query.span());
    }
    for (SelectItem item : query.select()) {
      if (item instanceof Query.Star) {
        kinds.putIfAbsent(Kind.ALL, item.span());
      }
    }
    query.groupBy().ifPresent(g -> kinds.putIfAbsent(Kind.GROUP, query.span()));
    List<Expression> aggregates = new ArrayList<>();
    for (SelectItem item : query.select()) {
      if (item instanceof Item i) {
        aggregates.addAll(ExpressionBinder.aggregatesIn(i.expression()));
      }
    }
    query.having().ifPresent(h -> aggregates.addAll(ExpressionBinder.aggregatesIn(h)));
    for (Query.SortItem sort : query.orderBy()) {
      aggregates.addAll(ExpressionBinder.aggregatesIn(sort.expression()));
    }
    Span countDistinctSpan = null;
    for (Expression a : aggregates) {
      if (a instanceof Expression.Distribution) {
        kinds.putIfAbsent(Kind.DISTRIBUTION, a.span());
      } else {
        Expression.Call call = (Expression.Call) a;
        if (call.name().equals("TOP")) {
          kinds.putIfAbsent(Kind.TOP_K, a.span());
        } else if (call.name().equals("COUNT") && call.distinct()) {
          countDistincts.add(quietly(() -> metricArguments(call, false)));
          if (countDistinctSpan == null) {
            countDistinctSpan = a.span();
          }
        } else {
          groupFunctions = true;
          kinds.putIfAbsent(Kind.GROUP, a.span());
        }
      }
    }
    if (!countDistincts.isEmpty()) {
      if (countDistincts.size() > 1 && !kinds.containsKey(Kind.GROUP)) {
        // Several COUNT DISTINCTs: per-group metrics of GROUP ALL.
        kinds.put(Kind.GROUP, countDistinctSpan);
      } else if (!kinds.containsKey(Kind.GROUP)) {
        kinds.put(Kind.COUNT_DISTINCT, countDistinctSpan);
      }
    }
    if (kinds.size() > 1) {
      List<Kind> list = new ArrayList<>(kinds.keySet());
      Kind second = list.get(1);
      error(
          kinds.get(second),
          "A query can have only one kind of aggregation, but this one mixes "
              + list.get(0).description
              + " with "
              + second.description,
          "Split it into one query per kind: raw records, SELECT DISTINCT, GROUP BY with group"
              + " functions (COUNT DISTINCT included), one distribution, or one TOP");
      return list.get(0) == Kind.ALL ? Kind.RAW : list.get(0);
    }
    if (groupFunctions && kinds.isEmpty()) {
      return Kind.GROUP;
    }
    return kinds.isEmpty() ? Kind.RAW : kinds.keySet().iterator().next();
  }

  /** Binds without reporting errors: for classification, before the real binding. */
  private <T> T quietly(java.util.function.Supplier<T> binding) {
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

  private interface Scope extends ExpressionBinder.Scope {}

  /** Names are fields of the record; aggregates are errors. */
  private final class RecordScope implements Scope {
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

  private Expr bindRecord(Expression e, String clause) {
    return expressions.bind(e, new RecordScope(clause));
  }

  /**
   * Names are result columns. Subexpressions equal to {@code known} expressions (GROUP BY keys,
   * projected expressions) become references to their columns; aggregates go to {@code aggregates}.
   */
  private final class ResultScope implements Scope {
    final Map<Expr, String> known;
    final Set<String> columns;
    final AggregateSink aggregates;
    final String context;
    boolean grouping;

    ResultScope(
        Map<Expr, String> known, Set<String> columns, AggregateSink aggregates, String context) {
      this.known = known;
      this.columns = columns;
      this.aggregates = aggregates;
      this.context = context;
    }

    @Override
    public Optional<Expr> replace(Expression e) {
      if (known.isEmpty()
          || e instanceof Expression.Literal
          || !ExpressionBinder.aggregatesIn(e).isEmpty()) {
        return Optional.empty();
      }
      Expr bound = quietly(() -> expressions.bind(e, new RecordScope()));
      String column = known.get(bound);
      return column == null ? Optional.empty() : Optional.of(FieldRef.of(column));
    }

    @Override
    public Expr field(Field field) {
      if (!columns.contains(field.name()) && grouping) {
        error(
            field.span(),
            "The field " + field.name() + " is neither grouped nor aggregated",
            "Add it to GROUP BY, or aggregate it, e.g. MIN(" + field.name() + ")");
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

    @Override
    public Expr aggregate(Expression aggregate) {
      return aggregates.add(aggregate);
    }
  }

  /** Where the aggregates of a result expression go. */
  private interface AggregateSink {
    Expr add(Expression aggregate);
  }

  // ---------------------------------------------------------------- common pieces

  private LateralView lateralView(Query.LateralView view, QueryBinding q) {
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

  private static String aliasOr(Item item, String name) {
    return item.alias().orElse(name);
  }

  private String defaultName(Expr bound) {
    return BqlPrinter.name(bound, Map.of());
  }

  private void checkDuplicates(List<String> names, Span span) {
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

  private Optional<Integer> limit(Query query, int max, String kind) {
    if (query.limit().isEmpty()) {
      return Optional.empty();
    }
    Query.Limit limit = query.limit().get();
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

  private void forbid(Optional<?> present, Span span, String message, String resolution) {
    if (present.isPresent()) {
      error(span, message, resolution);
    }
  }

  private Optional<List<String>> columnOrder(List<String> natural, List<String> selected) {
    if (selected.equals(natural) || !new HashSet<>(selected).equals(new HashSet<>(natural))) {
      return Optional.empty();
    }
    return Optional.of(List.copyOf(selected));
  }

  private List<SortKey> orderBy(Query query, Scope scope) {
    List<SortKey> keys = new ArrayList<>();
    for (Query.SortItem sort : query.orderBy()) {
      keys.add(new SortKey(expressions.bind(sort.expression(), scope), sort.descending()));
    }
    return keys;
  }

  // ---------------------------------------------------------------- raw records

  private Shape raw(QueryBinding q) {
    Query query = q.query;
    List<NamedExpr> projection = new ArrayList<>();
    Map<Expr, String> known = new LinkedHashMap<>();
    for (SelectItem item : query.select()) {
      if (item instanceof Item i) {
        Expr bound = bindRecord(i.expression(), "in a query of raw records");
        String name = aliasOr(i, defaultName(bound));
        projection.add(new NamedExpr(bound, name));
        known.putIfAbsent(bound, name);
      } else if (item instanceof Query.Explode explode) {
        Query.LateralView view = explode.view();
        projection.add(new NamedExpr(FieldRef.of(view.alias()), view.alias()));
        view.valueAlias().ifPresent(v -> projection.add(new NamedExpr(FieldRef.of(v), v)));
      }
    }
    checkDuplicates(projection.stream().map(NamedExpr::name).toList(), query.span());
    Set<String> names = new LinkedHashSet<>();
    projection.forEach(p -> names.add(p.name()));
    List<String> culled = new ArrayList<>();
    // ORDER BY may name fields that are not projected: they are projected, sorted on, then culled.
    Scope scope =
        new Scope() {
          @Override
          public Optional<Expr> replace(Expression e) {
            if (e instanceof Expression.Literal || e instanceof Field) {
              return Optional.empty();
            }
            Expr bound = quietly(() -> expressions.bind(e, new RecordScope()));
            String column = known.get(bound);
            return column == null ? Optional.empty() : Optional.of(FieldRef.of(column));
          }

          @Override
          public Expr field(Field field) {
            if (!names.contains(field.name())) {
              names.add(field.name());
              projection.add(new NamedExpr(FieldRef.of(field.name()), field.name()));
              culled.add(field.name());
            }
            return FieldRef.of(field.name());
          }

          @Override
          public Expr aggregate(Expression aggregate) {
            error(
                aggregate.span(),
                "Aggregates are not allowed in ORDER BY of raw records",
                "Remove it");
            return Literal.NULL;
          }
        };
    List<SortKey> orderBy = orderBy(query, scope);
    int limit = limit(query, limits.maxRawLimit(), "raw records").orElse(limits.defaultRawLimit());
    PostAggregation post =
        new PostAggregation(
            Optional.empty(), List.of(), orderBy, Optional.empty(), culled, Optional.empty());
    return new Shape(new Aggregation.Raw(Optional.of(projection), limit), post);
  }

  private Shape selectAll(QueryBinding q) {
    Query query = q.query;
    List<NamedExpr> computations = new ArrayList<>();
    for (SelectItem item : query.select()) {
      if (item instanceof Item i) {
        Expr bound = bindRecord(i.expression(), "in a query of raw records");
        computations.add(new NamedExpr(bound, aliasOr(i, defaultName(bound))));
      } else if (item instanceof Query.Explode explode) {
        Query.LateralView view = explode.view();
        computations.add(new NamedExpr(FieldRef.of(view.alias()), view.alias()));
        view.valueAlias().ifPresent(v -> computations.add(new NamedExpr(FieldRef.of(v), v)));
      }
    }
    checkDuplicates(computations.stream().map(NamedExpr::name).toList(), query.span());
    List<SortKey> orderBy = orderBy(query, new RecordScope("in ORDER BY of raw records"));
    int limit = limit(query, limits.maxRawLimit(), "raw records").orElse(limits.defaultRawLimit());
    PostAggregation post =
        new PostAggregation(
            Optional.empty(), computations, orderBy, Optional.empty(), List.of(), Optional.empty());
    return new Shape(new Aggregation.Raw(Optional.empty(), limit), post);
  }

  // ---------------------------------------------------------------- groups

  private Shape distinct(QueryBinding q) {
    Query query = q.query;
    List<NamedExpr> keys = new ArrayList<>();
    Map<Expr, String> known = new LinkedHashMap<>();
    for (SelectItem item : query.select()) {
      if (item instanceof Item i) {
        Expr bound = bindRecord(i.expression(), "in SELECT DISTINCT");
        primitiveKey(bound, i.span(), "SELECT DISTINCT");
        String name = aliasOr(i, defaultName(bound));
        keys.add(new NamedExpr(bound, name));
        known.putIfAbsent(bound, name);
      } else {
        error(item.span(), "SELECT DISTINCT takes expressions only", "List the fields to select");
      }
    }
    checkDuplicates(keys.stream().map(NamedExpr::name).toList(), query.span());
    Set<String> columns = new LinkedHashSet<>();
    keys.forEach(k -> columns.add(k.name()));
    ResultScope scope =
        new ResultScope(known, columns, noAggregate("SELECT DISTINCT"), "of SELECT DISTINCT");
    List<SortKey> orderBy = orderBy(query, scope);
    return groupShape(
        query, keys, List.of(), Optional.empty(), List.of(), orderBy, List.of(), Optional.empty());
  }

  private AggregateSink noAggregate(String where) {
    return a -> {
      error(a.span(), "Aggregates are not allowed with " + where, "Remove the aggregate");
      return Literal.NULL;
    };
  }

  private void primitiveKey(Expr key, Span span, String clause) {
    Type t = key.type();
    if (!ExpressionBinder.isUnknown(t) && !t.kind().isPrimitive()) {
      error(
          span, clause + " needs primitive values, but this is " + t, "Group by a primitive field");
    }
  }

  /** Binds an aggregate call's arguments as the metric kind and arguments. */
  private Call metricArguments(Expression.Call call, boolean report) {
    String name = call.name();
    if (name.equals("COUNT")) {
      if (call.star()) {
        return new Call(Op.LIST, List.of(), Type.LIST);
      }
      if (!call.distinct()) {
        if (report) {
          error(call.span(), "COUNT takes * or DISTINCT", "Write COUNT(*) or COUNT(DISTINCT x)");
        }
      }
    } else if (call.star() || call.distinct()) {
      if (report) {
        error(call.span(), name + " takes neither * nor DISTINCT", "Write " + name + "(x)");
      }
    } else if (call.args().size() != 1) {
      if (report) {
        error(
            call.span(),
            name + " takes 1 argument, not " + call.args().size(),
            "Write " + name + "(x)");
      }
    }
    List<Expr> args = new ArrayList<>();
    for (Expression arg : call.args()) {
      Expr bound =
          report
              ? bindRecord(arg, "inside another aggregate: aggregates cannot be nested")
              : quietly(() -> bindRecord(arg, ""));
      if (report
          && (name.equals("SUM")
              || name.equals("AVG")
              || name.equals("MIN")
              || name.equals("MAX"))) {
        expressions.requireNumeric(bound, arg.span(), name);
      }
      args.add(bound);
    }
    return new Call(Op.LIST, args, Type.LIST);
  }

  private Metric metric(Expression.Call call) {
    Call args = metricArguments(call, true);
    MetricKind kind =
        call.name().equals("COUNT")
            ? (call.distinct() ? MetricKind.COUNT_DISTINCT : MetricKind.COUNT)
            : MetricKind.valueOf(call.name());
    return new Metric(kind, args.args(), BqlPrinter.aggregateName(kind, args.args()));
  }

  private Shape group(QueryBinding q) {
    Query query = q.query;
    // GROUP BY keys, named after the select item that selects them.
    List<Expr> keyExprs = new ArrayList<>();
    for (Expression key : query.groupBy().orElse(List.of())) {
      Expr bound = bindRecord(key, "in GROUP BY");
      primitiveKey(bound, key.span(), "GROUP BY");
      if (!keyExprs.contains(bound)) {
        keyExprs.add(bound);
      }
    }
    Map<Expr, String> keyNames = new LinkedHashMap<>();
    for (SelectItem item : query.select()) {
      if (item instanceof Item i && ExpressionBinder.aggregatesIn(i.expression()).isEmpty()) {
        Expr bound = quietly(() -> expressions.bind(i.expression(), new RecordScope()));
        if (keyExprs.contains(bound) && !keyNames.containsKey(bound)) {
          keyNames.put(bound, aliasOr(i, defaultName(bound)));
        }
      }
    }
    List<NamedExpr> keys = new ArrayList<>();
    for (Expr key : keyExprs) {
      keyNames.putIfAbsent(key, defaultName(key));
      keys.add(new NamedExpr(key, keyNames.get(key)));
    }
    // Metrics: first those selected as they are, by their select name; then helpers.
    List<Metric> metrics = new ArrayList<>();
    Map<Metric, String> metricNames = new HashMap<>();
    for (SelectItem item : query.select()) {
      if (item instanceof Item i
          && i.expression() instanceof Expression.Call call
          && ExpressionBinder.isAggregate(call)
          && !call.name().equals("TOP")) {
        Metric m = quietly(() -> metric(call));
        if (!metricNames.containsKey(m)) {
          String name = aliasOr(i, m.name());
          metricNames.put(m, name);
          metrics.add(new Metric(m.kind(), m.arguments(), name));
        }
      }
    }
    Set<String> columns = new LinkedHashSet<>();
    keys.forEach(k -> columns.add(k.name()));
    metrics.forEach(m -> columns.add(m.name()));
    AggregateSink sink =
        a -> {
          if (!(a instanceof Expression.Call call) || call.name().equals("TOP")) {
            return Literal.NULL; // Already reported as a mix of aggregation kinds.
          }
          Metric m = metric(call);
          String name = metricNames.get(m);
          if (name == null) {
            name = m.name();
            metricNames.put(m, name);
            metrics.add(m);
            columns.add(name);
          }
          return FieldRef.of(name);
        };
    Map<Expr, String> known = new LinkedHashMap<>();
    keys.forEach(k -> known.put(k.expr(), k.name()));
    ResultScope scope = new ResultScope(known, columns, sink, "of GROUP BY");
    scope.grouping = true;
    // Select items: selected keys and metrics stay as they are; anything else is computed.
    List<String> selected = new ArrayList<>();
    List<NamedExpr> computations = new ArrayList<>();
    Set<String> selectedColumns = new HashSet<>();
    for (SelectItem item : query.select()) {
      if (!(item instanceof Item i)) {
        error(item.span(), "SELECT * cannot be used with GROUP BY", "List the columns to select");
        continue;
      }
      Expr bound = expressions.bind(i.expression(), scope);
      String name;
      if (bound instanceof FieldRef ref
          && isKeyOrMetric(ref.name(), keys, metrics)
          && !selectedColumns.contains(ref.name())
          && i.alias().map(a -> a.equals(ref.name())).orElse(true)
          && (keyNames.containsValue(ref.name()) || ExpressionBinder.isAggregate(i.expression()))) {
        name = ref.name();
        selectedColumns.add(name);
      } else {
        name = aliasOr(i, BqlPrinter.name(bound, namesOf(keys, metrics)));
        computations.add(new NamedExpr(bound, name));
      }
      selected.add(name);
    }
    Optional<Expr> having = Optional.empty();
    if (query.having().isPresent()) {
      Expression h = query.having().get();
      Expr bound = expressions.bind(h, scope);
      expressions.requireBoolean(bound, h.span(), "HAVING");
      having = Optional.of(bound);
    }
    computations.forEach(c -> columns.add(c.name()));
    List<SortKey> orderBy = orderBy(query, scope);
    List<String> culled = new ArrayList<>();
    List<String> natural = new ArrayList<>();
    for (NamedExpr k : keys) {
      if (selectedColumns.contains(k.name())) {
        natural.add(k.name());
      } else {
        culled.add(k.name());
      }
    }
    for (Metric m : metrics) {
      if (selectedColumns.contains(m.name())) {
        natural.add(m.name());
      } else {
        culled.add(m.name());
      }
    }
    computations.forEach(c -> natural.add(c.name()));
    List<String> all = new ArrayList<>(natural);
    all.addAll(culled);
    checkDuplicates(all, query.span());
    Optional<Shape> topK = specialK(query, keys, metrics, computations, having, orderBy, selected);
    if (topK.isPresent()) {
      return topK.get();
    }
    return groupShape(
        query,
        keys,
        metrics,
        having,
        computations,
        orderBy,
        culled,
        columnOrder(natural, selected));
  }

  private static boolean isKeyOrMetric(String name, List<NamedExpr> keys, List<Metric> metrics) {
    return keys.stream().anyMatch(k -> k.name().equals(name))
        || metrics.stream().anyMatch(m -> m.name().equals(name));
  }

  private static Map<String, String> namesOf(List<NamedExpr> keys, List<Metric> metrics) {
    Map<String, String> names = new HashMap<>();
    for (NamedExpr k : keys) {
      names.put(k.name(), BqlPrinter.name(k.expr(), Map.of()));
    }
    for (Metric m : metrics) {
      names.put(m.name(), BqlPrinter.aggregateName(m.kind(), m.arguments()));
    }
    return names;
  }

  private Shape groupShape(
      Query query,
      List<NamedExpr> keys,
      List<Metric> metrics,
      Optional<Expr> having,
      List<NamedExpr> computations,
      List<SortKey> orderBy,
      List<String> culled,
      Optional<List<String>> columnOrder) {
    Optional<Integer> limit = limit(query, limits.maxGroups(), "groups");
    int groupLimit = limits.maxGroups();
    Optional<Integer> postLimit = Optional.empty();
    // With HAVING or ORDER BY, the LIMIT applies after them, to the whole result.
    if (having.isPresent() || !orderBy.isEmpty()) {
      postLimit = limit;
    } else {
      groupLimit = limit.orElse(limits.maxGroups());
    }
    PostAggregation post =
        new PostAggregation(having, computations, orderBy, postLimit, culled, columnOrder);
    return new Shape(new Aggregation.Group(keys, metrics, groupLimit), post);
  }

  /**
   * Bullet's rewrite of {@code SELECT keys, COUNT(*) ... GROUP BY keys [HAVING COUNT(*) >= n] ORDER
   * BY COUNT(*) DESC LIMIT k} to a TOP K.
   */
  private Optional<Shape> specialK(
      Query query,
      List<NamedExpr> keys,
      List<Metric> metrics,
      List<NamedExpr> computations,
      Optional<Expr> having,
      List<SortKey> orderBy,
      List<String> selected) {
    if (keys.isEmpty()
        || metrics.size() != 1
        || metrics.get(0).kind() != MetricKind.COUNT
        || !computations.isEmpty()
        || orderBy.size() != 1
        || query.limit().isEmpty()) {
      return Optional.empty();
    }
    String count = metrics.get(0).name();
    if (selected.size() != keys.size() + 1 || !selected.contains(count)) {
      return Optional.empty();
    }
    for (NamedExpr k : keys) {
      if (!selected.contains(k.name())) {
        return Optional.empty();
      }
    }
    SortKey sort = orderBy.get(0);
    if (!sort.descending() || !sort.expr().equals(FieldRef.of(count))) {
      return Optional.empty();
    }
    Optional<Long> minCount = Optional.empty();
    if (having.isPresent()) {
      if (!(having.get() instanceof Call ge)
          || ge.op() != Op.GE
          || !ge.arg(0).equals(FieldRef.of(count))
          || !(ge.arg(1) instanceof Literal threshold)
          || !(threshold.value() instanceof Integer || threshold.value() instanceof Long)) {
        return Optional.empty();
      }
      minCount = Optional.of(((Number) threshold.value()).longValue());
    }
    long k = query.limit().get().value();
    if (k < 1 || k > limits.maxTopK()) {
      return Optional.empty();
    }
    List<String> natural = new ArrayList<>();
    keys.forEach(key -> natural.add(key.name()));
    natural.add(count);
    PostAggregation post =
        new PostAggregation(
            Optional.empty(),
            List.of(),
            List.of(),
            Optional.empty(),
            List.of(),
            columnOrder(natural, selected));
    return Optional.of(new Shape(new Aggregation.TopK((int) k, minCount, keys, count), post));
  }

  // ---------------------------------------------------------------- count distinct

  private Shape countDistinct(QueryBinding q) {
    Query query = q.query;
    Expression.Call call = null;
    for (Expression a : allAggregates(query)) {
      call = (Expression.Call) a;
      break;
    }
    Metric metric = metric(call);
    String name = metric.name();
    for (SelectItem item : query.select()) {
      if (item instanceof Item i
          && i.expression() instanceof Expression.Call c
          && ExpressionBinder.isAggregate(c)) {
        name = aliasOr(i, name);
        break;
      }
    }
    String cdName = name;
    Set<String> columns = new LinkedHashSet<>(List.of(cdName));
    ResultScope scope =
        new ResultScope(Map.of(), columns, a -> FieldRef.of(cdName), "of COUNT DISTINCT");
    List<String> selected = new ArrayList<>();
    List<NamedExpr> computations = new ArrayList<>();
    boolean cdSelected = false;
    for (SelectItem item : query.select()) {
      if (!(item instanceof Item i)) {
        continue;
      }
      Expr bound = expressions.bind(i.expression(), scope);
      String itemName;
      if (!cdSelected
          && ExpressionBinder.isAggregate(i.expression())
          && aliasOr(i, metric.name()).equals(cdName)) {
        cdSelected = true;
        itemName = cdName;
      } else {
        itemName = aliasOr(i, BqlPrinter.name(bound, Map.of(cdName, metric.name())));
        computations.add(new NamedExpr(bound, itemName));
        columns.add(itemName);
      }
      selected.add(itemName);
    }
    forbid(
        query.limit(),
        query.span(),
        "LIMIT is not supported with COUNT DISTINCT",
        "Remove the LIMIT");
    if (!query.orderBy().isEmpty()) {
      error(
          query.orderBy().get(0).span(),
          "ORDER BY is not supported with COUNT DISTINCT",
          "Remove the ORDER BY");
    }
    List<String> natural = new ArrayList<>();
    List<String> culled = new ArrayList<>();
    if (cdSelected) {
      natural.add(cdName);
    } else {
      culled.add(cdName);
    }
    computations.forEach(c -> natural.add(c.name()));
    List<String> all = new ArrayList<>(natural);
    all.addAll(culled);
    checkDuplicates(all, query.span());
    PostAggregation post =
        new PostAggregation(
            Optional.empty(),
            computations,
            List.of(),
            Optional.empty(),
            culled,
            columnOrder(natural, selected));
    return new Shape(new Aggregation.CountDistinct(metric.arguments(), cdName), post);
  }

  private static List<Expression> allAggregates(Query query) {
    List<Expression> aggregates = new ArrayList<>();
    for (SelectItem item : query.select()) {
      if (item instanceof Item i) {
        aggregates.addAll(ExpressionBinder.aggregatesIn(i.expression()));
      }
    }
    query.having().ifPresent(h -> aggregates.addAll(ExpressionBinder.aggregatesIn(h)));
    for (Query.SortItem sort : query.orderBy()) {
      aggregates.addAll(ExpressionBinder.aggregatesIn(sort.expression()));
    }
    return aggregates;
  }

  // ---------------------------------------------------------------- distributions

  private static final List<String> QUANTILE_COLUMNS = List.of("Value", "Quantile");
  private static final List<String> FREQUENCY_COLUMNS = List.of("Probability", "Count", "Range");

  private Shape distribution(QueryBinding q) {
    Query query = q.query;
    Expression.Distribution d = null;
    for (Expression a : allAggregates(query)) {
      if (a instanceof Expression.Distribution found) {
        if (d != null && !sameDistribution(d, found)) {
          error(
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
    Expr value = bindRecord(d.value(), "inside a distribution: aggregates cannot be nested");
    expressions.requireNumeric(value, d.value().span(), d.function().name());
    Aggregation.Points points = points(d, kind);
    List<String> outputs =
        kind == Aggregation.DistributionKind.QUANTILE ? QUANTILE_COLUMNS : FREQUENCY_COLUMNS;
    Set<String> columns = new LinkedHashSet<>(outputs);
    AggregateSink sink =
        a -> {
          error(
              a.span(),
              "An aggregate cannot be used as a value in a distribution query",
              "Use the distribution's columns instead: " + String.join(", ", outputs));
          return Literal.NULL;
        };
    ResultScope scope = new ResultScope(Map.of(), columns, sink, "of " + d.function());
    List<NamedExpr> computations = new ArrayList<>();
    for (SelectItem item : query.select()) {
      if (item instanceof Item i) {
        if (i.expression() instanceof Expression.Distribution) {
          continue; // Its columns are fixed; an alias has nothing to name, as in Bullet.
        }
        Expr bound = expressions.bind(i.expression(), scope);
        String name = aliasOr(i, defaultName(bound));
        computations.add(new NamedExpr(bound, name));
        columns.add(name);
      } else {
        error(item.span(), "SELECT * cannot be used with a distribution", "Remove the *");
      }
    }
    List<String> names = new ArrayList<>(outputs);
    computations.forEach(c -> names.add(c.name()));
    checkDuplicates(names, query.span());
    List<SortKey> orderBy = orderBy(query, scope);
    int limit =
        limit(query, limits.maxDistributionPoints() + 1, "distributions")
            .orElse(limits.maxDistributionPoints() + 1);
    PostAggregation post =
        new PostAggregation(
            Optional.empty(), computations, orderBy, Optional.empty(), List.of(), Optional.empty());
    return new Shape(new Aggregation.Distribution(kind, value, points, limit), post);
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
    int max = limits.maxDistributionPoints();
    boolean quantile = kind == Aggregation.DistributionKind.QUANTILE;
    switch (d.mode()) {
      case LINEAR:
        {
          Expression.Literal n = numbers.get(0);
          if (!(n.value() instanceof Integer || n.value() instanceof Long)) {
            error(n.span(), "LINEAR needs a whole number of points", "Write e.g. LINEAR, 11");
            return new Aggregation.Points.Linear(1);
          }
          long count = ((Number) n.value()).longValue();
          if (count < 1 || count > max) {
            error(
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
            error(
                numbers.get(2).span(), "The step of REGION must be positive", "Use a step above 0");
          } else if (start >= end) {
            error(span, "The start of REGION must be below its end", "Swap start and end");
          } else if ((end - start) / step + 1 > max) {
            error(
                span,
                "REGION asks for more than " + max + " points",
                "Use a larger step or a narrower region");
          } else if (quantile && (start < 0 || end > 1)) {
            error(
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
              error(
                  n.span(),
                  "QUANTILE points are fractions between 0 and 1, not " + p,
                  "Use fractions such as 0.5 or 0.99");
            }
            points.add(p);
          }
          if (points.size() > max) {
            error(
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

  private boolean sameTop(Expression.Call a, Expression.Call b) {
    return quietly(() -> topArgs(a)).equals(quietly(() -> topArgs(b)));
  }

  private List<Expr> topArgs(Expression.Call call) {
    List<Expr> args = new ArrayList<>();
    for (Expression arg : call.args()) {
      args.add(bindRecord(arg, ""));
    }
    return args;
  }

  private Shape topK(QueryBinding q) {
    Query query = q.query;
    Expression.Call top = null;
    for (Expression a : allAggregates(query)) {
      Expression.Call found = (Expression.Call) a;
      if (top != null && !sameTop(top, found)) {
        error(found.span(), "A query can have only one TOP", "Split it into one query per TOP");
      }
      if (top == null) {
        top = found;
      }
    }
    List<Expression> args = top.args();
    int k = 1;
    Optional<Long> minCount = Optional.empty();
    int first = 1;
    if (args.isEmpty()
        || !(args.get(0) instanceof Expression.Literal size)
        || !(size.value() instanceof Integer || size.value() instanceof Long)) {
      error(
          top.span(),
          "TOP needs k, a whole number, first",
          "Call it as " + ExpressionBinder.usage("TOP"));
    } else {
      long value = ((Number) size.value()).longValue();
      if (value < 1 || value > limits.maxTopK()) {
        error(
            size.span(),
            "TOP's k must be between 1 and " + limits.maxTopK() + ", not " + value,
            "Use a k of " + limits.maxTopK() + " or less");
      } else {
        k = (int) value;
      }
      if (args.size() > 2
          && args.get(1) instanceof Expression.Literal threshold
          && (threshold.value() instanceof Integer || threshold.value() instanceof Long)) {
        minCount = Optional.of(((Number) threshold.value()).longValue());
        first = 2;
      }
    }
    if (args.size() <= first) {
      error(
          top.span(),
          "TOP needs at least one field",
          "Call it as " + ExpressionBinder.usage("TOP"));
    }
    List<Expr> fields = new ArrayList<>();
    for (Expression arg : args.subList(Math.min(first, args.size()), args.size())) {
      Expr bound = bindRecord(arg, "inside TOP: aggregates cannot be nested");
      primitiveKey(bound, arg.span(), "TOP");
      fields.add(bound);
    }
    // Other select items that are a TOP field name it; the TOP item names the count.
    Map<Expr, String> fieldNames = new LinkedHashMap<>();
    String countName = TOP_COUNT;
    List<Item> rest = new ArrayList<>();
    List<String> selected = new ArrayList<>();
    boolean allFieldsListed = true;
    for (SelectItem item : query.select()) {
      if (!(item instanceof Item i)) {
        error(item.span(), "SELECT * cannot be used with TOP", "Remove the *");
        continue;
      }
      if (i.expression() instanceof Expression.Call c && c.name().equals("TOP")) {
        countName = i.alias().orElse(TOP_COUNT);
        selected.add(countName);
        continue;
      }
      if (ExpressionBinder.aggregatesIn(i.expression()).isEmpty()) {
        Expr bound = quietly(() -> expressions.bind(i.expression(), new RecordScope()));
        if (fields.contains(bound) && !fieldNames.containsKey(bound)) {
          String name = aliasOr(i, defaultName(bound));
          fieldNames.put(bound, name);
          selected.add(name);
          continue;
        }
      }
      rest.add(i);
    }
    List<NamedExpr> named = new ArrayList<>();
    for (Expr f : fields) {
      if (!fieldNames.containsKey(f)) {
        allFieldsListed = false;
      }
      named.add(new NamedExpr(f, fieldNames.getOrDefault(f, defaultName(f))));
    }
    Set<String> columns = new LinkedHashSet<>();
    named.forEach(n -> columns.add(n.name()));
    columns.add(countName);
    AggregateSink sink =
        a -> {
          error(
              a.span(),
              "TOP cannot be used as a value",
              "Use its count column instead, named with AS");
          return Literal.NULL;
        };
    ResultScope scope = new ResultScope(Map.of(), columns, sink, "of TOP");
    List<NamedExpr> computations = new ArrayList<>();
    for (Item i : rest) {
      Expr bound = expressions.bind(i.expression(), scope);
      String name = aliasOr(i, defaultName(bound));
      computations.add(new NamedExpr(bound, name));
      columns.add(name);
      selected.add(name);
    }
    List<String> natural = new ArrayList<>();
    named.forEach(n -> natural.add(n.name()));
    natural.add(countName);
    computations.forEach(c -> natural.add(c.name()));
    checkDuplicates(natural, query.span());
    forbid(
        query.limit(),
        query.span(),
        "LIMIT is not supported with TOP",
        "Remove the LIMIT: TOP's k is the number of results");
    if (!query.orderBy().isEmpty()) {
      error(
          query.orderBy().get(0).span(),
          "ORDER BY is not supported with TOP",
          "Remove the ORDER BY: TOP sorts by count");
    }
    Optional<List<String>> order =
        allFieldsListed ? columnOrder(natural, selected) : Optional.empty();
    PostAggregation post =
        new PostAggregation(
            Optional.empty(), computations, List.of(), Optional.empty(), List.of(), order);
    return new Shape(new Aggregation.TopK(k, minCount, named, countName), post);
  }
}
