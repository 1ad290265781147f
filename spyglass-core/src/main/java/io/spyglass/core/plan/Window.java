package io.spyglass.core.plan;

/**
 * When a query emits results before it ends.
 *
 * <ul>
 *   <li>{@link None}: one result when the query ends.
 *   <li>{@link Tumbling}: {@code TUMBLING(ms, TIME)} or {@code TUMBLING(n, RECORD)}: emit and
 *       reset.
 *   <li>{@link Additive}: {@code EVERY(ms, TIME, ALL)}: emit everything since the start,
 *       periodically.
 *   <li>{@link Sliding}: {@code EVERY(emit, unit, FIRST, size, unit)}: emit what the last {@code
 *       size} units held. {@code EVERY(n, RECORD, FIRST, n, RECORD)} is Bullet's record stream;
 *       time-based sliding windows ({@code size > emit}) are Spyglass's own.
 *   <li>{@link EventTime}: {@code TUMBLING(size, EVENT_TIME(time), LATENESS lateness)}: windows of
 *       the time each record carries, emitted once the largest time seen passes their end plus the
 *       lateness. Spyglass's own.
 * </ul>
 */
public sealed interface Window {
  enum Unit {
    TIME,
    RECORD
  }

  record None() implements Window {}

  record Tumbling(long size, Unit unit) implements Window {}

  record Additive(long emitEveryMs) implements Window {}

  record Sliding(long emitEvery, Unit emitUnit, long size, Unit sizeUnit) implements Window {}

  /**
   * Tumbling windows of event time, aligned on the epoch: the window of a record whose {@code time}
   * is {@code t} (epoch milliseconds) starts at {@code floorDiv(t, sizeMs) * sizeMs}.
   *
   * @param time the record's event time, in epoch milliseconds; a record whose value is not a
   *     number has no window (it is counted)
   * @param latenessMs how far behind the largest time seen a window stays open
   */
  record EventTime(long sizeMs, Expr time, long latenessMs) implements Window {}

  Window NONE = new None();
}
