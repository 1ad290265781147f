package io.spyglass.core;

import java.io.Serializable;
import java.util.function.LongSupplier;

/**
 * Spyglass's one source of time, in every module: given by whoever builds a part (the service, the
 * engine, a source, the sinks, the Flink job and its client, the command) to what it builds, down
 * to the part that needs the time. It holds two clocks, each for its own use:
 *
 * <ul>
 *   <li>the <b>wall</b> clock (epoch milliseconds, {@link #millis()}) for <b>moments</b>: what is
 *       stamped, stored or shown as a time (a record's read time, a query's start, its windows, a
 *       timestamp), and ages measured against such a moment. The clock is a {@link LongSupplier} of
 *       it, so a part that takes the wall clock alone takes a {@code LongSupplier};
 *   <li>the <b>monotonic</b> clock (nanoseconds from an arbitrary origin, {@link #nanos()}) for
 *       <b>durations</b>: waits, timeouts, deadlines ({@link #deadlineIn}, {@link #msLeft}), how
 *       long something took ({@link #msSince}), how often something is done. A change of the wall
 *       clock (NTP, a virtual machine resumed, an operator) does not move it.
 * </ul>
 *
 * <p>This class is the only one of Spyglass that reads the machine's clocks ({@link #system()});
 * the test kit's {@code HouseRules} fails a read anywhere else. A test gives its own ({@link
 * #SpyglassClock(LongSupplier, LongSupplier)}) to control time: it moves the clock rather than
 * waits.
 *
 * <p>Serializable, so that the Flink job ships it with the operators it is given to: {@link
 * #system()} is read back as the machine's clocks where it lands; a test's clock ships when its
 * suppliers are serializable (e.g. {@code (LongSupplier & Serializable) () -> ...}).
 */
public final class SpyglassClock implements LongSupplier, Serializable {
  private static final long serialVersionUID = 1L;

  private static final SpyglassClock SYSTEM =
      new SpyglassClock(
          (LongSupplier & Serializable) System::currentTimeMillis,
          (LongSupplier & Serializable) System::nanoTime);

  private final LongSupplier wallMillis;
  private final LongSupplier monotonicNanos;

  /**
   * A clock of the given two: a test's, to control time.
   *
   * @param wallMillis the time now, in epoch milliseconds
   * @param monotonicNanos a count of nanoseconds that only grows, from any origin
   */
  public SpyglassClock(LongSupplier wallMillis, LongSupplier monotonicNanos) {
    if (wallMillis == null || monotonicNanos == null) {
      throw new NullPointerException("a clock needs a wall clock and a monotonic clock");
    }
    this.wallMillis = wallMillis;
    this.monotonicNanos = monotonicNanos;
  }

  /**
   * The machine's clocks: {@code System.currentTimeMillis} and {@code System.nanoTime}. The same
   * clock after it was serialized and read back (in a Flink task, in another process).
   */
  public static SpyglassClock system() {
    return SYSTEM;
  }

  /**
   * {@code wallMillis} for the wall clock, the machine's monotonic clock for durations: for a part
   * that is given the wall clock alone (a {@code LongSupplier}) and passes it on to one that needs
   * both. A clock is returned as it is.
   */
  public static SpyglassClock ofWall(LongSupplier wallMillis) {
    if (wallMillis instanceof SpyglassClock c) {
      return c;
    }
    return new SpyglassClock(wallMillis, SYSTEM.monotonicNanos);
  }

  /** The time now on the wall clock, in epoch milliseconds: for moments. */
  public long millis() {
    return wallMillis.getAsLong();
  }

  /** {@link #millis()}: the clock, for the parts that take the wall clock alone. */
  @Override
  public long getAsLong() {
    return millis();
  }

  /**
   * The monotonic clock's count now, in nanoseconds: for durations (only differences mean
   * something).
   */
  public long nanos() {
    return monotonicNanos.getAsLong();
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

  /** The machine's clocks are written as such, and read back as {@link #system()}. */
  private Object writeReplace() {
    return this == SYSTEM ? new MachineClocks() : this;
  }

  /** What {@link #system()} is serialized as. */
  private static final class MachineClocks implements Serializable {
    private static final long serialVersionUID = 1L;

    private Object readResolve() {
      return SYSTEM;
    }
  }
}
