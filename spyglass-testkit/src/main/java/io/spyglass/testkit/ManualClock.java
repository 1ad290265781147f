package io.spyglass.testkit;

import java.util.function.LongSupplier;

/** A clock that moves only when told to. Epoch milliseconds. */
public final class ManualClock implements LongSupplier {
  private long nowMs;

  public ManualClock(long startMs) {
    this.nowMs = startMs;
  }

  @Override
  public long getAsLong() {
    return nowMs;
  }

  public long nowMs() {
    return nowMs;
  }

  public void advance(long ms) {
    if (ms < 0) {
      throw new IllegalArgumentException("time does not go back: " + ms);
    }
    nowMs += ms;
  }

  public void set(long ms) {
    if (ms < nowMs) {
      throw new IllegalArgumentException("time does not go back: " + ms + " < " + nowMs);
    }
    nowMs = ms;
  }
}
