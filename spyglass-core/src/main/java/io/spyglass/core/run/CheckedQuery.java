package io.spyglass.core.run;

import io.spyglass.core.plan.Bql;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.plan.QueryPlan;
import io.spyglass.core.query.Query;
import io.spyglass.core.syntax.BqlException;
import java.util.Objects;

/**
 * A query's text checked once: its plan, compiled under the limits it runs with. What the service
 * hands a runtime and the command hands the engine: the runtime runs the plan as it is, without
 * compiling the text again, under these limits (the Flink job gets them with the text). Immutable.
 *
 * @param text the query as written
 * @param plan its plan, bound under {@code limits}
 * @param limits what the query may ask for, and what its executors keep to
 */
public record CheckedQuery(String text, QueryPlan plan, QueryLimits limits) {
  public CheckedQuery {
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(plan, "plan");
    Objects.requireNonNull(limits, "limits");
  }

  /**
   * Parses, binds and validates {@code text} under {@code limits}.
   *
   * @throws BqlException with every error found, each with its position and a resolution
   */
  public static CheckedQuery check(String text, QueryLimits limits) {
    return new CheckedQuery(text, Bql.compile(text, limits), limits);
  }

  /** The query as a runtime runs it: this plan and these limits, with an id and a start. */
  public Query toQuery(String id, long receiveTimeMs) {
    return new Query(id, text, plan, receiveTimeMs, limits);
  }

  /** How long it runs, from its start; see {@link QueryPlan#durationMs(QueryLimits)}. */
  public long durationMs() {
    return plan.durationMs(limits);
  }
}
