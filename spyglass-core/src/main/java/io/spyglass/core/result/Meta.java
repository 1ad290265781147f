package io.spyglass.core.result;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Metadata of a {@link Result}.
 *
 * @param queryId the query's id
 * @param queryText the query as submitted
 * @param receiveTimeMs when the query started, epoch milliseconds of the engine clock
 * @param finishTimeMs when the query finished; empty for results of a window of a running query
 * @param window the window this result closes; empty for a query without a window
 * @param sketch metadata of the sketch behind the records (estimated or not, error bounds, family,
 *     size); empty for exact aggregations
 * @param errors problems that stopped the query, such as going over the emit rate limit; empty when
 *     none (values that could not be evaluated are counted in the engine's statistics)
 * @param isFinal whether this is the query's last result
 */
public record Meta(
    String queryId,
    String queryText,
    long receiveTimeMs,
    Optional<Long> finishTimeMs,
    Optional<WindowMeta> window,
    Map<String, Object> sketch,
    List<QueryError> errors,
    boolean isFinal) {
  public Meta {
    sketch = Map.copyOf(sketch);
    errors = List.copyOf(errors);
  }

  /**
   * @param number 1 for the first window of the query
   * @param name the window kind as written in BQL, e.g. {@code TUMBLING(5000, TIME)}
   * @param emitTimeMs when this result was emitted
   * @param startTimeMs when the window's content began (for a sliding window, its oldest pane)
   * @param size records in this result
   */
  public record WindowMeta(
      long number, String name, long emitTimeMs, long startTimeMs, long size) {}

  /**
   * An error in running a query. {@code fatal} errors ended the query.
   *
   * @param message what happened
   * @param resolution what to do about it
   */
  public record QueryError(String message, String resolution, boolean fatal) {}
}
