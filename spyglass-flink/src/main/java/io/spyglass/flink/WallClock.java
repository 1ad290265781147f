package io.spyglass.flink;

import io.spyglass.sources.SourceClock;
import java.io.Serializable;
import java.util.function.LongSupplier;

/**
 * The job's clock where Flink's processing-time service is not the time (a source's reader, the
 * job's set-up, the time an operator spends on a task), given to what runs where Flink puts it, so
 * serializable: the wall clock, epoch ms ({@link #getAsLong()}), for what is stamped as a moment (a
 * record's read time, where the query topic is read from); a monotonic count, ns ({@link
 * #nanos()}), for durations, budgets and how often something is done, which a change of the wall
 * clock does not move. Nothing else in the job reads the machine's clocks; a test gives its own (a
 * subclass) to control time.
 */
class WallClock implements LongSupplier, Serializable {
  private static final long serialVersionUID = 1L;

  /** The machine's clocks: {@code System.currentTimeMillis} and {@code System.nanoTime}. */
  static final WallClock SYSTEM = new WallClock();

  /** The time now on the wall clock, in epoch milliseconds. */
  @Override
  public long getAsLong() {
    return System.currentTimeMillis();
  }

  /** The monotonic clock's count now, in nanoseconds (only differences mean something). */
  long nanos() {
    return System.nanoTime();
  }

  /** This clock, for a source of spyglass-sources that the job reads. */
  final SourceClock forSource() {
    return new SourceClock(this, this::nanos);
  }
}
