package io.spyglass.core.result;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
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
 * @param badInput input the runtime skipped (could not read as records) since the query's previous
 *     result, or its start: reason key (e.g. {@code malformedJson}) to count, in a stable order;
 *     empty when none
 * @param eventTime the event time of a query with event-time windows, as of this result; empty for
 *     other queries
 */
public record Meta(
    String queryId,
    String queryText,
    long receiveTimeMs,
    Optional<Long> finishTimeMs,
    Optional<WindowMeta> window,
    Map<String, Object> sketch,
    List<QueryError> errors,
    boolean isFinal,
    Map<String, Long> badInput,
    Optional<EventTimeMeta> eventTime) {
  public Meta {
    sketch = Map.copyOf(sketch);
    errors = List.copyOf(errors);
    badInput = Collections.unmodifiableMap(new LinkedHashMap<>(badInput));
  }

  /** Metadata without event time. */
  public Meta(
      String queryId,
      String queryText,
      long receiveTimeMs,
      Optional<Long> finishTimeMs,
      Optional<WindowMeta> window,
      Map<String, Object> sketch,
      List<QueryError> errors,
      boolean isFinal,
      Map<String, Long> badInput) {
    this(
        queryId,
        queryText,
        receiveTimeMs,
        finishTimeMs,
        window,
        sketch,
        errors,
        isFinal,
        badInput,
        Optional.empty());
  }

  /** Metadata without bad input. */
  public Meta(
      String queryId,
      String queryText,
      long receiveTimeMs,
      Optional<Long> finishTimeMs,
      Optional<WindowMeta> window,
      Map<String, Object> sketch,
      List<QueryError> errors,
      boolean isFinal) {
    this(
        queryId, queryText, receiveTimeMs, finishTimeMs, window, sketch, errors, isFinal, Map.of());
  }

  /** This metadata with the runtime's count of bad input since the previous result. */
  public Meta withBadInput(Map<String, Long> counts) {
    return new Meta(
        queryId,
        queryText,
        receiveTimeMs,
        finishTimeMs,
        window,
        sketch,
        errors,
        isFinal,
        counts,
        eventTime);
  }

  /** This metadata with one more error (e.g. the runtime's, about its source). */
  public Meta withError(QueryError error) {
    List<QueryError> all = new ArrayList<>(errors);
    all.add(error);
    return new Meta(
        queryId,
        queryText,
        receiveTimeMs,
        finishTimeMs,
        window,
        sketch,
        all,
        isFinal,
        badInput,
        eventTime);
  }

  /**
   * @param number 1 for the first window of the query
   * @param name the window kind as written in BQL, e.g. {@code TUMBLING(5000, TIME)}
   * @param emitTimeMs when this result was emitted
   * @param startTimeMs when the window's content began (for a sliding window, its oldest pane)
   * @param size records in this result
   */
  public record WindowMeta(
      long number,
      String name,
      long emitTimeMs,
      long startTimeMs,
      long size,
      Optional<EventWindow> eventWindow) {

    /** A window of the engine clock or of records. */
    public WindowMeta(long number, String name, long emitTimeMs, long startTimeMs, long size) {
      this(number, name, emitTimeMs, startTimeMs, size, Optional.empty());
    }
  }

  /**
   * What an event-time window adds to {@link WindowMeta}, whose {@code number} is then the window's
   * start divided by its size (the same for every result of the window) and whose {@code
   * startTimeMs} its start, in event time.
   *
   * @param endTimeMs where the window ends, exclusive, in event time
   * @param isFinal whether the watermark (the largest event time seen minus the lateness) has
   *     reached the window's end, or the query ended: its records will not change any more
   * @param late records that came for the window after it was final, counted in no result's
   *     records: in a {@code lateUpdate}, how many came since the window's previous result
   * @param lateUpdate whether this result only tells of late records for a window whose final
   *     result came before (its records are empty, not the window's)
   */
  public record EventWindow(long endTimeMs, boolean isFinal, long late, boolean lateUpdate) {}

  /**
   * The event time of a query with event-time windows, since it started.
   *
   * @param maxTimeMs the largest event time taken into account so far; empty before the first
   * @param watermarkMs {@code maxTimeMs} minus the lateness: a window whose end it has reached is
   *     final; empty before the first event time
   * @param late records that came for a window after it was final: counted, in no result's records
   * @param withoutTime records whose event time was missing or not a number: counted, in no window
   */
  public record EventTimeMeta(
      Optional<Long> maxTimeMs, Optional<Long> watermarkMs, long late, long withoutTime) {}

  /**
   * An error in running a query. {@code fatal} errors ended the query.
   *
   * @param message what happened
   * @param resolution what to do about it
   */
  public record QueryError(String message, String resolution, boolean fatal) {}
}
