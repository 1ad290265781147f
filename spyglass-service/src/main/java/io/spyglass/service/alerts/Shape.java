package io.spyglass.service.alerts;

import io.spyglass.core.plan.Aggregation;
import io.spyglass.core.plan.NamedExpr;
import io.spyglass.core.plan.QueryPlan;
import java.util.ArrayList;
import java.util.List;

/**
 * The rows of a standing query's windows as an alert sees them: one row a group, its columns, and
 * the columns that tell its group apart (its labels: the GROUP BY keys, or TOP's fields).
 *
 * @param columns every column of a row
 * @param labels the columns naming a row's group; empty when a window has one row (aggregates
 *     without GROUP BY)
 */
record Shape(List<String> columns, List<String> labels) {
  Shape {
    columns = List.copyOf(columns);
    labels = List.copyOf(labels);
  }

  /** Refused: the query's rows are not groups. */
  static final class NotGroups extends Exception {
    private static final long serialVersionUID = 1L;

    NotGroups(String message) {
      super(message);
    }
  }

  /**
   * The shape of {@code plan}'s rows.
   *
   * @throws NotGroups when its rows are not one a group (raw records, distributions, an outer
   *     query)
   */
  static Shape of(QueryPlan plan) throws NotGroups {
    if (plan.outer().isPresent()) {
      throw new NotGroups("its rows are those of an outer query, not one a group");
    }
    List<String> columns = new ArrayList<>();
    List<String> labels = new ArrayList<>();
    Aggregation a = plan.aggregation();
    if (a instanceof Aggregation.Group g) {
      for (NamedExpr k : g.keys()) {
        labels.add(k.name());
        columns.add(k.name());
      }
      for (Aggregation.Metric m : g.metrics()) {
        columns.add(m.name());
      }
    } else if (a instanceof Aggregation.TopK t) {
      for (NamedExpr f : t.fields()) {
        labels.add(f.name());
        columns.add(f.name());
      }
      columns.add(t.countName());
    } else if (a instanceof Aggregation.CountDistinct d) {
      columns.add(d.name());
    } else {
      throw new NotGroups(
          a instanceof Aggregation.Raw
              ? "its rows are records, not groups"
              : "its rows are a distribution's points, not groups");
    }
    for (NamedExpr c : plan.postAggregation().computations()) {
      if (!columns.contains(c.name())) {
        columns.add(c.name());
      }
    }
    columns.removeAll(plan.postAggregation().culled());
    labels.removeAll(plan.postAggregation().culled());
    return new Shape(columns, labels);
  }
}
