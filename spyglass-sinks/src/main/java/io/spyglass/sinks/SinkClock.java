package io.spyglass.sinks;

import java.util.function.LongSupplier;

/**
 * The sinks' one source of time, given by whoever builds the {@link Sinks}: a monotonic clock
 * (nanoseconds from an arbitrary origin) for retries' deadlines, requests' timeouts and waits,
 * which a change of the wall clock does not move. The sinks stamp no moments, so there is no wall
 * clock here. Nothing else in the sinks reads the machine's clocks; a test gives its own to control
 * time.
 */
public final class SinkClock {
  private static final SinkClock SYSTEM = new SinkClock(System::nanoTime);

  private final LongSupplier monotonicNanos;

  /**
   * @param monotonicNanos a count of nanoseconds that only grows, from any origin
   */
  public SinkClock(LongSupplier monotonicNanos) {
    this.monotonicNanos = monotonicNanos;
  }

  /** The machine's monotonic clock: {@code System.nanoTime}. */
  public static SinkClock system() {
    return SYSTEM;
  }

  /** The monotonic clock's count now, in nanoseconds (only differences mean something). */
  public long nanos() {
    return monotonicNanos.getAsLong();
  }

  /** A deadline {@code ms} milliseconds from now, in the clock's nanoseconds. */
  public long deadlineIn(long ms) {
    return nanos() + ms * 1_000_000;
  }
}
