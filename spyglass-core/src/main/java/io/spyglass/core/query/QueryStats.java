package io.spyglass.core.query;

/**
 * Counters of one query: the one record of them, whichever runtime counted (the engine's workers,
 * the job's filters) and whoever reads them (the service, the command).
 *
 * @param seen records offered to the engine while the query ran (routed to it or not)
 * @param matched records that passed its filter
 * @param evaluationErrors values that could not be evaluated (failed casts, type mismatches) and
 *     were taken as NULL
 */
public record QueryStats(long seen, long matched, long evaluationErrors) {
  /** Nothing counted. */
  public static final QueryStats NONE = new QueryStats(0, 0, 0);

  public QueryStats plus(QueryStats other) {
    return new QueryStats(
        seen + other.seen, matched + other.matched, evaluationErrors + other.evaluationErrors);
  }
}
