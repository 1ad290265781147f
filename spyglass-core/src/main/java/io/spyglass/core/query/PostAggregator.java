package io.spyglass.core.query;

import io.spyglass.core.exec.Eval;
import io.spyglass.core.exec.EvalStats;
import io.spyglass.core.exec.ExprCompiler;
import io.spyglass.core.plan.NamedExpr;
import io.spyglass.core.plan.PostAggregation;
import io.spyglass.core.record.Record;
import io.spyglass.core.record.Values;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Applies a {@link PostAggregation} to the rows of a window: HAVING, computed columns, ORDER BY,
 * LIMIT, removal of helper columns and column order. Runs at emit time, not per record.
 */
final class PostAggregator {
  private final PostAggregation post;
  private final Eval having;
  private final Eval[] computations;
  private final String[] computedNames;
  private final Eval[] sortKeys;
  private final boolean[] descending;

  PostAggregator(PostAggregation post, LongSupplier clock) {
    this.post = post;
    ExprCompiler compiler = new ExprCompiler(clock, new EvalStats());
    this.having = post.having().map(compiler::compile).orElse(null);
    this.computations =
        post.computations().stream().map(c -> compiler.compile(c.expr())).toArray(Eval[]::new);
    this.computedNames = post.computations().stream().map(NamedExpr::name).toArray(String[]::new);
    this.sortKeys =
        post.orderBy().stream().map(k -> compiler.compile(k.expr())).toArray(Eval[]::new);
    this.descending = new boolean[sortKeys.length];
    for (int i = 0; i < descending.length; i++) {
      descending[i] = post.orderBy().get(i).descending();
    }
  }

  List<Map<String, Object>> apply(List<Map<String, Object>> rows) {
    if (post.isEmpty()) {
      return rows;
    }
    List<Map<String, Object>> out = new ArrayList<>(rows.size());
    List<Object[]> keys = new ArrayList<>(rows.size());
    for (Map<String, Object> row : rows) {
      Record r = Record.fromMap(row);
      if (having != null) {
        int k = having.eval(r);
        if (k != Record.BOOLEAN || having.l == 0) {
          continue;
        }
      }
      Map<String, Object> next = new LinkedHashMap<>(row);
      for (int i = 0; i < computations.length; i++) {
        Object v = computations[i].boxed(computations[i].eval(r));
        next.put(computedNames[i], v);
        r.put(computedNames[i], v);
      }
      if (sortKeys.length > 0) {
        Object[] key = new Object[sortKeys.length];
        for (int i = 0; i < sortKeys.length; i++) {
          key[i] = sortKeys[i].boxed(sortKeys[i].eval(r));
        }
        keys.add(key);
      }
      out.add(next);
    }
    if (sortKeys.length > 0) {
      List<Integer> order = new ArrayList<>(out.size());
      for (int i = 0; i < out.size(); i++) {
        order.add(i);
      }
      Comparator<Integer> cmp =
          (a, b) -> {
            Object[] ka = keys.get(a);
            Object[] kb = keys.get(b);
            for (int i = 0; i < ka.length; i++) {
              int c = Values.compare(ka[i], kb[i]);
              if (c != 0) {
                return descending[i] ? -c : c;
              }
            }
            return 0;
          };
      order.sort(cmp);
      List<Map<String, Object>> sorted = new ArrayList<>(out.size());
      for (int i : order) {
        sorted.add(out.get(i));
      }
      out = sorted;
    }
    if (post.limit().isPresent() && out.size() > post.limit().get()) {
      out = new ArrayList<>(out.subList(0, post.limit().get()));
    }
    if (!post.culled().isEmpty() || post.columnOrder().isPresent()) {
      for (int i = 0; i < out.size(); i++) {
        out.set(i, shape(out.get(i)));
      }
    }
    return out;
  }

  private Map<String, Object> shape(Map<String, Object> row) {
    for (String c : post.culled()) {
      row.remove(c);
    }
    if (post.columnOrder().isEmpty()) {
      return row;
    }
    Map<String, Object> ordered = new LinkedHashMap<>(row.size() * 2);
    for (String c : post.columnOrder().get()) {
      if (row.containsKey(c)) {
        ordered.put(c, row.get(c));
      }
    }
    for (Map.Entry<String, Object> e : row.entrySet()) {
      ordered.putIfAbsent(e.getKey(), e.getValue());
    }
    return ordered;
  }
}
