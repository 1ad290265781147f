package io.spyglass.sources;

import io.spyglass.core.SpyglassClock;
import java.util.concurrent.TimeUnit;

/**
 * Paces a source to a rate in records per second: records are released in batches of about 10 ms
 * (or a batch's worth, if less), and a debt over one second (the engine fell behind) is forgiven,
 * so a source that cannot be read fast enough shows as a lower achieved rate, never as a burst.
 * Rate 0 releases everything asked for. Used from one thread.
 */
public final class Pacer {
  private final long rate;
  private final SpyglassClock clock;
  private long released;
  private long startNanos = -1;

  public Pacer(long recordsPerSecond) {
    this(recordsPerSecond, SpyglassClock.system());
  }

  /** Paced by {@code clock}'s monotonic count. */
  public Pacer(long recordsPerSecond, SpyglassClock clock) {
    this.rate = recordsPerSecond;
    this.clock = clock;
  }

  /** Records due now, at most {@code want}, waiting up to {@code maxWaitMs} for ~10 ms' worth. */
  public int take(int want, long maxWaitMs) throws InterruptedException {
    if (rate == 0) {
      return want;
    }
    long minBatch = Math.max(1, Math.min(want, rate / 100));
    long deadline = clock.deadlineIn(maxWaitMs);
    while (true) {
      long due = due();
      long now = clock.nanos();
      if (due >= minBatch || now >= deadline) {
        int n = (int) Math.min(want, due);
        released += n;
        return n;
      }
      long dueAt = startNanos + (long) ((released + minBatch) * 1e9 / rate);
      TimeUnit.NANOSECONDS.sleep(Math.max(1, Math.min(dueAt, deadline) - now));
    }
  }

  private long due() {
    long now = clock.nanos();
    if (startNanos < 0) {
      startNanos = now;
    }
    long due = (long) ((now - startNanos) / 1e9 * rate) - released;
    if (due > rate) {
      released += due - rate;
      due = rate;
    }
    return Math.max(0, due);
  }
}
