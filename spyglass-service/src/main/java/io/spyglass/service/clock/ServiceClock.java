package io.spyglass.service.clock;

import java.util.function.LongSupplier;

/**
 * The service's one source of time, given to every part that needs it by whoever builds the
 * service: the wall clock (epoch milliseconds) for timestamps, what is stored or shown as a moment,
 * and ages measured against such a moment; a monotonic clock (nanoseconds from an arbitrary origin)
 * for durations, deadlines and timeouts, which a change of the wall clock does not move. Nothing
 * else in the service reads the machine's clocks; a test gives its own to control time.
 *
 * <p>The parts that only stamp or compare moments take the wall clock alone, as a {@code
 * LongSupplier clock} ({@link #wall()}).
 */
public final class ServiceClock {
  private static final ServiceClock SYSTEM =
      new ServiceClock(System::currentTimeMillis, System::nanoTime);

  private final LongSupplier wallMillis;
  private final LongSupplier monotonicNanos;

  /**
   * @param wallMillis the time now, in epoch milliseconds
   * @param monotonicNanos a count of nanoseconds that only grows, from any origin
   */
  public ServiceClock(LongSupplier wallMillis, LongSupplier monotonicNanos) {
    this.wallMillis = wallMillis;
    this.monotonicNanos = monotonicNanos;
  }

  /** The machine's clocks: {@code System.currentTimeMillis} and {@code System.nanoTime}. */
  public static ServiceClock system() {
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

  /** The wall clock, for the parts that take it alone. */
  public LongSupplier wall() {
    return wallMillis;
  }

  /** Milliseconds on the monotonic clock since {@code startNanos}, a {@link #nanos()} of before. */
  public long msSince(long startNanos) {
    return (nanos() - startNanos) / 1_000_000;
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
