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

  Window NONE = new None();
}
