package io.spyglass.core.query;

import io.spyglass.core.plan.Bql;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.plan.QueryPlan;
import io.spyglass.core.syntax.BqlException;
import java.util.Objects;

/**
 * A query accepted for running: its id, its text, its plan and when it was received. Immutable.
 *
 * @param receiveTimeMs the engine clock when the query was received; its duration counts from here
 * @param limits the limits it was bound with, which its executors keep to; null for the runtime's
 */
public record Query(
    String id, String text, QueryPlan plan, long receiveTimeMs, QueryLimits limits) {
  public Query {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(plan, "plan");
  }

  /** A query run under the runtime's limits. */
  public Query(String id, String text, QueryPlan plan, long receiveTimeMs) {
    this(id, text, plan, receiveTimeMs, null);
  }

  /** The limits it was bound with, or {@code runtime}'s when none. */
  public QueryLimits limitsOr(QueryLimits runtime) {
    return limits != null ? limits : runtime;
  }

  /**
   * Parses, binds and validates {@code text}.
   *
   * @throws BqlException with every error found, each with its position and a resolution
   */
  public static Query parse(String id, String text, QueryLimits limits, long receiveTimeMs) {
    return new Query(id, text, Bql.compile(text, limits), receiveTimeMs, limits);
  }

  /**
   * When the query ends by its duration, on the engine clock; {@link Long#MAX_VALUE} for one that
   * runs {@link QueryPlan#runsForever() forever}.
   */
  public long endTimeMs(QueryLimits limits) {
    long duration = plan.durationMs(limits);
    return receiveTimeMs + duration < receiveTimeMs ? Long.MAX_VALUE : receiveTimeMs + duration;
  }
}
