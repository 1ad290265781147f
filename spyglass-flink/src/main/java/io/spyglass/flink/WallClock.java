package io.spyglass.flink;

import java.io.Serializable;
import java.util.function.LongSupplier;

/** The wall clock, epoch ms, as a source that runs where Flink puts it is given it. */
final class WallClock implements LongSupplier, Serializable {
  private static final long serialVersionUID = 1L;

  static final WallClock SYSTEM = new WallClock();

  @Override
  public long getAsLong() {
    return System.currentTimeMillis();
  }
}
