package io.spyglass.core.plan;

import static io.spyglass.core.plan.BindContext.columnOrder;

import io.spyglass.core.plan.Aggregation.Metric;
import io.spyglass.core.plan.Aggregation.MetricKind;
import io.spyglass.core.plan.PostAggregation.SortKey;
import io.spyglass.core.syntax.Expression;
import io.spyglass.core.syntax.Select;
import io.spyglass.core.syntax.Select.Item;
import io.spyglass.core.syntax.Select.SelectItem;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Binds {@code SELECT DISTINCT} and grouped queries (GROUP BY, group all). */
final class GroupBinder {
  private final BindContext cx;

  GroupBinder(BindContext cx) {
    this.cx = cx;
  }

  BoundAggregation distinct(Select query) {
    List<NamedExpr> keys = new ArrayList<>();
    Map<Expr, String> known = new LinkedHashMap<>();
    for (SelectItem item : query.select()) {
      if (item instanceof Item i) {
        Expr bound = cx.bindRecord(i.expression(), "in SELECT DISTINCT");
        cx.primitiveKey(bound, i.span(), "SELECT DISTINCT");
        String name = cx.nameOf(i);
        keys.add(new NamedExpr(bound, name));
        known.putIfAbsent(bound, name);
      } else {
        cx.error(
            item.span(), "SELECT DISTINCT takes expressions only", "List the fields to select");
      }
    }
    cx.checkDuplicates(keys.stream().map(NamedExpr::name).toList(), query.span());
    Set<String> columns = new LinkedHashSet<>();
    keys.forEach(k -> columns.add(k.name()));
    BindContext.ResultScope scope =
        cx
        .new ResultScope(
            known,
            columns,
            cx.noAggregate(
                "Aggregates are not allowed with SELECT DISTINCT", "Remove the aggregate"),
            "of SELECT DISTINCT",
            false);
    List<SortKey> orderBy = cx.orderBy(query, scope);
    return shape(
        query, keys, List.of(), Optional.empty(), List.of(), orderBy, List.of(), Optional.empty());
  }

  /** The state of binding one grouped query: its keys, metrics and columns so far. */
  private final class Grouping {
    final List<NamedExpr> keys;
    final List<Metric> metrics = new ArrayList<>();
    final Map<Metric, String> metricNames = new HashMap<>();
    final Set<String> columns = new LinkedHashSet<>();

    Grouping(List<NamedExpr> keys) {
      this.keys = keys;
      keys.forEach(k -> columns.add(k.name()));
    }

    /** A metric used in a result expression: its column, added as a helper if not selected. */
    Expr aggregate(Expression a) {
      if (!(a instanceof Expression.Call call) || call.name().equals("TOP")) {
        return Literal.NULL; // Already reported as a mix of aggregation kinds.
      }
      Metric m = cx.metric(call);
      String name = metricNames.get(m);
      if (name == null) {
        name = m.name();
        metricNames.put(m, name);
        metrics.add(m);
        columns.add(name);
      }
      return FieldRef.of(name);
    }

    boolean isKeyOrMetric(String name) {
      return keys.stream().anyMatch(k -> k.name().equals(name))
          || metrics.stream().anyMatch(m -> m.name().equals(name));
    }
  }

  BoundAggregation group(Select query) {
    Map<Expr, String> keyNames = keyNames(query);
    List<NamedExpr> keys = new ArrayList<>();
    keyNames.forEach((expr, name) -> keys.add(new NamedExpr(expr, name)));
    Grouping g = new Grouping(keys);
    selectedMetrics(query, g);
    Map<Expr, String> known = new LinkedHashMap<>();
    keys.forEach(k -> known.put(k.expr(), k.name()));
    BindContext.ResultScope scope =
        cx.new ResultScope(known, g.columns, g::aggregate, "of GROUP BY", true);
    // Select items: selected keys and metrics stay as they are; anything else is computed.
    List<String> selected = new ArrayList<>();
    List<NamedExpr> computations = new ArrayList<>();
    Set<String> selectedColumns = new HashSet<>();
    for (SelectItem item : query.select()) {
      if (!(item instanceof Item i)) {
        cx.error(
            item.span(), "SELECT * cannot be used with GROUP BY", "List the columns to select");
        continue;
      }
      Expr bound = cx.expressions.bind(i.expression(), scope);
      String name;
      if (bound instanceof FieldRef ref
          && g.isKeyOrMetric(ref.name())
          && !selectedColumns.contains(ref.name())
          && i.alias().map(a -> a.equals(ref.name())).orElse(true)
          && (keyNames.containsValue(ref.name()) || ExpressionBinder.isAggregate(i.expression()))) {
        name = ref.name();
        selectedColumns.add(name);
      } else {
        name = cx.nameOf(i);
        computations.add(new NamedExpr(bound, name));
      }
      selected.add(name);
    }
    Optional<Expr> having = Optional.empty();
    if (query.having().isPresent()) {
      Expression h = query.having().get();
      Expr bound = cx.expressions.bind(h, scope);
      cx.expressions.requireBoolean(bound, h.span(), "HAVING");
      having = Optional.of(bound);
    }
    computations.forEach(c -> g.columns.add(c.name()));
    List<SortKey> orderBy = cx.orderBy(query, scope);
    List<String> culled = new ArrayList<>();
    List<String> natural = new ArrayList<>();
    List<String> names = new ArrayList<>();
    keys.forEach(k -> names.add(k.name()));
    g.metrics.forEach(m -> names.add(m.name()));
    for (String name : names) {
      (selectedColumns.contains(name) ? natural : culled).add(name);
    }
    computations.forEach(c -> natural.add(c.name()));
    List<String> all = new ArrayList<>(natural);
    all.addAll(culled);
    cx.checkDuplicates(all, query.span());
    Optional<BoundAggregation> topK =
        specialK(query, keys, g.metrics, computations, having, orderBy, selected);
    if (topK.isPresent()) {
      return topK.get();
    }
    return shape(
        query,
        keys,
        g.metrics,
        having,
        computations,
        orderBy,
        culled,
        columnOrder(natural, selected));
  }

