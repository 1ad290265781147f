package io.spyglass.sources;

import java.util.function.LongSupplier;

/**
 * The sources' one source of time, given to a source by whoever opens it: the wall clock (epoch
 * milliseconds) for the event times a source stamps; a monotonic clock (nanoseconds from an
 * arbitrary origin) for a poll's wait, a pace, a source's periodic checks, which a change of the
 * wall clock does not move. Nothing else in the sources reads the machine's clocks; a test gives
 * its own to control time (a paced source released by moving the clock, not by waiting).
 */
public final class SourceClock {
  private static final SourceClock SYSTEM =
      new SourceClock(System::currentTimeMillis, System::nanoTime);

  private final LongSupplier wallMillis;
  private final LongSupplier monotonicNanos;

  /**
   * @param wallMillis the time now, in epoch milliseconds
   * @param monotonicNanos a count of nanoseconds that only grows, from any origin
   */
  public SourceClock(LongSupplier wallMillis, LongSupplier monotonicNanos) {
    this.wallMillis = wallMillis;
    this.monotonicNanos = monotonicNanos;
  }

  /** The machine's clocks: {@code System.currentTimeMillis} and {@code System.nanoTime}. */
  public static SourceClock system() {
    return SYSTEM;
  }

  /** The time now on the wall clock, in epoch milliseconds. */
  public long millis() {
    return wallMillis.getAsLong();
  }

  /** The monotonic clock's count now, in nanoseconds (only differences mean something). */
  public long nanos() {
    return monotonicNanos.getAsLong();
  }

  /** A deadline {@code ms} milliseconds from now on the monotonic clock, in its nanoseconds. */
  public long deadlineIn(long ms) {
    return nanos() + ms * 1_000_000;
  }
}
