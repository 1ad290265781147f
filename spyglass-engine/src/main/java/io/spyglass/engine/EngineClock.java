package io.spyglass.engine;

import java.util.function.LongSupplier;

/**
 * The engine's one source of time, given in its {@link EngineConfig} (and to an ingest log) by
 * whoever builds it: the wall clock (epoch milliseconds) for what is stamped or shown as a moment
 * (a record's read time, a query's start, its windows), which is what the clock gives as a {@link
 * LongSupplier}; a monotonic clock (nanoseconds from an arbitrary origin) for waits and timeouts,
 * which a change of the wall clock does not move. Nothing else in the engine reads the machine's
 * clocks; a test gives its own to control time.
 */
public final class EngineClock implements LongSupplier {
  private static final EngineClock SYSTEM =
      new EngineClock(System::currentTimeMillis, System::nanoTime);

  private final LongSupplier wallMillis;
  private final LongSupplier monotonicNanos;

  /**
   * @param wallMillis the time now, in epoch milliseconds
   * @param monotonicNanos a count of nanoseconds that only grows, from any origin
   */
  public EngineClock(LongSupplier wallMillis, LongSupplier monotonicNanos) {
    this.wallMillis = wallMillis;
    this.monotonicNanos = monotonicNanos;
  }

  /** The machine's clocks: {@code System.currentTimeMillis} and {@code System.nanoTime}. */
  public static EngineClock system() {
    return SYSTEM;
  }

  /**
   * {@code wallMillis} for the wall clock, the machine's monotonic clock for durations: for a
   * caller that gives the wall clock alone. An engine clock is returned as it is.
   */
  public static EngineClock ofWall(LongSupplier wallMillis) {
    if (wallMillis instanceof EngineClock c) {
      return c;
    }
    return new EngineClock(wallMillis, SYSTEM.monotonicNanos);
  }

  /** The time now on the wall clock, in epoch milliseconds. */
  public long millis() {
    return wallMillis.getAsLong();
  }

  /** {@link #millis()}: the engine clock, for the parts that take the wall clock alone. */
  @Override
  public long getAsLong() {
    return millis();
  }

  /** The monotonic clock's count now, in nanoseconds (only differences mean something). */
  public long nanos() {
    return monotonicNanos.getAsLong();
  }

  /** A deadline {@code ms} milliseconds from now on the monotonic clock, in its nanoseconds. */
  public long deadlineIn(long ms) {
    return nanos() + ms * 1_000_000;
  }

  /** Milliseconds left until {@code deadlineNanos} (from {@link #deadlineIn}), 0 when past. */
  public long msLeft(long deadlineNanos) {
    return Math.max(0, (deadlineNanos - nanos()) / 1_000_000);
  }
}