  /** The GROUP BY keys, each named after the select item that selects it, in GROUP BY order. */
  private Map<Expr, String> keyNames(Select query) {
    Map<Expr, String> written = new LinkedHashMap<>();
    for (Expression key : query.groupBy().orElse(List.of())) {
      Expr bound = cx.bindRecord(key, "in GROUP BY");
      cx.primitiveKey(bound, key.span(), "GROUP BY");
      written.putIfAbsent(bound, cx.nameOf(key));
    }
    List<Expr> keyExprs = new ArrayList<>(written.keySet());
    Map<Expr, String> selectedNames = new HashMap<>();
    for (SelectItem item : query.select()) {
      if (item instanceof Item i && ExpressionBinder.aggregatesIn(i.expression()).isEmpty()) {
        Expr bound = cx.recordQuietly(i.expression());
        if (keyExprs.contains(bound)) {
          selectedNames.putIfAbsent(bound, cx.nameOf(i));
        }
      }
    }
    Map<Expr, String> names = new LinkedHashMap<>();
    keyExprs.forEach(k -> names.put(k, selectedNames.getOrDefault(k, written.get(k))));
    return names;
  }

  /** The metrics selected as they are, each named by its select item, in select order. */
  private void selectedMetrics(Select query, Grouping g) {
    for (SelectItem item : query.select()) {
      if (item instanceof Item i
          && i.expression() instanceof Expression.Call call
          && ExpressionBinder.isAggregate(call)
          && !call.name().equals("TOP")) {
        Metric m = cx.quietly(() -> cx.metric(call));
        if (!g.metricNames.containsKey(m)) {
          String name = cx.nameOf(i);
          g.metricNames.put(m, name);
          g.metrics.add(new Metric(m.kind(), m.arguments(), name));
          g.columns.add(name);
        }
      }
    }
  }

  private BoundAggregation shape(
      Select query,
      List<NamedExpr> keys,
      List<Metric> metrics,
      Optional<Expr> having,
      List<NamedExpr> computations,
      List<SortKey> orderBy,
      List<String> culled,
      Optional<List<String>> columnOrder) {
    int max = cx.exactGroups ? cx.limits.maxExactGroups() : cx.limits.maxGroups();
    Optional<Integer> limit = cx.limit(query, max, "groups");
    int groupLimit = max;
    Optional<Integer> postLimit = Optional.empty();
    // With HAVING or ORDER BY, the LIMIT applies after them, to the whole result.
    if (having.isPresent() || !orderBy.isEmpty()) {
      postLimit = limit;
    } else {
      groupLimit = limit.orElse(max);
    }
    PostAggregation post =
        new PostAggregation(having, computations, orderBy, postLimit, culled, columnOrder);
    return new BoundAggregation(new Aggregation.Group(keys, metrics, groupLimit), post);
  }

  /**
   * Bullet's rewrite of {@code SELECT keys, COUNT(*) ... GROUP BY keys [HAVING COUNT(*) >= n] ORDER
   * BY COUNT(*) DESC LIMIT k} to a TOP K.
   */
  private Optional<BoundAggregation> specialK(
      Select query,
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
    if (selected.size() != keys.size() + 1
        || !selected.contains(count)
        || !keys.stream().allMatch(k -> selected.contains(k.name()))) {
      return Optional.empty();
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
    if (k < 1 || k > cx.limits.maxTopK()) {
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
    return Optional.of(
        new BoundAggregation(new Aggregation.TopK((int) k, minCount, keys, count), post));
  }
}
