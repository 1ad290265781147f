package io.spyglass.core.plan;

import io.spyglass.core.plan.QueryPlan.LateralView;
import io.spyglass.core.syntax.BqlError;
import io.spyglass.core.syntax.BqlException;
import io.spyglass.core.syntax.Expression;
import io.spyglass.core.syntax.Select;
import io.spyglass.core.syntax.Select.SelectItem;
import io.spyglass.core.syntax.Span;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Turns a syntax tree into a validated {@link QueryPlan}. Collects every error it can find before
 * failing. One instance binds one statement: it classifies each SELECT by its kind of aggregation
 * and hands it to the binder of that kind ({@link RawBinder}, {@link GroupBinder}, {@link
 * CountDistinctBinder}, {@link DistributionBinder}, {@link TopKBinder}); {@link WindowBinder} binds
 * the duration and window.
 */
final class Binder {
  private final BindContext cx;
  private final WindowBinder windows;
  private final RawBinder raw;
  private final GroupBinder groups;

  /**
   * @param text the query text, for naming columns as written
   */
  Binder(QueryLimits limits, String text) {
    this.cx = new BindContext(limits, text);
    this.windows = new WindowBinder(cx);
    this.raw = new RawBinder(cx);
    this.groups = new GroupBinder(cx);
  }

  QueryPlan bindStatement(Select query) {
    QueryPlan plan;
    if (query.source() instanceof Select.SubQuery sub) {
      Select inner = sub.query();
      if (inner.source() instanceof Select.SubQuery nested) {
        cx.error(
            nested.span(),
            "Queries can be nested only one level deep",
            "Select FROM a query that reads FROM STREAM(...)");
        throw new BqlException(cx.errors);
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
    if (!cx.errors.isEmpty()) {
      cx.errors.sort(Comparator.comparingInt((BqlError e) -> e.span().start()));
      throw new BqlException(cx.errors);
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

  private QueryPlan bindQuery(Select query, Optional<Long> outerDuration) {
    boolean outer = outerDuration.isPresent();
    long duration = outer ? outerDuration.get() : windows.duration(query);
    List<LateralView> views = new ArrayList<>();
    for (Select.LateralView view : query.lateralViews()) {
      views.add(cx.lateralView(view));
    }
    for (SelectItem item : query.select()) {
      if (item instanceof Select.Explode explode) {
        views.add(cx.lateralView(explode.view()));
      }
    }
    Optional<Expr> where = Optional.empty();
    if (query.where().isPresent()) {
      Expression w = query.where().get();
      Expr bound = cx.bindRecord(w, "in WHERE");
      cx.expressions.requireBoolean(bound, w.span(), "WHERE");
      where = Optional.of(bound);
    }
    Kind kind = classify(query);
    cx.exactGroups =
        duration == QueryPlan.FOREVER
            || query.window().orElse(null) instanceof Select.EventTimeTumbling;
    BoundAggregation shape =
        switch (kind) {
          case RAW -> raw.projection(query);
          case ALL -> raw.all(query);
          case DISTINCT -> groups.distinct(query);
          case GROUP -> groups.group(query);
          case COUNT_DISTINCT -> new CountDistinctBinder(cx).bind(query);
          case DISTRIBUTION -> new DistributionBinder(cx).bind(query);
          default -> new TopKBinder(cx).bind(query);
        };
    if (query.having().isPresent() && query.groupBy().isEmpty()) {
      cx.error(
          query.having().get().span(),
          "HAVING needs a GROUP BY",
          "Add a GROUP BY, or filter records with WHERE instead");
    }
    Window window = windows.window(query, kind == Kind.RAW || kind == Kind.ALL, outer);
    if (duration == QueryPlan.FOREVER
        && !outer
        && (kind == Kind.RAW || kind == Kind.ALL)
        && query.window().isEmpty()) {
      cx.error(
          ((Select.Stream) query.source()).duration().get().span(),
          "A raw query without a window ends once it has its LIMIT of records: it cannot run"
              + " FOREVER",
          "Add a WINDOWING clause (such as TUMBLING(1000, TIME)), or give a duration such as"
              + " STREAM(30s, TIME)");
    }
    return new QueryPlan(
        duration, views, where, shape.aggregation(), shape.post(), window, Optional.empty());
  }

  private Kind classify(Select query) {
    Map<Kind, Span> kinds = new LinkedHashMap<>();
    Set<Expr> countDistincts = new LinkedHashSet<>();
    boolean groupFunctions = false;
    if (query.distinct()) {
      kinds.putIfAbsent(Kind.DISTINCT, query.span());
    }
    for (SelectItem item : query.select()) {
      if (item instanceof Select.Star) {
        kinds.putIfAbsent(Kind.ALL, item.span());
      }
    }
    query.groupBy().ifPresent(g -> kinds.putIfAbsent(Kind.GROUP, query.span()));
    Span countDistinctSpan = null;
    for (Expression a : BindContext.allAggregates(query)) {
      if (a instanceof Expression.Distribution) {
        kinds.putIfAbsent(Kind.DISTRIBUTION, a.span());
        continue;
      }
      Expression.Call call = (Expression.Call) a;
      if (call.name().equals("TOP")) {
        kinds.putIfAbsent(Kind.TOP_K, a.span());
      } else if (call.name().equals("COUNT") && call.distinct()) {
        countDistincts.add(cx.quietly(() -> cx.metricArguments(call, false)));
        if (countDistinctSpan == null) {
          countDistinctSpan = a.span();
        }
      } else {
        groupFunctions = true;
        kinds.putIfAbsent(Kind.GROUP, a.span());
      }
    }
    if (!countDistincts.isEmpty() && !kinds.containsKey(Kind.GROUP)) {
      // Several COUNT DISTINCTs: per-group metrics of GROUP ALL.
      kinds.put(countDistincts.size() > 1 ? Kind.GROUP : Kind.COUNT_DISTINCT, countDistinctSpan);
    }
    if (kinds.size() > 1) {
      List<Kind> list = new ArrayList<>(kinds.keySet());
      Kind second = list.get(1);
      cx.error(
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
}
