package io.spyglass.core.query;

import io.spyglass.core.partial.CountDistinctPartial;
import io.spyglass.core.partial.DistributionPartial;
import io.spyglass.core.partial.GroupPartial;
import io.spyglass.core.partial.Partial;
import io.spyglass.core.partial.RawPartial;
import io.spyglass.core.partial.TopKPartial;
import io.spyglass.core.plan.Aggregation;
import io.spyglass.core.plan.NamedExpr;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.plan.QueryPlan;
import io.spyglass.core.plan.Window;
import java.util.List;

/** Creates the empty partial state of a plan's aggregation. */
final class PartialFactory {
  private PartialFactory() {}

  static Partial create(QueryPlan plan, QueryLimits limits) {
    Aggregation agg = plan.aggregation();
    if (agg instanceof Aggregation.Raw) {
      return new RawPartial(rawCapacity(plan));
    } else if (agg instanceof Aggregation.Group) {
      Aggregation.Group g = (Aggregation.Group) agg;
      return new GroupPartial(
          names(g.keys()),
          g.metrics(),
          plan.exactGroups() ? limits.maxExactGroups() : limits.maxGroups(),
          limits.countDistinctEntries());
    } else if (agg instanceof Aggregation.CountDistinct) {
      return new CountDistinctPartial(
          limits.countDistinctEntries(), ((Aggregation.CountDistinct) agg).name());
    } else if (agg instanceof Aggregation.Distribution) {
      Aggregation.Distribution d = (Aggregation.Distribution) agg;
      return new DistributionPartial(
          d.kind(), d.points(), limits.distributionEntries(), limits.maxDistributionPoints());
    } else {
      Aggregation.TopK t = (Aggregation.TopK) agg;
      return new TopKPartial(
          t.k(), t.minCount(), names(t.fields()), t.countName(), limits.topKEntries());
    }
  }

  /**
   * Records a raw partial holds: a record window's size, else the query's limit. A worker flushes a
   * raw partial as soon as it is full, so record windows close on the exact record.
   */
  static int rawCapacity(QueryPlan plan) {
    Window w = plan.window();
    if (w instanceof Window.Tumbling && ((Window.Tumbling) w).unit() == Window.Unit.RECORD) {
      return (int) ((Window.Tumbling) w).size();
    }
    if (w instanceof Window.Sliding && ((Window.Sliding) w).emitUnit() == Window.Unit.RECORD) {
      return (int) ((Window.Sliding) w).emitEvery();
    }
    return ((Aggregation.Raw) plan.aggregation()).limit();
  }

  static List<String> names(List<NamedExpr> exprs) {
    return exprs.stream().map(NamedExpr::name).toList();
  }
}
