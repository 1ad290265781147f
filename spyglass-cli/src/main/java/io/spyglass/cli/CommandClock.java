package io.spyglass.cli;

import io.spyglass.engine.EngineClock;
import io.spyglass.sources.SourceClock;
import java.util.function.LongSupplier;

/**
 * The command's one source of time, given to what it builds (the engine, the source, the reports on
 * stderr): the wall clock (epoch milliseconds) for moments (a query's start, the time left before
 * its end); a monotonic clock (nanoseconds from an arbitrary origin) for how often something is
 * done, which a change of the wall clock does not move. Nothing else in the command reads the
 * machine's clocks; a test gives its own to control time.
 */
final class CommandClock {
  private static final CommandClock SYSTEM =
      new CommandClock(System::currentTimeMillis, System::nanoTime);

  private final LongSupplier wallMillis;
  private final LongSupplier monotonicNanos;

  /**
   * @param wallMillis the time now, in epoch milliseconds
   * @param monotonicNanos a count of nanoseconds that only grows, from any origin
   */
  CommandClock(LongSupplier wallMillis, LongSupplier monotonicNanos) {
    this.wallMillis = wallMillis;
    this.monotonicNanos = monotonicNanos;
  }

  /** The machine's clocks: {@code System.currentTimeMillis} and {@code System.nanoTime}. */
  static CommandClock system() {
    return SYSTEM;
  }

  /** The time now on the wall clock, in epoch milliseconds. */
  long millis() {
    return wallMillis.getAsLong();
  }

  /** The monotonic clock's count now, in nanoseconds (only differences mean something). */
  long nanos() {
    return monotonicNanos.getAsLong();
  }

  /** This clock, for the engine the command runs its queries on. */
  EngineClock forEngine() {
    return new EngineClock(wallMillis, monotonicNanos);
  }

  /** This clock, for the source the command reads. */
  SourceClock forSource() {
    return new SourceClock(wallMillis, monotonicNanos);
  }
}
